/**
 * Loading a wallet that has handed out many VTXO keys (one a payment's change, one an address):
 * what `ArkKeys.load` costs at a wallet's start, and a lookup of an old key by its public key
 * (a received VTXO, a message to sign) once it is not among the keys kept in memory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, LeanSql, measure, silentLogger, type BenchReport, type BenchRow } from "@tender/core";
import { ARK_ENTITIES, ARK_MIGRATIONS } from "../../src/daemon/persistence/entities.js";
import { ArkKeys, KEPT_KEYS } from "../../src/daemon/keys/ark-keys.js";
import { masterOf, MNEMONIC } from "../daemon/fixtures.js";

const HANDED_OUT = 200_000;
/** Keys really derived from the seed (the rest of the table holds made-up public keys: loading does not check them). */
const REAL = 64;

async function fill(db: Database, keys: ArkKeys): Promise<Uint8Array[]> {
  const real = (await keys.nextVtxoKeys(REAL)).map((k) => k.publicKey);
  const sql = new LeanSql(db, "ark_key");
  const hex = (i: number) => `02${i.toString(16).padStart(64, "0")}`;
  for (let i = REAL; i < HANDED_OUT; i += 500) {
    const n = Math.min(500, HANDED_OUT - i);
    const idx = Array.from({ length: n }, (_, k) => i + k);
    await db.transaction(() => sql.run(`insert into {t} (key_index, pubkey) values ${idx.map(() => "(?, ?)").join(", ")}`, idx.flatMap((j) => [j, hex(j)])));
  }
  return real;
}

export default async function arkKeysBench(): Promise<BenchReport> {
  const dir = mkdtempSync(join(tmpdir(), "tender-ark-keys-bench-"));
  const db = new Database({ entities: ARK_ENTITIES, migrations: ARK_MIGRATIONS }, silentLogger);
  try {
    await db.open({ dialect: "sqlite", path: join(dir, "wallet.sqlite") });
    const master = masterOf(MNEMONIC);
    const real = await fill(db, await ArkKeys.load(db, master));
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const t = process.hrtime.bigint();
    const keys = await ArkKeys.load(db, master);
    const loadMs = Number(process.hrtime.bigint() - t) / 1e6;
    const heapAfter = process.memoryUsage().heapUsed;
    if (keys.nextUnusedIndex !== HANDED_OUT) throw new Error(`loaded next index ${keys.nextUnusedIndex}, expected ${HANDED_OUT}`);
    // lookups of old keys, none of them kept: a fresh ArkKeys keeping 1 key, asked in turn
    const cold = await ArkKeys.load(db, master, { keptKeys: 1 });
    let n = 0;
    const lookups = await measure(async () => {
      if (!(await cold.keyByPubkey(real[n++ % REAL]!))) throw new Error("an old key was not found");
    }, 500);
    const kept = await measure(async () => {
      if (!(await keys.keyByPubkey(real[0]!))) throw new Error("a kept key was not found");
    }, 500);
    const rows: BenchRow[] = [
      { name: `wallet load, ${HANDED_OUT.toLocaleString("en-US")} VTXO keys handed out (SQLite file)`, opsPerSec: 1000 / loadMs, note: `${loadMs.toFixed(1)} ms; heap ${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB more after it (before 2026-11-29 every key was read: 1.35–1.5 s, a 345 MB peak, 26 MB kept)` },
      { name: "key by public key, not kept in memory (indexed read of ark_key)", opsPerSec: lookups, note: `${(1000 / lookups).toFixed(3)} ms; at most ${KEPT_KEYS.toLocaleString("en-US")} recently used keys are kept` },
      { name: "key by public key, kept in memory", opsPerSec: kept, note: `${((1000 / kept) * 1000).toFixed(1)} µs` },
    ];
    return { title: "Ark keys of a long-lived wallet (plugins/ark)", rows };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
