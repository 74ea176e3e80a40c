import { expect } from "chai";
import {
  createMailboxAuthorization,
  encodeMailboxAuthorization,
  encodeOutPoint,
  encodeVtxo,
  formatOutPoint,
  signSchnorr,
  type Vtxo,
} from "@tender/ark-protocol";
import { NotFoundError } from "../../src/ark-server/server-errors.js";
import type { MailboxMessageData } from "../../src/ark-server/mailbox-service.js";
import { newKey, WalletKit, type KeyPair } from "./wallet-kit.js";
import { rejection, serverFixture, type ServerFixture } from "./fixture.js";

describe("ark server: mailbox (checkpoints, authorizations, recovery ids)", function () {
  this.timeout(60_000);
  let f: ServerFixture;
  let alice: WalletKit;
  let bob: WalletKit;
  beforeEach(async () => {
    f = await serverFixture({ overrides: { maxReadMailboxItems: 2 } });
    alice = new WalletKit(f.api, f.node);
    bob = new WalletKit(f.api, f.node);
  });
  afterEach(() => f.close());

  /** Alice pays bob `amount`; returns bob's key and VTXOs. */
  async function pay(amount: bigint, coin?: Vtxo): Promise<{ key: KeyPair; vtxos: Vtxo[]; change: Vtxo[] }> {
    const key = bob.key();
    const input = coin ?? (await alice.board(50_000n));
    const { sent, change } = await alice.send([input], amount, key.pk);
    return { key, vtxos: sent, change };
  }

  it("delivers an arkoor payment to the blinded mailbox and serves it with an authorization", async () => {
    const { key, vtxos } = await pay(10_000n);
    await f.server.postArkoorMessage(await bob.blindedMailboxId(key), vtxos.map((v) => encodeVtxo(v)));
    const page = await f.server.readMailbox(bob.mailbox.pk, bob.authorization(), 0n);
    expect(page.haveMore).to.equal(false);
    expect(page.messages).to.have.length(1);
    const m = page.messages[0]!;
    expect(m.kind).to.equal("arkoor");
    expect(m.kind === "arkoor" && m.vtxos).to.deep.equal(vtxos.map((v) => encodeVtxo(v)));
    expect((await f.server.readMailbox(bob.mailbox.pk, bob.authorization(), m.checkpoint)).messages).to.deep.equal([]);
  });

  it("ignores a post of VTXOs already in the mailbox", async () => {
    const { key, vtxos } = await pay(10_000n);
    const blinded = await bob.blindedMailboxId(key);
    await f.server.postArkoorMessage(blinded, vtxos.map((v) => encodeVtxo(v)));
    await f.server.postArkoorMessage(blinded, vtxos.map((v) => encodeVtxo(v)));
    expect((await f.server.readMailbox(bob.mailbox.pk, bob.authorization(), 0n)).messages).to.have.length(1);
  });

  it("pages with have_more and resumes after a checkpoint", async () => {
    let coin: Vtxo | undefined;
    for (let i = 0; i < 3; i++) {
      const { key, vtxos, change } = await pay(5_000n, coin);
      coin = change[0];
      await f.server.postArkoorMessage(await bob.blindedMailboxId(key), vtxos.map((v) => encodeVtxo(v)));
    }
    const first = await f.server.readMailbox(bob.mailbox.pk, bob.authorization(), 0n);
    expect(first.messages).to.have.length(2);
    expect(first.haveMore).to.equal(true);
    const cps = first.messages.map((m) => m.checkpoint);
    expect(cps[1]! > cps[0]!).to.equal(true);
    const rest = await f.server.readMailbox(bob.mailbox.pk, bob.authorization(), cps[1]!);
    expect(rest.messages).to.have.length(1);
    expect(rest.haveMore).to.equal(false);
    expect(rest.messages[0]!.checkpoint > cps[1]!).to.equal(true);
  });

  it("subscription replays stored messages first, then streams new ones, and resumes from a checkpoint", async () => {
    const one = await pay(5_000n);
    await f.server.postArkoorMessage(await bob.blindedMailboxId(one.key), one.vtxos.map((v) => encodeVtxo(v)));
    const abort = new AbortController();
    const stream = f.server.subscribeMailbox(bob.mailbox.pk, bob.authorization(), 0n, abort.signal);
    const got: MailboxMessageData[] = [];
    const first = await stream.next();
    got.push(first.value as MailboxMessageData);
    const pending = stream.next();
    const two = await pay(6_000n, one.change[0]);
    await f.server.postArkoorMessage(await bob.blindedMailboxId(two.key), two.vtxos.map((v) => encodeVtxo(v)));
    got.push((await pending).value as MailboxMessageData);
    abort.abort();
    expect((await stream.next()).done).to.equal(true);
    expect(got.map((m) => m.kind === "arkoor" && m.vtxos[0])).to.deep.equal([encodeVtxo(one.vtxos[0]!), encodeVtxo(two.vtxos[0]!)]);
    // resume: a new subscription from the first checkpoint yields only the second message
    const again = new AbortController();
    const resumed = f.server.subscribeMailbox(bob.mailbox.pk, bob.authorization(), got[0]!.checkpoint, again.signal);
    expect(((await resumed.next()).value as MailboxMessageData).checkpoint).to.equal(got[1]!.checkpoint);
    again.abort();
    await resumed.next();
  });

  it("requires a valid, matching, unexpired authorization to read", async () => {
    const bad = async (auth: Uint8Array | undefined) => (await rejection(f.server.readMailbox(bob.mailbox.pk, auth, 0n))).message;
    expect(await bad(undefined)).to.equal("bad user input: mailbox authorization required");
    expect(await bad(bob.authorization(60, newKey()))).to.equal("bad user input: authorization doesn't match mailbox id");
    expect(await bad(bob.authorization(-6))).to.equal("bad user input: mailbox authorization expired");
    await f.server.readMailbox(bob.mailbox.pk, bob.authorization(-4), 0n); // within the 5 s leeway
    const auth = createMailboxAuthorization(bob.mailbox.sk, BigInt(Math.floor(Date.now() / 1000) + 60));
    const forged = encodeMailboxAuthorization({ ...auth, signature: signSchnorr(new Uint8Array(32), bob.mailbox.sk) });
    expect(await bad(forged)).to.equal("bad user input: invalid mailbox authorization signature");
    const sub = f.server.subscribeMailbox(bob.mailbox.pk, undefined, 0n);
    expect((await rejection(sub.next())).message).to.equal("bad user input: mailbox authorization required");
  });

  it("refuses posts that are empty, too large, for unknown VTXOs, or mixing owners", async () => {
    const { key, vtxos } = await pay(10_000n);
    const blinded = await bob.blindedMailboxId(key);
    expect((await rejection(f.server.postArkoorMessage(blinded, []))).message).to.equal("bad user input: no vtxos provided");
    const many = Array.from({ length: 101 }, () => new Uint8Array(1));
    expect((await rejection(f.server.postArkoorMessage(blinded, many))).message).to.equal("bad user input: too many vtxos, max is 100");
    const stranger = await alice.cosignBoard(await alice.prepareBoard(30_000n));
    const err = await rejection(f.server.postArkoorMessage(await alice.blindedMailboxId({ sk: alice.secretFor(stranger.policy.userPubkey), pk: stranger.policy.userPubkey }), [encodeVtxo(stranger)]));
    expect(err).to.be.instanceOf(NotFoundError);
    const other = await pay(5_000n);
    expect((await rejection(f.server.postArkoorMessage(blinded, [encodeVtxo(vtxos[0]!), encodeVtxo(other.vtxos[0]!)]))).message).to.equal(
      "bad user input: all vtxos should share vtxo pubkey when mailbox is provided",
    );
  });

  it("refuses a post whose VTXO claims another owner than the one the server cosigned for", async () => {
    const { vtxos } = await pay(10_000n);
    const thief = bob.key();
    // same id (point), owner key swapped: the stored VTXO says otherwise
    const forged = { ...vtxos[0]!, policy: { type: "pubkey" as const, userPubkey: thief.pk } };
    const err = await rejection(f.server.postArkoorMessage(await bob.blindedMailboxId(thief), [encodeVtxo(forged)]));
    expect(err.message).to.equal(`bad user input: vtxo ${formatOutPoint(vtxos[0]!.point)} doesn't belong to the provided vtxo pubkey`);
  });

  it("stores recovery ids (1..20, deduplicated) under the recovery mailbox", async () => {
    const rec = newKey();
    const ids = Array.from({ length: 3 }, (_, i) => encodeOutPoint({ txid: new Uint8Array(32).fill(i + 1), vout: i }));
    await f.server.postRecoveryVtxoIds(rec.pk, ids, bob.authorization(60, rec));
    await f.server.postRecoveryVtxoIds(rec.pk, ids.slice(0, 2), undefined);
    const page = await f.server.readMailbox(rec.pk, bob.authorization(60, rec), 0n);
    expect(page.messages).to.have.length(1);
    expect(page.messages[0]!.kind === "recovery" && page.messages[0]!.vtxoIds).to.deep.equal(ids);
    expect((await rejection(f.server.postRecoveryVtxoIds(rec.pk, [], undefined))).message).to.equal("bad user input: no VTXO IDs provided");
    const tooMany = Array.from({ length: 21 }, (_, i) => encodeOutPoint({ txid: new Uint8Array(32).fill(9), vout: i }));
    expect((await rejection(f.server.postRecoveryVtxoIds(rec.pk, tooMany, undefined))).message).to.equal("bad user input: too many VTXOs, max is 20");
    expect((await rejection(f.server.postRecoveryVtxoIds(rec.pk, ids, bob.authorization(60)))).message).to.equal("bad user input: authorization doesn't match mailbox id");
  });

  it("never exposes a higher checkpoint before a lower one under concurrent posts", async () => {
    const rec = newKey();
    const posts = Array.from({ length: 10 }, (_, i) => f.server.postRecoveryVtxoIds(rec.pk, [encodeOutPoint({ txid: new Uint8Array(32).fill(i + 1), vout: 0 })], undefined));
    const seen: bigint[] = [];
    let cursor = 0n;
    while (seen.length < 10) {
      const page = await f.server.readMailbox(rec.pk, bob.authorization(60, rec), cursor);
      for (const m of page.messages) {
        seen.push(m.checkpoint);
        cursor = m.checkpoint;
      }
      if (page.messages.length === 0) await Promise.race([...posts, new Promise((r) => setTimeout(r, 5))]);
    }
    await Promise.all(posts);
    expect(seen).to.deep.equal([...seen].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(seen).size).to.equal(10);
  });
});
