/**
 * `GET /wallet/balance` and `GET /wallet/vtxos` with a long history: a wallet holding 10,000
 * spent and 100 live VTXOs against one holding only the 100 live ones (rows written straight into
 * the stopped daemons' databases). The ratio of their p50s shows whether the reads grow with
 * history (they should only touch live rows).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Database, silentLogger, type BenchRow } from "@tender/core";
import { fromHex } from "@tender/ark-protocol";
import { ArkVtxoEncodingRow, ArkVtxoRow, ARK_ENTITIES, ARK_MIGRATIONS } from "@tender/plugin-ark";
import type { Daemon } from "../../src/daemon-process.js";
import { createBody, ok, type VtxoInfo } from "../ark-harness.js";
import type { DevnetWithArk } from "../ark-harness.js";

const LIVE = 100;
const SPENT = 10_000;

/** A VTXO to copy: its encoding, amount and expiry. */
interface VtxoTemplate {
  readonly encoded: Uint8Array;
  readonly amountSat: bigint;
  readonly expiryHeight: number;
}

/** Adds `live` spendable and `spent` spent copies of `template` (distinct ids) straight into a stopped daemon's database. */
async function fillVtxos(datadir: string, template: VtxoTemplate, live: number, spent: number): Promise<void> {
  const file = readdirSync(datadir).find((f) => f.endsWith(".sqlite"));
  if (!file) throw new Error(`no SQLite database in ${datadir}`);
  const db = new Database({ entities: ARK_ENTITIES, migrations: ARK_MIGRATIONS }, silentLogger);
  await db.open({ dialect: "sqlite", path: join(datadir, file) });
  try {
    for (let start = 0; start < live + spent; start += 500) {
      const em = db.em();
      for (let i = start; i < Math.min(live + spent, start + 500); i++) {
        const id = `${i.toString(16).padStart(64, "0")}:0`;
        em.create(ArkVtxoRow, {
          id, amountSat: template.amountSat, expiryHeight: template.expiryHeight,
          state: i < live ? "spendable" : "spent", lockedBy: null, createdAtMs: BigInt(i), updatedAtMs: BigInt(i),
        });
        em.create(ArkVtxoEncodingRow, { id, encoded: Buffer.from(template.encoded) });
      }
      await em.flush();
    }
  } finally {
    await db.close();
  }
}

/**
 * The p50s of `path` on two daemons, requests interleaved one by one and the first of each pair
 * alternating, so neither wallet is always measured first or in a calmer moment of the machine.
 */
async function pairedP50Ms(a: Daemon, b: Daemon, path: string, rounds = 80): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  const timed = async (d: Daemon, into: number[]) => {
    const t = performance.now();
    await ok(d, "GET", path);
    into.push(performance.now() - t);
  };
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) { await timed(a, times[0]); await timed(b, times[1]); } else { await timed(b, times[1]); await timed(a, times[0]); }
  }
  const p50 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return [p50(times[0]), p50(times[1])];
}

/** Measures both reads on a large and a small wallet; `source` is a daemon holding a VTXO to copy (it must be running). */
export async function readEndpointsRatios(
  devnet: DevnetWithArk,
  source: Daemon,
  start: (datadir?: string) => Promise<{ d: Daemon }>,
): Promise<{ balanceRatio: number; vtxosRatio: number; rows: BenchRow[] }> {
  const [{ d: big }, { d: small }] = [await start(), await start()];
  await ok(big, "POST", "/api/v1/wallet/create", createBody(devnet));
  await ok(small, "POST", "/api/v1/wallet/create", createBody(devnet));
  const template = (await ok<VtxoInfo[]>(source, "GET", "/api/v1/wallet/vtxos"))[0]!;
  const { encoded } = await ok<{ encoded: string }>(source, "GET", `/api/v1/wallet/vtxos/${template.id}/encoded`);
  const row: VtxoTemplate = { encoded: fromHex(encoded), amountSat: BigInt(template.amount_sat), expiryHeight: template.expiry_height };
  const reopened: Daemon[] = [];
  for (const [d, spent] of [[big, SPENT], [small, 0]] as const) {
    await d.stop();
    await fillVtxos(d.datadir, row, LIVE, spent);
    reopened.push((await start(d.datadir)).d);
  }
  const [bigD, smallD] = reopened as [Daemon, Daemon];
  if ((await ok<VtxoInfo[]>(bigD, "GET", "/api/v1/wallet/vtxos")).length !== LIVE) throw new Error("the filled wallet does not list its live VTXOs");
  // the two wallets interleaved request by request, so a change in the machine's load hits both alike
  await pairedP50Ms(bigD, smallD, "/api/v1/wallet/balance", 10); // warm-up of both
  const [b0, b1] = await pairedP50Ms(bigD, smallD, "/api/v1/wallet/balance");
  const [v0, v1] = await pairedP50Ms(bigD, smallD, "/api/v1/wallet/vtxos");
  return {
    balanceRatio: b0 / b1,
    vtxosRatio: v0 / v1,
    rows: [
      { name: `GET /wallet/balance, 10k spent + ${LIVE} live`, opsPerSec: 1000 / b0, note: `p50 ${b0.toFixed(2)} ms; ${LIVE} live only ${b1.toFixed(2)} ms` },
      { name: `GET /wallet/vtxos, 10k spent + ${LIVE} live`, opsPerSec: 1000 / v0, note: `p50 ${v0.toFixed(2)} ms; ${LIVE} live only ${v1.toFixed(2)} ms` },
    ],
  };
}
