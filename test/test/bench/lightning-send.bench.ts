/**
 * Lightning send latency next to an arkoor payment, in one run (issue 13): Alice's daemon (with
 * the lightning plugin) holds one large board; each round it pays a fresh normal invoice of the
 * devnet's simulated payee (`POST /lightning/pay`, then `GET /lightning/sends/{hash}` polled every
 * POLL_MS until `paid`: cosign, HTLC registration, initiation, the simulated route's delay, the
 * server's `LightningSendFinished` and the settle step) and pays Bob's Ark address by arkoor
 * (`POST /wallet/send`, answered after cosign, registration and mailbox delivery). Every Lightning
 * payment is checked paid at the payee with a preimage hashing to its payment hash, and Bob's
 * payments are checked received. WARM_UP unmeasured rounds first: V8 optimizes both paths over
 * the first dozens of payments (the arkoor payments bench measured its p50 30 % lower after 60).
 */
import { createHash } from "node:crypto";
import type { BenchReport, BenchRow } from "@tender/core";
import { cleanup, startDaemon, type Daemon } from "../../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, arkDaemonConfig, boardToDaemon, createBody, ok, spendable, startArkDevnet, until, type DevnetWithArk,
} from "../ark-harness.js";

const ROUNDS = 20;
/** Unmeasured rounds first (a Lightning and an arkoor payment each). */
const WARM_UP = 30;
const BOARD_SAT = 2_000_000n;
const INVOICE_SAT = 1_000n;
const PAYMENT_SAT = 1_000;
const POLL_MS = 10;

const LIGHTNING_CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 } },
};

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Round { lightningMs: number; arkoorMs: number }

/** One Lightning send of a fresh invoice until paid, and one arkoor payment to `to`. */
async function round(alice: Daemon, devnet: DevnetWithArk, to: string): Promise<Round> {
  const inv = devnet.lightning.createInvoice({ amountSat: INVOICE_SAT, description: "bench" });
  let t = performance.now();
  await ok(alice, "POST", "/api/v1/lightning/pay", { destination: inv.invoice });
  let preimage: string | null = null;
  for (;;) {
    const s = await ok<{ state: string; preimage: string | null }>(alice, "GET", `/api/v1/lightning/sends/${inv.paymentHash}`);
    if (s.state === "paid") { preimage = s.preimage; break; }
    if (performance.now() - t > 30_000) throw new Error(`Lightning send ${inv.paymentHash} not paid after 30 s (state ${s.state})`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const lightningMs = performance.now() - t;
  if (createHash("sha256").update(Buffer.from(preimage ?? "", "hex")).digest("hex") !== inv.paymentHash) throw new Error(`bad preimage for ${inv.paymentHash}`);
  if (devnet.lightning.invoice(inv.paymentHash)?.state !== "paid") throw new Error(`the payee did not get ${inv.paymentHash}`);
  t = performance.now();
  await ok(alice, "POST", "/api/v1/wallet/send", { destination: to, amount_sat: PAYMENT_SAT });
  return { lightningMs, arkoorMs: performance.now() - t };
}

export default async function lightningSendBench(): Promise<BenchReport> {
  const devnet = await startArkDevnet("lightning-send-bench");
  const daemons: Daemon[] = [];
  const start = async (config: object) => { const d = await startDaemon({ config }); daemons.push(d); return d; };
  try {
    const [alice, bob] = [await start(LIGHTNING_CONFIG), await start(arkDaemonConfig())];
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(alice, devnet, ALICE_MNEMONIC, BOARD_SAT)] });
    const { address: bobAddress } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await until("Bob connected", async () => ((await ok<{ connected: boolean }>(bob, "GET", "/api/v1/wallet/connected")).connected ? true : undefined));

    for (let i = 0; i < WARM_UP; i++) await round(alice, devnet, bobAddress); // not measured
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(alice, devnet, bobAddress));
    await until("Bob's payments", async () => ((await spendable(bob)) === (ROUNDS + WARM_UP) * PAYMENT_SAT ? true : undefined), 30_000);

    const ln = rounds.map((r) => r.lightningMs).sort((a, b) => a - b);
    const ark = rounds.map((r) => r.arkoorMs).sort((a, b) => a - b);
    const [lnP50, arkP50, lnP99, arkP99] = [percentile(ln, 50), percentile(ark, 50), percentile(ln, 99), percentile(ark, 99)];
    const rows: BenchRow[] = [
      { name: "Lightning send (pay → paid) p50", opsPerSec: 1000 / lnP50, note: `${lnP50.toFixed(1)} ms; ${(lnP50 / arkP50).toFixed(2)}× the arkoor send` },
      { name: "Lightning send (pay → paid) p99", opsPerSec: 1000 / lnP99, note: `${lnP99.toFixed(1)} ms; ${(lnP99 / arkP99).toFixed(2)}× the arkoor send` },
      { name: "POST /wallet/send (arkoor) p50", opsPerSec: 1000 / arkP50, note: `${arkP50.toFixed(1)} ms` },
      { name: "POST /wallet/send (arkoor) p99", opsPerSec: 1000 / arkP99, note: `${arkP99.toFixed(1)} ms` },
    ];
    return {
      title: `Lightning send (BOLT11, simulated route of ${devnet.lightning.routingSettings.delayMs} ms) vs arkoor send, ${ROUNDS} rounds each (devnet, reference Ark server, SQLite)`,
      rows,
    };
  } finally {
    for (const d of daemons) { await d.stop(); cleanup(d.datadir); }
    await devnet.stop();
  }
}
