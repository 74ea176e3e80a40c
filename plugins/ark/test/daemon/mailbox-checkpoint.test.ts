import { expect } from "chai";
import { Database, silentLogger, type DatabaseLocation } from "@tender/core";
import { readMailboxCheckpoint } from "../../src/daemon/connection/server-pins.js";
import { MailboxCheckpointStore } from "../../src/daemon/mailbox/mailbox-checkpoint.js";
import { ARK_ENTITIES, ARK_MIGRATIONS } from "../../src/daemon/persistence/entities.js";
import { memoryDb } from "./fixtures.js";

/** The checkpoint's plain SQL runs on both dialects: SQLite always, PostgreSQL when `TENDER_TEST_PG_URL` is set. */
const dialects: [string, () => Promise<Database> | undefined][] = [
  ["SQLite", () => memoryDb()],
  ["PostgreSQL", () => {
    const url = process.env.TENDER_TEST_PG_URL;
    if (!url) return undefined;
    const loc: DatabaseLocation = { dialect: "postgresql", url, schema: `ark_checkpoint_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}` };
    const db = new Database({ entities: ARK_ENTITIES, migrations: ARK_MIGRATIONS }, silentLogger);
    return db.open(loc).then(() => db);
  }],
];

for (const [dialect, open] of dialects) describe(`mailbox checkpoint store on ${dialect}`, () => {
  let db: Database | undefined;
  beforeEach(async function () {
    const opening = open();
    if (!opening) {
      this.skip();
      return;
    }
    db = await opening;
  });
  afterEach(async () => {
    if (!db) return;
    if (dialect === "PostgreSQL") await db.destroy();
    else await db.close();
    db = undefined;
  });

  it("starts at 0, moves forward only, and writes the row the entity reads", async () => {
    const store = new MailboxCheckpointStore(db!);
    expect(await store.read()).to.equal(0n);
    await store.advance(7n);
    await store.advance(3n);
    expect(await store.read()).to.equal(7n);
    expect(await readMailboxCheckpoint(db!)).to.equal(7n);
    await store.advance(2n ** 40n);
    expect(await store.read()).to.equal(2n ** 40n);
  });

  it("joins the transaction of the moment: rolled back with it", async () => {
    const store = new MailboxCheckpointStore(db!);
    await db!.transaction(async () => {
      await store.advance(5n);
      expect(await store.read()).to.equal(5n);
      throw new Error("rolled back");
    }).catch(() => undefined);
    expect(await store.read()).to.equal(0n);
  });
});
