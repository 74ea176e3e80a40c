/**
 * Offboard latency next to an arkoor payment, in one run (issue 11): one daemon with the offboard
 * plugin holds ROUNDS + 1 board VTXOs of OFFBOARD_SAT and one larger board; each round it
 * offboards one VTXO to a fresh external address (`POST /wallet/offboard/vtxos`, answered once
 * the offboard is prepared, finished with signed forfeits and broadcast) and pays a second
 * daemon's Ark address by arkoor (`POST /wallet/send`, answered after cosign, registration and
 * mailbox delivery). The offboard tx of every answer is checked in the devnet's mempool paying
 * the address, and the arkoor payments are checked received. One unmeasured round first warms
 * up both paths. A block is mined between rounds, outside the timings: the server funds
 * offboards from confirmed coins only.
 */
import type { BenchReport, BenchRow } from "@tender/core";
import { cleanup, startDaemon, type Daemon } from "../../src/daemon-process.js";
import { createBody, spendable } from "../ark-harness.js";
import {
  externalAddress, offboardDaemonConfig, ok, paidTo, startOffboardDevnet, until, type DevnetWithArk, type VtxoInfo,
} from "../offboard-harness.js";

const ROUNDS = 5;
const OFFBOARD_SAT = 50_000;
const ARKOOR_BOARD_SAT = 500_000;
const PAYMENT_SAT = 1_000;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Funds `d`'s on-chain wallet with one confirmed coin per board, boards each amount and waits until every board is registered. */
async function boardAll(d: Daemon, devnet: DevnetWithArk, amounts: readonly number[]): Promise<void> {
  for (const a of amounts) {
    const { address } = await ok<{ address: string }>(d, "POST", "/api/v1/onchain/addresses/next");
    devnet.node.faucet(address, BigInt(a + 20_000));
  }
  devnet.node.mine(1);
  await ok(d, "POST", "/api/v1/onchain/sync");
  for (const a of amounts) await ok(d, "POST", "/api/v1/boards/board-amount", { amount_sat: a });
  await until("every board registered", async () => {
    if ((await ok<unknown[]>(d, "GET", "/api/v1/boards/pending")).length === 0) return true;
    devnet.node.mine(1);
    await new Promise((r) => setTimeout(r, 150));
    return undefined;
  }, 60_000);
}

interface Round { offboardMs: number; arkoorMs: number }

/** One offboard of a spendable OFFBOARD_SAT VTXO and one arkoor payment to `to`; checks the offboard tx is in the mempool paying the address. */
async function round(alice: Daemon, devnet: DevnetWithArk, to: string): Promise<Round> {
  const candidate = (await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos")).find((v) => v.amount_sat === OFFBOARD_SAT);
  if (!candidate) throw new Error("no board VTXO left to offboard");
  const address = externalAddress();
  let t = performance.now();
  const { offboard_txid: txid } = await ok<{ offboard_txid: string }>(alice, "POST", "/api/v1/wallet/offboard/vtxos", { vtxos: [candidate.id], address });
  const offboardMs = performance.now() - t;
  if (devnet.node.getTxStatus(txid)?.confirmed !== false) throw new Error(`offboard tx ${txid} is not in the devnet mempool`);
  if (paidTo(devnet, txid, address) <= 0n) throw new Error(`offboard tx ${txid} pays nothing to ${address}`);
  t = performance.now();
  await ok(alice, "POST", "/api/v1/wallet/send", { destination: to, amount_sat: PAYMENT_SAT });
  const arkoorMs = performance.now() - t;
  devnet.node.mine(1);
  return { offboardMs, arkoorMs };
}

export default async function offboardBench(): Promise<BenchReport> {
  const devnet = await startOffboardDevnet("offboard-bench");
  const daemons: Daemon[] = [];
  const start = async () => { const d = await startDaemon({ config: offboardDaemonConfig() }); daemons.push(d); return d; };
  try {
    const [alice, bob] = [await start(), await start()];
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet));
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet));
    await boardAll(alice, devnet, [ARKOOR_BOARD_SAT, ...Array.from({ length: ROUNDS + 1 }, () => OFFBOARD_SAT)]);
    const { address: bobAddress } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await until("Bob connected", async () => ((await ok<{ connected: boolean }>(bob, "GET", "/api/v1/wallet/connected")).connected ? true : undefined));

    await round(alice, devnet, bobAddress); // warm-up, not measured
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(alice, devnet, bobAddress));
    await until("Bob's payments", async () => ((await spendable(bob)) === (ROUNDS + 1) * PAYMENT_SAT ? true : undefined), 30_000);

    const off = rounds.map((r) => r.offboardMs).sort((a, b) => a - b);
    const ark = rounds.map((r) => r.arkoorMs).sort((a, b) => a - b);
    const [offP50, arkP50, offMax, arkMax] = [percentile(off, 50), percentile(ark, 50), off.at(-1)!, ark.at(-1)!];
    const rows: BenchRow[] = [
      { name: "POST /wallet/offboard/vtxos p50", opsPerSec: 1000 / offP50, note: `${offP50.toFixed(1)} ms; ${(offP50 / arkP50).toFixed(2)}× the arkoor send` },
      { name: "POST /wallet/offboard/vtxos max", opsPerSec: 1000 / offMax, note: `${offMax.toFixed(1)} ms; ${(offMax / arkMax).toFixed(2)}× the arkoor send` },
      { name: "POST /wallet/send (arkoor) p50", opsPerSec: 1000 / arkP50, note: `${arkP50.toFixed(1)} ms` },
      { name: "POST /wallet/send (arkoor) max", opsPerSec: 1000 / arkMax, note: `${arkMax.toFixed(1)} ms` },
    ];
    return { title: `Offboard (prepare → finish → broadcast, 1 VTXO) vs arkoor send, ${ROUNDS} rounds each (devnet, reference Ark server, SQLite)`, rows };
  } finally {
    for (const d of daemons) { await d.stop(); cleanup(d.datadir); }
    await devnet.stop();
  }
}
