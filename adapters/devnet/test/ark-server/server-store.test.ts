import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, silentLogger, type DatabaseLocation, type FileSync } from "@tender/core";
import { indexAnswers } from "@tender/core/testing";
import { ArkServerStore, arkServerMigrations, DoubleSpendError, NEXT_CHECKPOINT_QUERY, type NewVtxo, type Row } from "../../src/ark-server/server-store.js";

const vtxo = (id: string, state: NewVtxo["state"] = "spendable"): NewVtxo => ({ id, bytes: new Uint8Array([1, 2, 3]), state, userPubkey: "02" + "11".repeat(32), policyType: "pubkey" });
const id = (n: number) => `${n.toString(16).padStart(64, "0")}:0`;

/** Whether the next mailbox checkpoint is read from the index on the checkpoint ({@link indexAnswers}). */
async function checkpointIndexed(store: ArkServerStore, loc: DatabaseLocation): Promise<void> {
  const run = (q: string, p: readonly unknown[]) => store.read((sql) => sql.execute(q, [...p], "all")) as Promise<Row[]>;
  const r = await indexAnswers(run, loc, "ark_server_mailbox_checkpoint", NEXT_CHECKPOINT_QUERY, [], /\(checkpoint\)/);
  expect(r.ok, r.evidence).to.equal(true);
}

/** The same store suite on one backend. */
function storeSuite(backend: string, location: () => DatabaseLocation | undefined, opts: { preparedSpends?: boolean } = {}): void {
  describe(`ark server store on ${backend} (spend states, no double spend)`, function () {
    this.timeout(30_000);
    let store: ArkServerStore;
    let schema: string | undefined;
    before(function () {
      if (!location()) {
        console.log("    PostgreSQL store suite skipped: TENDER_TEST_PG_URL is not set (.ci/run starts PostgreSQL and sets it)");
        this.skip();
      }
    });
    beforeEach(async () => {
      const loc = location()!;
      schema = loc.dialect === "postgresql" ? loc.schema : undefined;
      store = await ArkServerStore.open(loc, silentLogger, opts);
    });
    afterEach(async () => {
      await store?.close();
    });

    it("keeps the first value of a meta key", async () => {
      const a = await store.initMeta("seed", new Uint8Array([1]));
      const b = await store.initMeta("seed", new Uint8Array([2]));
      expect([...a]).to.deep.equal([1]);
      expect([...b]).to.deep.equal([1]);
    });

    it("records a spend once, accepts the same spender again, and refuses another spender atomically", async () => {
      await store.insertBoard(vtxo(id(1)), { txid: "aa".repeat(32), raw: new Uint8Array([9]), signed: true, isFunding: true });
      const out = vtxo(id(2), "unregistered");
      const cp = { vtxo: vtxo(id(3), "spent"), spentBy: "cc".repeat(32), inputId: id(1) };
      await store.recordArkoorSpend([{ id: id(1), spendTxid: "bb".repeat(32) }], [cp], [out], [{ txid: "bb".repeat(32), raw: new Uint8Array([7]), signed: false, isFunding: false }]);
      await store.recordArkoorSpend([{ id: id(1), spendTxid: "bb".repeat(32) }], [cp], [out], []);
      expect((await store.getVtxo(id(1)))?.state).to.equal("spent");
      expect((await store.getVtxo(id(2)))?.state).to.equal("unregistered");
      expect(await store.spentBy(id(3))).to.equal("cc".repeat(32));
      // other spender of the input
      let e = await store.recordArkoorSpend([{ id: id(1), spendTxid: "dd".repeat(32) }], [], [vtxo(id(4), "unregistered")], []).then(() => null, (x: unknown) => x);
      expect(e).to.be.instanceOf(DoubleSpendError);
      expect(await store.getVtxo(id(4))).to.equal(undefined);
      // same checkpoint tx, other arkoor tx
      e = await store.recordArkoorSpend([{ id: id(1), spendTxid: "bb".repeat(32) }], [{ ...cp, spentBy: "ee".repeat(32) }], [], []).then(() => null, (x: unknown) => x);
      expect(e).to.be.instanceOf(DoubleSpendError);
    });

    it("writes concurrent spends in one commit", async () => {
      const ids = [20, 21, 22].map(id);
      for (const [k, i] of ids.entries()) await store.insertBoard(vtxo(i), { txid: `${k}f`.repeat(32), raw: new Uint8Array([k]), signed: true, isFunding: true });
      const before = { ...store.spendCommits };
      await Promise.all(ids.map((i, k) => store.recordArkoorSpend([{ id: i, spendTxid: `${k}e`.repeat(32) }], [], [vtxo(id(30 + k), "unregistered")], [])));
      expect(store.spendCommits.commits - before.commits).to.equal(1);
      expect(store.spendCommits.spends - before.spends).to.equal(3);
      for (const [k, i] of ids.entries()) {
        expect((await store.getVtxo(i))?.state).to.equal("spent");
        expect((await store.getVtxo(id(30 + k)))?.state).to.equal("unregistered");
      }
    });

    it("refuses only the double spend among concurrent spends, writing nothing of it", async () => {
      await store.insertBoard(vtxo(id(40)), { txid: "4f".repeat(32), raw: new Uint8Array([4]), signed: true, isFunding: true });
      await store.insertBoard(vtxo(id(41)), { txid: "5f".repeat(32), raw: new Uint8Array([5]), signed: true, isFunding: true });
      const results = await Promise.allSettled([
        store.recordArkoorSpend([{ id: id(40), spendTxid: "4e".repeat(32) }], [], [vtxo(id(50), "unregistered")], []),
        store.recordArkoorSpend([{ id: id(40), spendTxid: "5e".repeat(32) }], [], [vtxo(id(51), "unregistered")], [{ txid: "5e".repeat(32), raw: new Uint8Array([1]), signed: false, isFunding: false }]),
        store.recordArkoorSpend([{ id: id(41), spendTxid: "6e".repeat(32) }], [], [vtxo(id(52), "unregistered")], []),
      ]);
      expect(results.map((r) => r.status)).to.deep.equal(["fulfilled", "rejected", "fulfilled"]);
      expect((results[1] as PromiseRejectedResult).reason).to.be.instanceOf(DoubleSpendError);
      expect((await store.getVtxo(id(40)))?.oorSpentTxid).to.equal("4e".repeat(32));
      expect(await store.getVtxo(id(51))).to.equal(undefined);
      expect(await store.getTx("5e".repeat(32))).to.equal(undefined);
      expect((await store.getVtxo(id(50)))?.state).to.equal("unregistered");
      expect((await store.getVtxo(id(41)))?.state).to.equal("spent");
      expect((await store.getVtxo(id(52)))?.state).to.equal("unregistered");
    });

    it("flips unregistered to spendable on registration and never resurrects a spent VTXO", async () => {
      await store.insertBoard(vtxo(id(5)), { txid: "ab".repeat(32), raw: new Uint8Array([1]), signed: true, isFunding: true });
      await store.recordArkoorSpend([{ id: id(5), spendTxid: "ac".repeat(32) }], [], [vtxo(id(6), "unregistered")], [{ txid: "ac".repeat(32), raw: new Uint8Array([5]), signed: false, isFunding: false }]);
      await store.registerChains([{ id: id(6), bytes: new Uint8Array([4]) }, { id: id(5), bytes: new Uint8Array([8]) }], [{ txid: "ac".repeat(32), raw: new Uint8Array([6]), signed: true, isFunding: false }]);
      expect((await store.getVtxo(id(6)))?.state).to.equal("spendable");
      expect([...(await store.getVtxo(id(6)))!.bytes]).to.deep.equal([4]);
      expect((await store.getVtxo(id(5)))?.state).to.equal("spent");
      const tx = await store.getTx("ac".repeat(32));
      expect(tx?.signed).to.equal(true);
      expect([...tx!.raw]).to.deep.equal([6]);
      // a later unsigned write does not replace the signed tx
      await store.recordArkoorSpend([], [], [], [{ txid: "ac".repeat(32), raw: new Uint8Array([5]), signed: false, isFunding: false }]);
      expect([...(await store.getTx("ac".repeat(32)))!.raw]).to.deep.equal([6]);
    });

    it("appends mailbox entries under increasing checkpoints, deduplicated, and pages by entry", async () => {
      const mb = "02" + "22".repeat(32);
      const c1 = await store.appendMailbox(mb, "arkoor", [{ key: "a", payload: new Uint8Array([1]) }, { key: "b", payload: new Uint8Array([2]) }]);
      const dup = await store.appendMailbox(mb, "arkoor", [{ key: "a", payload: new Uint8Array([1]) }]);
      const c2 = await store.appendMailbox(mb, "recovery", [{ key: "a", payload: new Uint8Array([3]) }]);
      expect(dup).to.equal(null);
      expect(c2! > c1!).to.equal(true);
      const rows = await store.readMailbox(mb, 0n, 1);
      expect(rows.map((r) => [r.checkpoint, r.kind, [...r.payload]])).to.deep.equal([
        [c1, "arkoor", [1]],
        [c1, "arkoor", [2]],
      ]);
      expect((await store.readMailbox(mb, c1!, 10)).map((r) => r.kind)).to.deep.equal(["recovery"]);
      expect(await store.readMailbox("02" + "33".repeat(32), 0n, 10)).to.deep.equal([]);
    });

    it("reads the next mailbox checkpoint from an index on the checkpoint, not from every mailbox's rows", async () => {
      await checkpointIndexed(store, location()!);
    });

    it("writes chain registrations and mailbox posts in the commit of concurrent spends, checkpoints in arrival order", async () => {
      const mb = "02" + "44".repeat(32);
      await store.insertBoard(vtxo(id(60)), { txid: "6f".repeat(32), raw: new Uint8Array([6]), signed: true, isFunding: true });
      await store.recordArkoorSpend([{ id: id(60), spendTxid: "6d".repeat(32) }], [], [vtxo(id(61), "unregistered")], []);
      await store.insertBoard(vtxo(id(62)), { txid: "7f".repeat(32), raw: new Uint8Array([7]), signed: true, isFunding: true });
      const before = { ...store.groupCommits };
      const [, , first, second] = await Promise.all([
        store.recordArkoorSpend([{ id: id(62), spendTxid: "7d".repeat(32) }], [], [vtxo(id(63), "unregistered")], []),
        store.registerChains([{ id: id(61), bytes: new Uint8Array([9]) }], [{ txid: "6d".repeat(32), raw: new Uint8Array([8]), signed: true, isFunding: false }]),
        store.appendMailbox(mb, "arkoor", [{ key: "x", payload: new Uint8Array([1]) }]),
        store.appendMailbox(mb, "recovery", [{ key: "y", payload: new Uint8Array([2]) }]),
      ]);
      expect(store.groupCommits.commits - before.commits).to.equal(1);
      expect(store.groupCommits.writes - before.writes).to.equal(4);
      expect(second! > first!).to.equal(true);
      expect((await store.getVtxo(id(61)))?.state).to.equal("spendable");
      expect((await store.getVtxo(id(62)))?.state).to.equal("spent");
      expect((await store.getTx("6d".repeat(32)))?.signed).to.equal(true);
      expect((await store.readMailbox(mb, 0n, 10)).map((r) => [r.checkpoint, r.kind])).to.deep.equal([
        [first, "arkoor"],
        [second, "recovery"],
      ]);
    });

    it("a double spend in a group commit refuses only itself: the registration and mailbox post of the group are written", async () => {
      const mb = "02" + "55".repeat(32);
      await store.insertBoard(vtxo(id(70)), { txid: "8f".repeat(32), raw: new Uint8Array([8]), signed: true, isFunding: true });
      await store.recordArkoorSpend([{ id: id(70), spendTxid: "8d".repeat(32) }], [], [vtxo(id(71), "unregistered")], []);
      const results = await Promise.allSettled([
        store.appendMailbox(mb, "arkoor", [{ key: "z", payload: new Uint8Array([3]) }]),
        store.recordArkoorSpend([{ id: id(70), spendTxid: "9d".repeat(32) }], [], [vtxo(id(72), "unregistered")], []),
        store.registerChains([{ id: id(71), bytes: new Uint8Array([5]) }], []),
      ]);
      expect(results.map((r) => r.status)).to.deep.equal(["fulfilled", "rejected", "fulfilled"]);
      expect((results[1] as PromiseRejectedResult).reason).to.be.instanceOf(DoubleSpendError);
      const cp = (results[0] as PromiseFulfilledResult<bigint | null>).value;
      expect((await store.readMailbox(mb, 0n, 10)).map((r) => r.checkpoint)).to.deep.equal([cp]);
      expect((await store.getVtxo(id(71)))?.state).to.equal("spendable");
      expect(await store.getVtxo(id(72))).to.equal(undefined);
    });

    it("a read while a write transaction is open does not see its uncommitted rows", async () => {
      let early: unknown = "not read";
      await store.write(async (sql) => {
        await sql.execute("insert into ark_server_vtxo (vtxo_id, vtxo, state, user_pubkey, policy_type, created_at) values (?, ?, 'spendable', null, 'pubkey', 'now')", [id(80), Buffer.from([1])], "run");
        const read = store.getVtxo(id(80));
        early = await Promise.race([read, new Promise((r) => setTimeout(() => r("pending"), 50))]);
      });
      expect(early === "pending" || early === undefined, `read inside the open transaction gave ${JSON.stringify(early)}`).to.equal(true);
      expect((await store.getVtxo(id(80)))?.state).to.equal("spendable");
    });

    it("keeps bans until their height", async () => {
      await store.insertBoard(vtxo(id(7)), { txid: "ad".repeat(32), raw: new Uint8Array([1]), signed: true, isFunding: true });
      expect(await store.setBan(id(7), 120)).to.equal(true);
      expect(await store.setBan(id(8), 120)).to.equal(false);
      expect(await store.activeBans(119)).to.deep.equal([{ id: id(7), until: 120 }]);
      expect(await store.activeBans(120)).to.deep.equal([]);
    });

    after(async () => {
      if (!schema) return;
      const cleanup = await ArkServerStore.open(location()!, silentLogger);
      await cleanup.destroy();
    });
  });
}

storeSuite("SQLite", () => ({ dialect: "sqlite", path: ":memory:" }));
const fileDir = mkdtempSync(join(tmpdir(), "tender-server-store-"));
let fileN = 0;
after(() => rmSync(fileDir, { recursive: true, force: true }));
storeSuite("an SQLite file (commits synced off the event loop)", () => ({ dialect: "sqlite", path: join(fileDir, `store-${fileN++}.sqlite`) }));
storeSuite("SQLite, spends through MikroORM", () => ({ dialect: "sqlite", path: ":memory:" }), { preparedSpends: false });
const pgSchema = `ark_server_test_${randomBytes(4).toString("hex")}`;
storeSuite("PostgreSQL", () => (process.env.TENDER_TEST_PG_URL ? { dialect: "postgresql", url: process.env.TENDER_TEST_PG_URL, schema: pgSchema } : undefined));

describe("ark server store on an SQLite file: a group commit is answered once the log is on disk", function () {
  this.timeout(30_000);
  let dir: string;
  let store: ArkServerStore;
  let holding = false;
  let gates: (() => void)[] = [];
  const sync: FileSync = () => (holding ? new Promise<void>((r) => gates.push(r)) : Promise.resolve());
  const release = () => {
    const g = gates;
    gates = [];
    g.forEach((r) => r());
  };
  const stateAfter = (p: Promise<unknown>) =>
    Promise.race([p.then(() => "settled"), new Promise((r) => setTimeout(() => r("pending"), 30))]);
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "tender-server-store-sync-"));
    store = await ArkServerStore.open({ dialect: "sqlite", path: join(dir, "server.sqlite") }, silentLogger, { fileSync: sync });
  });
  afterEach(async () => {
    holding = false;
    release();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the next group is written while the previous one's log is synced; each spend resolves once its own group is on disk", async () => {
    const fundingTx = { txid: "aa".repeat(32), raw: new Uint8Array([9]), signed: true, isFunding: true };
    await store.insertBoard(vtxo(id(1)), fundingTx);
    await store.insertBoard(vtxo(id(2)), fundingTx);
    const logSize = () => statSync(join(dir, "server.sqlite-wal")).size;
    holding = true;
    const first = store.recordArkoorSpend([{ id: id(1), spendTxid: "bb".repeat(32) }], [], [vtxo(id(3), "unregistered")], []);
    expect(await stateAfter(first)).to.equal("pending");
    expect(gates.length, "the first group's sync is held").to.equal(1);
    const before = logSize();
    const second = store.recordArkoorSpend([{ id: id(2), spendTxid: "cc".repeat(32) }], [], [vtxo(id(4), "unregistered")], []);
    expect(await stateAfter(second)).to.equal("pending");
    expect(logSize(), "the second group is in the log while the first one's sync runs").to.be.greaterThan(before);
    release(); // the first group's sync: it began before the second group was written
    await first;
    expect(await stateAfter(second), "the second spend, while its own sync is held").to.equal("pending");
    expect(gates.length, "the second group's sync is under way").to.equal(1);
    holding = false;
    release();
    await second;
    expect((await store.getVtxo(id(2)))?.state).to.equal("spent");
  });

  it("a double spend refused on a spend still syncing is answered once that spend is on disk", async () => {
    await store.insertBoard(vtxo(id(1)), { txid: "aa".repeat(32), raw: new Uint8Array([9]), signed: true, isFunding: true });
    holding = true;
    const first = store.recordArkoorSpend([{ id: id(1), spendTxid: "bb".repeat(32) }], [], [vtxo(id(2), "unregistered")], []);
    expect(await stateAfter(first)).to.equal("pending");
    const second = store.recordArkoorSpend([{ id: id(1), spendTxid: "cc".repeat(32) }], [], [vtxo(id(3), "unregistered")], []);
    const refused = second.then(() => "accepted", (e: unknown) => (e instanceof DoubleSpendError ? "refused" : String(e)));
    expect(await stateAfter(refused), "the refusal, while the spend it rests on is not on disk").to.equal("pending");
    holding = false;
    release();
    await first;
    expect(await refused).to.equal("refused");
  });

  it("a spend resolves only after the sync, and a read meanwhile does not see it", async () => {
    await store.insertBoard(vtxo(id(1)), { txid: "aa".repeat(32), raw: new Uint8Array([9]), signed: true, isFunding: true });
    holding = true;
    const spend = store.recordArkoorSpend([{ id: id(1), spendTxid: "bb".repeat(32) }], [], [vtxo(id(2), "unregistered")], []);
    expect(await stateAfter(spend), "the spend before its commit is synced").to.equal("pending");
    expect(gates.length, "a sync is under way").to.equal(1);
    const read = store.getVtxo(id(1));
    expect(await stateAfter(read), "a read while the sync runs").to.equal("pending");
    holding = false;
    release();
    await spend;
    expect((await read)?.state, "the read, once the spend is on disk").to.equal("spent");
  });
});

describe("ark server store upgrade to ark_server_0006 (the mailbox checkpoint index)", function () {
  this.timeout(30_000);
  const mb = "02" + "55".repeat(32);

  /** A database of the previous schema holding two mailbox entries, opened by today's store. */
  async function upgrade(loc: DatabaseLocation): Promise<void> {
    const old = new Database({ entities: [], migrations: arkServerMigrations().slice(0, -1) }, silentLogger);
    await old.open(loc);
    const table = loc.dialect === "postgresql" ? `"${loc.schema}".ark_server_mailbox` : "ark_server_mailbox";
    for (const [k, cp] of [[1, 7], [2, 9]] as const) {
      await old.em().getConnection().execute(`insert into ${table} (mailbox_id, checkpoint, kind, item_key, payload) values (?, ?, ?, ?, ?)`, [mb, cp, "arkoor", `k${k}`, Buffer.from([k])]);
    }
    expect(await old.appliedMigrations()).to.not.include("ark_server_0006_mailbox_checkpoint");
    await old.close();
    const store = await ArkServerStore.open(loc, silentLogger);
    try {
      await checkpointIndexed(store, loc);
      // the next post continues after the highest checkpoint stored before the upgrade
      expect(await store.appendMailbox(mb, "recovery", [{ key: "x", payload: new Uint8Array([3]) }])).to.equal(10n);
      expect((await store.readMailbox(mb, 0n, 10)).map((r) => [r.checkpoint, [...r.payload]])).to.deep.equal([[7n, [1]], [9n, [2]], [10n, [3]]]);
    } finally {
      if (loc.dialect === "postgresql") await store.destroy();
      else await store.close();
    }
  }

  it("on an SQLite file: the index is added, the mailbox entries stay, checkpoints go on from the highest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tender-server-store-upgrade-"));
    try {
      await upgrade({ dialect: "sqlite", path: join(dir, "server.sqlite") });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("on PostgreSQL: the same", async function () {
    const url = process.env.TENDER_TEST_PG_URL;
    if (!url) {
      console.log("    PostgreSQL upgrade case skipped: TENDER_TEST_PG_URL is not set (.ci/run starts PostgreSQL and sets it)");
      return this.skip();
    }
    await upgrade({ dialect: "postgresql", url, schema: `ark_server_upgrade_${randomBytes(4).toString("hex")}` });
  });
});
