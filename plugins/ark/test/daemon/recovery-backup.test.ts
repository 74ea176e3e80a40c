import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, silentLogger, type DatabaseLocation, type Logger } from "@tender/core";
import { decodeExact, decodeVtxo, formatOutPoint, readOutPoint, vtxoIdString, type DerivedKey } from "@tender/ark-protocol";
import { ArkServerNotFoundError, ArkServerRejectedError, ArkServerUnavailableError, type RecoveryIdsPost } from "@tender/ark-protocol/server";
import { ARK_ENTITIES, ARK_MIGRATIONS } from "../../src/daemon/persistence/entities.js";
import { backUpVtxoIds, catchUpRecovery, type RecoveryBackupPorts } from "../../src/daemon/recovery/recovery-backup.js";
import { VtxoStore } from "../../src/daemon/vtxos/vtxo-store.js";
import { boardOf, memoryDb, randomKey } from "./fixtures.js";

const details = (method: string, code: number, status: string, serverMessage: string) => ({ method: `/bark_server.ArkService/${method}`, code, status, serverMessage, identifiers: [] });

/** A server that records recovery posts and registrations; refusals and outages are set per test. */
class RecordingServer {
  readonly posts: string[][] = [];
  readonly registrations: string[][] = [];
  /** Ids whose registration is refused (a batch containing one is refused whole, as the server does). */
  readonly refused = new Set<string>();
  /** Ids the server does not know (a board not registered yet). */
  readonly unknown = new Set<string>();
  down = false;
  postsFail = false;
  mailboxId: Uint8Array | undefined;

  async postRecoveryVtxoIds(p: RecoveryIdsPost): Promise<void> {
    if (this.down || this.postsFail) throw new ArkServerUnavailableError(details("PostRecoveryVtxoIds", 14, "UNAVAILABLE", "connection refused"));
    expect(p.vtxoIds.length).to.be.within(1, 20);
    this.mailboxId = p.mailboxId;
    this.posts.push(p.vtxoIds.map((b) => formatOutPoint(decodeExact(b, readOutPoint))));
  }

  async registerVtxoTransactions(vtxos: readonly Uint8Array[]): Promise<void> {
    if (this.down) throw new ArkServerUnavailableError(details("RegisterVtxoTransactions", 14, "UNAVAILABLE", "connection refused"));
    const ids = vtxos.map((b) => vtxoIdString(decodeVtxo(b)));
    const unknown = ids.find((id) => this.unknown.has(id));
    if (unknown) throw new ArkServerNotFoundError(details("RegisterVtxoTransactions", 5, "NOT_FOUND", "vtxo not found in database"), {});
    if (ids.some((id) => this.refused.has(id))) throw new ArkServerRejectedError(details("RegisterVtxoTransactions", 3, "INVALID_ARGUMENT", "bad user input: rejected"), {});
    this.registrations.push(ids);
  }
}

/** A logger keeping its warnings. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warn: (m: string) => void warnings.push(m), warnings } as Logger & { warnings: string[] };
}

const recoveryKey: DerivedKey = (() => {
  const k = randomKey();
  return { secretKey: k.sk, publicKey: k.pk } as unknown as DerivedKey;
})();

describe("recovery backup: posting VTXO ids at store time and the sync-time catch-up", () => {
  let db: Database;
  let store: VtxoStore;
  let server: RecordingServer;
  let logger: ReturnType<typeof recordingLogger>;
  let ports: RecoveryBackupPorts;
  beforeEach(async () => {
    db = await memoryDb();
    let t = 1_000;
    store = new VtxoStore(db, () => t++);
    server = new RecordingServer();
    logger = recordingLogger();
    ports = { server, keys: { recoveryMailboxKey: () => recoveryKey }, vtxos: store, logger };
  });
  afterEach(() => db.close());

  const stored = async (n: number, amount = 10_000n): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const v = boardOf(amount + BigInt(i));
      await store.add(v);
      ids.push(vtxoIdString(v));
    }
    return ids;
  };
  const marked = async (ids: readonly string[]) => Promise.all(ids.map((id) => store.isRecoveryRegistered(id)));

  it("backs ids up in chunks of 20 to the recovery mailbox, marking them only when the caller registered their chains", async () => {
    const ids = await stored(45);
    expect(await backUpVtxoIds(ports, ids)).to.equal(true);
    expect(server.posts.map((p) => p.length)).to.deep.equal([20, 20, 5]);
    expect(server.posts.flat()).to.deep.equal(ids);
    expect(server.mailboxId).to.deep.equal(recoveryKey.publicKey);
    expect(await marked(ids)).to.deep.equal(ids.map(() => false));
    expect(await backUpVtxoIds(ports, ids.slice(0, 2), { chainsRegistered: true })).to.equal(true);
    expect(await marked(ids.slice(0, 3))).to.deep.equal([true, true, false]);
  });

  it("a failed post is logged, not thrown, and marks nothing", async () => {
    const ids = await stored(2);
    server.postsFail = true;
    expect(await backUpVtxoIds(ports, ids, { chainsRegistered: true })).to.equal(false);
    expect(logger.warnings.join("\n")).to.contain("posting 2 VTXO id(s) to the recovery mailbox failed (the next sync posts them again)");
    expect(await marked(ids)).to.deep.equal([false, false]);
  });

  it("catches up every VTXO not spent and not marked (spendable, locked and exited): registered, posted, marked; the next run sends nothing", async () => {
    const [spendable, locked, exited, spent, done] = await stored(5);
    await store.lock([locked!], "action-1");
    await store.markExited([exited!]);
    await store.markSpent([spent!]);
    await store.markRecoveryRegistered([done!]);

    const first = await catchUpRecovery(ports);
    expect(first).to.deep.equal({ posted: [spendable, locked, exited], marked: [spendable, locked, exited], failed: [], unknown: [] });
    expect(server.registrations).to.deep.equal([[spendable, locked, exited]]);
    expect(server.posts).to.deep.equal([[spendable, locked, exited]]);
    expect(await marked([spendable!, locked!, exited!, spent!, done!])).to.deep.equal([true, true, true, false, true]);

    const second = await catchUpRecovery(ports);
    expect(second).to.deep.equal({ posted: [], marked: [], failed: [], unknown: [] });
    expect([server.registrations.length, server.posts.length]).to.deep.equal([1, 1]);
  });

  it("one rejected VTXO does not hold the others back: its chunk is retried VTXO by VTXO; it stays unmarked and is caught up once accepted", async () => {
    const ids = await stored(25);
    const poison = ids[3]!;
    server.refused.add(poison);
    const first = await catchUpRecovery(ports);
    // the first chunk of 20 is refused whole and retried one by one; the second chunk of 5 passes whole
    expect(server.registrations.map((r) => r.length)).to.deep.equal([...Array(19).fill(1), 5]);
    expect(first.failed).to.deep.equal([poison]);
    expect(first.marked).to.have.members(ids.filter((id) => id !== poison));
    expect(first.posted).to.have.members(ids);
    expect(logger.warnings.join("\n")).to.contain(`registering VTXO ${poison} failed`);
    expect(await marked([poison])).to.deep.equal([false]);

    server.refused.clear();
    server.registrations.length = 0;
    server.posts.length = 0;
    const second = await catchUpRecovery(ports);
    expect(second).to.deep.equal({ posted: [poison], marked: [poison], failed: [], unknown: [] });
    expect(server.registrations).to.deep.equal([[poison]]);
  });

  it("leaves a VTXO the server does not know yet (a board before its registration) unposted and unmarked", async () => {
    const [known, pending] = await stored(2);
    server.unknown.add(pending!);
    const r = await catchUpRecovery(ports);
    expect(r).to.deep.equal({ posted: [known], marked: [known], failed: [], unknown: [pending] });
    expect(server.posts).to.deep.equal([[known]]);
    expect(logger.warnings).to.deep.equal([]);
  });

  it("marks nothing when the post fails, and stops at once when the server is down", async () => {
    const ids = await stored(3);
    server.postsFail = true;
    const r = await catchUpRecovery(ports);
    expect(r).to.deep.equal({ posted: [], marked: [], failed: [], unknown: [] });
    expect(server.registrations).to.have.length(1);
    expect(await marked(ids)).to.deep.equal([false, false, false]);

    server.postsFail = false;
    server.down = true;
    const e = await catchUpRecovery(ports).then(() => null, (err: unknown) => err);
    expect(e).to.be.instanceOf(ArkServerUnavailableError);
    expect(await marked(ids)).to.deep.equal([false, false, false]);
    server.down = false;
    expect((await catchUpRecovery(ports)).marked).to.deep.equal(ids);
  });
});

describe("recovery mark persistence (ark_0004_recovery_registered)", () => {
  const dir = mkdtempSync(join(tmpdir(), "tender-ark-mark-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const suite = (name: string, location: () => DatabaseLocation | undefined) => {
    describe(name, () => {
      let loc: DatabaseLocation;
      before(function () {
        const l = location();
        if (!l) {
          console.log("    PostgreSQL recovery mark suite skipped: TENDER_TEST_PG_URL is not set");
          this.skip();
        }
        loc = l!;
      });
      after(async () => {
        if (loc) await new Database({ entities: ARK_ENTITIES, migrations: ARK_MIGRATIONS }, silentLogger).destroy(loc);
      });

      it("a new VTXO starts unmarked; the mark survives reopening the database; spent VTXOs are never candidates", async () => {
        const open = async () => {
          const db = new Database({ entities: ARK_ENTITIES, migrations: ARK_MIGRATIONS }, silentLogger);
          await db.open(loc);
          return db;
        };
        let db = await open();
        let store = new VtxoStore(db);
        const [a, b, c] = [boardOf(1_000n), boardOf(2_000n), boardOf(3_000n)];
        for (const v of [a, b, c]) await store.add(v);
        const [ia, ib, ic] = [a, b, c].map(vtxoIdString);
        await store.markRecoveryRegistered([ia!]);
        await store.markSpent([ic!]);
        await db.close();
        db = await open();
        store = new VtxoStore(db);
        expect(await store.isRecoveryRegistered(ia!)).to.equal(true);
        expect(await store.isRecoveryRegistered(ib!)).to.equal(false);
        expect((await store.notRecoveryRegistered()).map((v) => v.id)).to.deep.equal([ib]);
        await db.close();
      });
    });
  };
  suite("SQLite", () => ({ dialect: "sqlite", path: join(dir, "db.sqlite") }));
  suite("PostgreSQL", () => {
    const url = process.env.TENDER_TEST_PG_URL;
    return url ? { dialect: "postgresql", url, schema: `ark_mark_${process.pid}_${Date.now()}` } : undefined;
  });
});
