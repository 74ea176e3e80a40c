/**
 * Ark payments between two daemons on the devnet (issue 6 "done when"): arkoor payments per
 * second from Alice to Bob (each answered after cosign, registration and mailbox delivery), p50
 * and p99 latency of `POST /wallet/send`, the time until Bob's daemon has received them all, and
 * `GET /wallet/balance` / `GET /wallet/vtxos` latency for a wallet holding 10,000 spent and 100
 * live VTXOs next to one holding only the 100 live ones (their ratio shows whether the cost of
 * the read endpoints grows with history).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Database, silentLogger, type BenchReport, type BenchRow } from "@tender/core";
import { ArkVtxoRow, ARK_ENTITIES, ARK_MIGRATIONS } from "@tender/plugin-ark";
import { cleanup, startDaemon, type Daemon } from "../../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC, arkDaemonConfig, boardToDaemon, createBody, ok, spendable, startArkDevnet, until, type VtxoInfo } from "../ark-harness.js";

const PAYMENTS = 40;
const LIVE = 100;
const SPENT = 10_000;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Adds `live` spendable and `spent` spent copies of `template` (distinct ids) straight into a stopped daemon's database. */
async function fillVtxos(datadir: string, template: ArkVtxoRow, live: number, spent: number): Promise<void> {
  const file = readdirSync(datadir).find((f) => f.endsWith(".sqlite"));
  if (!file) throw new Error(`no SQLite database in ${datadir}`);
  const db = new Database({ entities: ARK_ENTITIES, migrations: ARK_MIGRATIONS }, silentLogger);
  await db.open({ dialect: "sqlite", path: join(datadir, file) });
  try {
    for (let start = 0; start < live + spent; start += 500) {
      const em = db.em();
      for (let i = start; i < Math.min(live + spent, start + 500); i++) {
        em.create(ArkVtxoRow, {
          id: `${i.toString(16).padStart(64, "0")}:0`, encoded: template.encoded, amountSat: template.amountSat, expiryHeight: template.expiryHeight,
          state: i < live ? "spendable" : "spent", lockedBy: null, createdAtMs: BigInt(i), updatedAtMs: BigInt(i),
        });
      }
      await em.flush();
    }
  } finally {
    await db.close();
  }
}

async function latencyMs(d: Daemon, path: string, rounds = 30): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await ok(d, "GET", path);
    times.push(performance.now() - t);
  }
  return percentile(times.sort((a, b) => a - b), 50);
}

export default async function arkPaymentsBench(): Promise<BenchReport> {
  const devnet = await startArkDevnet("ark-payments-bench");
  const daemons: Daemon[] = [];
  const start = async () => { const d = await startDaemon({ config: arkDaemonConfig() }); daemons.push(d); return d; };
  try {
    const [alice, bob] = [await start(), await start()];
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 5_000_000n)] });
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await until("Bob connected", async () => ((await ok<{ connected: boolean }>(bob, "GET", "/api/v1/wallet/connected")).connected ? true : undefined));

    const latencies: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < PAYMENTS; i++) {
      const t = performance.now();
      await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 1_000 });
      latencies.push(performance.now() - t);
    }
    const sendSeconds = (performance.now() - t0) / 1000;
    await until("Bob's payments", async () => ((await spendable(bob)) === PAYMENTS * 1_000 ? true : undefined), 120_000);
    const receivedSeconds = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);

    // read endpoints: 10,000 spent + 100 live VTXOs against 100 live only (rows written while stopped)
    const [big, small] = [await start(), await start()];
    await ok(big, "POST", "/api/v1/wallet/create", createBody(devnet));
    await ok(small, "POST", "/api/v1/wallet/create", createBody(devnet));
    const template = (await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos"))[0]!;
    const { encoded } = await ok<{ encoded: string }>(alice, "GET", `/api/v1/wallet/vtxos/${template.id}/encoded`);
    const row = Object.assign(new ArkVtxoRow(), { encoded, amountSat: BigInt(template.amount_sat), expiryHeight: template.expiry_height });
    const reopened: Daemon[] = [];
    for (const [d, spent] of [[big, SPENT], [small, 0]] as const) {
      await d.stop();
      await fillVtxos(d.datadir, row, LIVE, spent);
      const again = await startDaemon({ datadir: d.datadir, config: arkDaemonConfig() });
      daemons.push(again);
      reopened.push(again);
    }
    const [bigD, smallD] = reopened as [Daemon, Daemon];
    if ((await ok<VtxoInfo[]>(bigD, "GET", "/api/v1/wallet/vtxos")).length !== LIVE) throw new Error("the filled wallet does not list its live VTXOs");
    const balance = [await latencyMs(bigD, "/api/v1/wallet/balance"), await latencyMs(smallD, "/api/v1/wallet/balance")];
    const vtxos = [await latencyMs(bigD, "/api/v1/wallet/vtxos"), await latencyMs(smallD, "/api/v1/wallet/vtxos")];

    const rows: BenchRow[] = [
      { name: "arkoor payments Alice → Bob (HTTP send)", opsPerSec: PAYMENTS / sendSeconds, note: `${PAYMENTS} sequential sends of 1,000 sat` },
      { name: "arkoor payments received by Bob", opsPerSec: PAYMENTS / receivedSeconds, note: "until Bob's daemon stored all of them (mailbox subscription)" },
      { name: "POST /wallet/send p50", opsPerSec: 1000 / percentile(latencies, 50), note: `${percentile(latencies, 50).toFixed(1)} ms` },
      { name: "POST /wallet/send p99", opsPerSec: 1000 / percentile(latencies, 99), note: `${percentile(latencies, 99).toFixed(1)} ms` },
      { name: "GET /wallet/balance, 10k spent + 100 live", opsPerSec: 1000 / balance[0]!, note: `p50 ${balance[0]!.toFixed(2)} ms; ratio to 100 live only: ${(balance[0]! / balance[1]!).toFixed(2)}` },
      { name: "GET /wallet/balance, 100 live", opsPerSec: 1000 / balance[1]!, note: `p50 ${balance[1]!.toFixed(2)} ms` },
      { name: "GET /wallet/vtxos, 10k spent + 100 live", opsPerSec: 1000 / vtxos[0]!, note: `p50 ${vtxos[0]!.toFixed(2)} ms; ratio to 100 live only: ${(vtxos[0]! / vtxos[1]!).toFixed(2)}` },
      { name: "GET /wallet/vtxos, 100 live", opsPerSec: 1000 / vtxos[1]!, note: `p50 ${vtxos[1]!.toFixed(2)} ms` },
    ];
    return { title: "Ark payments between two daemons (devnet, reference Ark server, SQLite)", rows };
  } finally {
    for (const d of daemons) { await d.stop(); cleanup(d.datadir); }
    await devnet.stop();
  }
}
