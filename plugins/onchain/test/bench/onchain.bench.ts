import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, measure, silentLogger, type BenchReport, type BenchRow } from "@tender/core";
import { masterKey } from "@tender/plugin-wallet";
import { Bip86Keychain, MemoryOnchainStore, OnchainWallet, type OnchainStore } from "../../src/index.js";
import { OnchainStateRow, OnchainTxRow, onchainHeldMigration, onchainInitMigration } from "../../src/persistence/entities.js";
import { SqlOnchainStore } from "../../src/persistence/sql-store.js";
import { SyntheticChain } from "./fake-chain.js";

const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function scenario(count: number, storeKind: "memory" | "sqlite"): Promise<BenchRow[]> {
  const keychain = new Bip86Keychain(masterKey(MNEMONIC), "regtest");
  const chain = new SyntheticChain(keychain, count);
  const dir = storeKind === "sqlite" ? mkdtempSync(join(tmpdir(), "tender-onchain-bench-")) : undefined;
  const db = dir ? new Database({ entities: [OnchainTxRow, OnchainStateRow], migrations: [onchainInitMigration, onchainHeldMigration] }, silentLogger) : undefined;
  try {
    if (db) await db.open({ dialect: "sqlite", path: join(dir!, "db.sqlite") });
    const store: OnchainStore = db ? new SqlOnchainStore(db) : new MemoryOnchainStore();
    await store.saveState({ nextIndex: chain.usedAddresses });
    const wallet = await OnchainWallet.open(keychain, chain, store, silentLogger);
    const label = `${count.toLocaleString("en-US")} txs, ${storeKind} store`;
    const firstMs = await timed(() => wallet.sync());
    if (wallet.transactions().length !== count) throw new Error(`synced ${wallet.transactions().length} of ${count} transactions`);
    const rows: BenchRow[] = [{ name: `first sync, ${label}`, opsPerSec: 1000 / firstMs, note: `${firstMs.toFixed(0)} ms per sync (all new)` }];
    const resync = await measure(() => wallet.sync(), 500);
    rows.push({ name: `re-sync, ${label}`, opsPerSec: resync, note: `${(1000 / resync).toFixed(0)} ms per sync (nothing new)` });
    const reopenMs = await timed(() => OnchainWallet.open(new Bip86Keychain(masterKey(MNEMONIC), "regtest"), chain, store, silentLogger));
    rows.push({ name: `open from store, ${label}`, opsPerSec: 1000 / reopenMs, note: `${reopenMs.toFixed(0)} ms` });
    return rows;
  } finally {
    await db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Wallet sync time for 1,000 and 10,000 wallet transactions (issue 3), against an in-memory
 * chain source (no network latency: the wallet's own work), with the in-memory and the SQLite store.
 */
export default async function bench(): Promise<BenchReport> {
  const rows: BenchRow[] = [];
  for (const count of [1_000, 10_000]) {
    for (const kind of ["memory", "sqlite"] as const) rows.push(...await scenario(count, kind));
  }
  return { title: "on-chain wallet sync (plugins/onchain)", rows };
}
