import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, silentLogger, type DatabaseLocation } from "@tender/core";
import { OnchainStateRow, OnchainTxRow, onchainHeldMigration, onchainInitMigration } from "../src/persistence/entities.js";
import { SqlOnchainStore } from "../src/persistence/sql-store.js";
import type { StoredTx } from "../src/index.js";

const model = { entities: [OnchainTxRow, OnchainStateRow], migrations: [onchainInitMigration, onchainHeldMigration] };

function tx(n: number, over: Partial<StoredTx> = {}): StoredTx {
  return {
    txid: n.toString(16).padStart(64, "0"), hex: "02000000000100", origin: "wallet", state: "pending", block: null,
    feeSat: 2_100_000_000_000_000n - BigInt(n), isCpfp: n % 2 === 0, firstSeenMs: 1_800_000_000_000 + n, lastBroadcastMs: null, held: n % 3 === 0, ...over,
  };
}

function storeSuite(backend: string, location: () => DatabaseLocation | undefined): void {
  describe(`on-chain wallet store on ${backend} (migration onchain_0001_wallet)`, function () {
    this.timeout(30_000);
    let loc: DatabaseLocation;
    before(function () {
      const l = location();
      if (!l) {
        console.log("    PostgreSQL on-chain store suite skipped: TENDER_TEST_PG_URL is not set");
        this.skip();
      }
      loc = l!;
    });
    after(async () => { if (loc) await new Database(model, silentLogger).destroy(loc); });

    it("round-trips transactions (bigint fees, blocks, flags), updates in place, deletes, and keeps the next index", async () => {
      const db = new Database(model, silentLogger);
      await db.open(loc);
      const store = new SqlOnchainStore(db);
      expect(await store.loadState()).to.deep.equal({ nextIndex: 0 });
      const a = tx(1);
      const b = tx(2, { origin: "external", state: "confirmed", block: { height: 7, hash: "ab".repeat(32), time: 1_767_225_600 }, feeSat: null, lastBroadcastMs: 5 });
      await store.saveTxs([a, b]);
      await store.saveTxs([{ ...a, state: "conflicted", lastBroadcastMs: 1_800_000_000_123 }]);
      await store.saveTxs([tx(3)]);
      await store.saveState({ nextIndex: 12 });
      await db.close();

      const again = new Database(model, silentLogger);
      await again.open(loc);
      const reopened = new SqlOnchainStore(again);
      const loaded = (await reopened.loadTxs()).sort((x, y) => x.txid.localeCompare(y.txid));
      expect(loaded).to.deep.equal([{ ...a, state: "conflicted", lastBroadcastMs: 1_800_000_000_123 }, b, tx(3)]);
      expect(loaded[2]!.held).to.equal(true);
      expect(await reopened.loadState()).to.deep.equal({ nextIndex: 12 });
      await reopened.deleteTx(a.txid);
      expect((await reopened.loadTxs()).map((t) => t.txid).sort()).to.deep.equal([b.txid, tx(3).txid]);
      await again.close();
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "tender-onchain-db-"));
after(() => rmSync(dir, { recursive: true, force: true }));
storeSuite("SQLite", () => ({ dialect: "sqlite", path: join(dir, "db.sqlite") }));
storeSuite("PostgreSQL", () => {
  const url = process.env.TENDER_TEST_PG_URL;
  return url ? { dialect: "postgresql", url, schema: `onchain_${process.pid}_${Date.now()}` } : undefined;
});
