import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, silentLogger, type DatabaseLocation } from "@tender/core";
import { EXITS_ENTITIES, EXITS_MIGRATIONS } from "../src/persistence/exit-rows.js";
import { SqlExitStore } from "../src/persistence/sql-exit-store.js";
import type { ExitChildRecord, ExitClaimRecord, ExitRecord } from "../src/exit-records.js";

const model = { entities: [...EXITS_ENTITIES], migrations: [...EXITS_MIGRATIONS] };
const H = (n: number) => n.toString(16).padStart(64, "0");

function storeSuite(backend: string, location: () => DatabaseLocation | undefined): void {
  describe(`exit store on ${backend} (migrations exits_0001_init, exits_0002_preimages)`, function () {
    this.timeout(30_000);
    let loc: DatabaseLocation;
    before(function () {
      const l = location();
      if (!l) {
        console.log("    PostgreSQL exit store suite skipped: TENDER_TEST_PG_URL is not set");
        this.skip();
      }
      loc = l!;
    });
    after(async () => { if (loc) await new Database(model, silentLogger).destroy(loc); });

    it("round-trips exits with their state and history, children with their origin, claims, preimages; a restarted exit moves to the end", async () => {
      const db = new Database(model, silentLogger);
      await db.open(loc);
      const store = new SqlExitStore(db);
      expect(await store.nextSeq()).to.equal(1);
      const a: ExitRecord = {
        vtxoId: `${H(1)}:0`, seq: 1, amountSat: 2_100_000_000_000_000n, movementId: 4, lockId: "exit.1", createdAtMs: 1_800_000_000_000,
        state: { type: "processing", tipHeight: 120, transactions: [{ txid: H(9), status: { type: "confirmed", childTxid: H(8), block: { height: 119, hash: H(7) }, origin: { type: "wallet", confirmedIn: { height: 119, hash: H(7) } } } }] },
        history: [{ type: "start", tipHeight: 110 }],
      };
      const b: ExitRecord = { ...a, vtxoId: `${H(2)}:1`, seq: 2, lockId: null, movementId: null, state: { type: "claimable", tipHeight: 140, claimableSince: { height: 131, hash: H(6) }, lastScannedBlock: null }, history: [] };
      await store.saveExit(a);
      await store.saveExit(b);
      expect(await store.nextSeq()).to.equal(3);
      const restarted: ExitRecord = { ...a, seq: 3, state: { type: "start", tipHeight: 150 }, history: [] };
      await store.saveExit(restarted);
      const child: ExitChildRecord = { childTxid: H(8), exitTxid: H(9), hex: "03000000", feeSat: 3_060n, vsize: 153, ours: true, origin: { type: "mempool" }, status: "built", createdAtMs: 5 };
      await store.saveChild(child);
      await store.saveChild({ ...child, status: "broadcast", origin: { type: "block", confirmedIn: { height: 119, hash: H(7) } } });
      const claim: ExitClaimRecord = { txid: H(5), hex: "02000000", vtxoIds: [a.vtxoId, b.vtxoId], feeSat: 900n, ownDestination: true, status: "built", createdAtMs: 6 };
      await store.saveClaim(claim);
      await store.savePreimage(H(3), H(4));
      await store.savePreimage(H(3), H(4)); // kept once
      await db.close();

      const again = new Database(model, silentLogger);
      await again.open(loc);
      const reopened = new SqlExitStore(again);
      expect(await reopened.exits()).to.deep.equal([b, restarted]);
      expect(await reopened.exit(a.vtxoId)).to.deep.equal(restarted);
      expect(await reopened.children(H(9))).to.deep.equal([{ ...child, status: "broadcast", origin: { type: "block", confirmedIn: { height: 119, hash: H(7) } } }]);
      expect(await reopened.children(H(1))).to.deep.equal([]);
      expect(await reopened.claims()).to.deep.equal([claim]);
      expect(await reopened.preimage(H(3)), "an HTLC-recv preimage handed over with its exit").to.equal(H(4));
      expect(await reopened.preimage(H(2))).to.equal(undefined);
      await reopened.saveExit(a);
      expect((await reopened.exit(a.vtxoId))!.state).to.deep.equal(a.state);
      await again.close();
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "tender-exits-db-"));
after(() => rmSync(dir, { recursive: true, force: true }));
storeSuite("SQLite", () => ({ dialect: "sqlite", path: join(dir, "db.sqlite") }));
storeSuite("PostgreSQL", () => {
  const url = process.env.TENDER_TEST_PG_URL;
  return url ? { dialect: "postgresql", url, schema: `exits_${process.pid}_${Date.now()}` } : undefined;
});
