import { expect } from "chai";
import { silentLogger, type Database } from "@tender/core";
import type { ArkServer, MailboxMessage, MailboxReadRequest } from "@tender/ark-protocol/server";
import { ArkKeys } from "../../src/daemon/keys/ark-keys.js";
import { KeptMailboxMessages } from "../../src/daemon/mailbox/kept-messages.js";
import { MailboxHandlers } from "../../src/daemon/mailbox/mailbox-handlers.js";
import { MailboxSync } from "../../src/daemon/mailbox/mailbox-sync.js";
import { readMailboxCheckpoint, writeMailboxCheckpoint } from "../../src/daemon/connection/server-pins.js";
import { MNEMONIC, masterOf, memoryDb } from "./fixtures.js";

const bytes = (...b: number[]) => new Uint8Array(b);

/** A mailbox server holding `messages`; `ReadMailbox` answers those after the request's checkpoint. */
function mailboxServer(messages: MailboxMessage[]): { server: ArkServer; reads: bigint[] } {
  const reads: bigint[] = [];
  const server = {
    readMailbox: async (r: MailboxReadRequest) => {
      reads.push(r.checkpoint);
      return { messages: messages.filter((m) => m.checkpoint > r.checkpoint), haveMore: false };
    },
  } as unknown as ArkServer;
  return { server, reads };
}

describe("mailbox message handlers: a kind no handler claims is kept, then handed over", () => {
  let db: Database;
  let keys: ArkKeys;
  beforeEach(async () => {
    db = await memoryDb();
    keys = await ArkKeys.load(db, masterOf(MNEMONIC));
  });
  afterEach(() => db.close());

  const arkoor: MailboxMessage = { kind: "arkoor", checkpoint: 1n, vtxos: [bytes(1)] };
  const recovery: MailboxMessage = { kind: "recovery-vtxo-ids", checkpoint: 2n, vtxoIds: [bytes(2, 2), bytes(3, 3)] };
  const unknown: MailboxMessage = { kind: "unknown", checkpoint: 3n, bytes: bytes(0xca, 0xfe) };
  const payment: MailboxMessage = { kind: "incoming-lightning-payment", checkpoint: 4n, paymentHash: bytes(4), amountMsat: 21_000n };

  it("keeps messages of unclaimed kinds across a sync (and a reload), and hands them to a handler registered later, once", async () => {
    const { server } = mailboxServer([arkoor, recovery, unknown]);
    const handlers = new MailboxHandlers();
    const handled: MailboxMessage[] = [];
    handlers.register("arkoor", "ark", async (m) => void handled.push(m));
    const consumer = new MailboxSync(server, keys, db, silentLogger, handlers, new KeptMailboxMessages(db));
    expect(await consumer.sync()).to.equal(3n);
    expect(handled).to.deep.equal([arkoor]);
    expect((await new KeptMailboxMessages(db).list()).map((k) => k.message)).to.deep.equal([recovery, unknown]);

    // a daemon started with a plugin that handles recovery ids: same database, a new consumer
    const later = new MailboxHandlers();
    later.register("arkoor", "ark", async (m) => void handled.push(m));
    const recovered: MailboxMessage[] = [];
    later.register("recovery-vtxo-ids", "recovery", async (m) => void recovered.push(m));
    const restarted = new MailboxSync(server, keys, db, silentLogger, later, new KeptMailboxMessages(db));
    await restarted.handOverKept();
    expect(recovered).to.deep.equal([recovery]);
    expect((await new KeptMailboxMessages(db).list()).map((k) => k.message)).to.deep.equal([unknown]);
    expect(await restarted.sync()).to.equal(3n);
    expect(recovered).to.deep.equal([recovery]);
    expect(handled).to.deep.equal([arkoor]);
  });

  it("a handler that throws stops the consumer without advancing; the message is handled on a later sync", async () => {
    const { server, reads } = mailboxServer([arkoor, payment]);
    const handlers = new MailboxHandlers();
    let failures = 1;
    const paid: MailboxMessage[] = [];
    handlers.register("arkoor", "ark", async () => {
      if (failures-- > 0) throw new Error("server unreachable");
    });
    handlers.register("incoming-lightning-payment", "lightning", async (m) => void paid.push(m));
    const kept = new KeptMailboxMessages(db);
    const consumer = new MailboxSync(server, keys, db, silentLogger, handlers, kept);
    expect(await consumer.sync()).to.equal(0n);
    expect(paid).to.deep.equal([]);
    expect(await kept.list()).to.deep.equal([]);
    expect(await consumer.sync()).to.equal(4n);
    expect(paid).to.deep.equal([payment]);
    expect(reads).to.deep.equal([0n, 0n]);
  });

  it("a kept message whose handler throws stays kept, and later ones of its kind wait behind it", async () => {
    const second: MailboxMessage = { kind: "recovery-vtxo-ids", checkpoint: 5n, vtxoIds: [bytes(5)] };
    const kept = new KeptMailboxMessages(db);
    await new MailboxSync(mailboxServer([recovery, second]).server, keys, db, silentLogger, new MailboxHandlers(), kept).sync();
    const handlers = new MailboxHandlers();
    const seen: bigint[] = [];
    let fail = true;
    handlers.register("recovery-vtxo-ids", "recovery", async (m) => {
      seen.push(m.checkpoint);
      if (fail) throw new Error("not yet");
    });
    const consumer = new MailboxSync(mailboxServer([recovery, second]).server, keys, db, silentLogger, handlers, kept);
    await consumer.handOverKept();
    expect(seen).to.deep.equal([2n]);
    expect((await kept.list()).map((k) => k.message.checkpoint)).to.deep.equal([2n, 5n]);
    fail = false;
    await consumer.handOverKept();
    expect(seen).to.deep.equal([2n, 2n, 5n]);
    expect(await kept.list()).to.deep.equal([]);
  });

  it("a handler that settles its message in its own transaction commits the checkpoint there: rolled back with it, and not written again after the handler", async () => {
    const { server, reads } = mailboxServer([arkoor, payment]);
    const handlers = new MailboxHandlers();
    let rollBack = true;
    const seenInCommit: bigint[] = [];
    handlers.register("arkoor", "ark", async (_m, ack) => {
      await db.transaction(async () => {
        await ack.settleInTransaction();
        if (rollBack) throw new Error("disk full");
      });
      seenInCommit.push(await readMailboxCheckpoint(db));
    });
    handlers.register("incoming-lightning-payment", "lightning", async () => undefined);
    const consumer = new MailboxSync(server, keys, db, silentLogger, handlers, new KeptMailboxMessages(db));
    expect(await consumer.sync()).to.equal(0n);
    expect(await readMailboxCheckpoint(db)).to.equal(0n);
    rollBack = false;
    expect(await consumer.sync()).to.equal(4n);
    // the checkpoint was past the arkoor message as soon as the handler's transaction committed
    expect(seenInCommit).to.deep.equal([1n]);
    expect(reads).to.deep.equal([0n, 0n]);
  });

  it("a kept message settled in its handler's transaction is forgotten in that commit; rolled back, it stays kept", async () => {
    const kept = new KeptMailboxMessages(db);
    await new MailboxSync(mailboxServer([recovery]).server, keys, db, silentLogger, new MailboxHandlers(), kept).sync();
    const handlers = new MailboxHandlers();
    let rollBack = true;
    const keptInCommit: number[] = [];
    handlers.register("recovery-vtxo-ids", "recovery", async (_m, ack) => {
      await db.transaction(async () => {
        await ack.settleInTransaction();
        if (rollBack) throw new Error("disk full");
      });
      keptInCommit.push((await kept.list()).length);
    });
    const consumer = new MailboxSync(mailboxServer([recovery]).server, keys, db, silentLogger, handlers, kept);
    await consumer.handOverKept();
    expect((await kept.list()).map((k) => k.message)).to.deep.equal([recovery]);
    rollBack = false;
    await consumer.handOverKept();
    expect(keptInCommit).to.deep.equal([0]);
    expect(await kept.list()).to.deep.equal([]);
  });

  it("reads the checkpoint again after exclusive work, which may have moved it (a recovery from the seed)", async () => {
    const { server, reads } = mailboxServer([arkoor, recovery, payment]);
    const handlers = new MailboxHandlers();
    const handled: bigint[] = [];
    for (const kind of ["arkoor", "recovery-vtxo-ids", "incoming-lightning-payment"] as const) handlers.register(kind, "test", async (m) => void handled.push(m.checkpoint));
    const consumer = new MailboxSync(server, keys, db, silentLogger, handlers, new KeptMailboxMessages(db));
    expect(await consumer.checkpoint()).to.equal(0n);
    await consumer.exclusive(() => writeMailboxCheckpoint(db, 2n));
    expect(await consumer.sync()).to.equal(4n);
    expect(reads).to.deep.equal([2n]);
    expect(handled).to.deep.equal([4n]);
  });

  it("refuses a second handler for one kind, naming both plugins", () => {
    const handlers = new MailboxHandlers();
    handlers.register("arkoor", "ark", async () => undefined);
    expect(() => handlers.register("arkoor", "other", async () => undefined)).to.throw("mailbox messages of kind arkoor are handled by both plugin ark and plugin other");
  });
});
