import { expect } from "chai";
import { ArkServerClient, ArkServerNotFoundError, ArkServerUnavailableError, type MailboxMessage } from "@tender/ark-grpc";
import {
  decodeTx, decodeVtxo, displayHex, encodeOutPoint, encodeVtxo, formatOutPoint, fromHex, toHex, validateVtxo, vtxoId, vtxoIdString, type Vtxo,
} from "@tender/ark-protocol";
import { arkReadyFields, type DevnetWithArk } from "../../src/ark-server/devnet-with-ark.js";
import { DevnetUnderTest, controlCall, okBody, type ControlAnswer } from "./devnet-under-test.js";
import { grpcApi } from "./grpc-api.js";
import { rejection } from "./fixture.js";
import { pubkeyPolicy, WalletKit } from "./wallet-kit.js";

describe("devnet fault proxy in front of the Ark server (raw forwarding, faults armed over /devnet/ark/faults)", function () {
  this.timeout(60_000);
  let t: DevnetUnderTest;
  let devnet: DevnetWithArk;

  const control = (method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<ControlAnswer> =>
    controlCall(`${devnet.arkControlUrl}/faults${path}`, method, body);
  const arm = async (fault: Record<string, unknown>) => okBody<{ id: number; hits: number }>(await control("POST", "", fault));
  const client = (url: string): ArkServerClient => t.client(url);
  const proxied = () => client(devnet.arkProxyUrl);
  const direct = () => client(devnet.arkUrl);
  const serverState = async (v: Vtxo) => (await devnet.ark.server.ctx.store.getVtxo(vtxoIdString(v)))?.state;

  /** An arkoor payment through the proxy whose outputs are cosigned but not registered yet. */
  const unregisteredPayment = async (kit: WalletKit): Promise<Vtxo[]> => {
    const board = await kit.board(60_000n);
    const { pkg, nonces, parts } = kit.prepareArkoor([board], [{ amount: 25_000n, policy: pubkeyPolicy(kit.key().pk) }, { amount: 35_000n, policy: pubkeyPolicy(kit.key().pk) }]);
    return kit.finishArkoor(pkg, nonces, await kit.api.requestArkoorCosign(parts));
  };

  beforeEach(async () => {
    t = await DevnetUnderTest.start("ark-fault-proxy");
    devnet = t.devnet;
  });
  afterEach(() => t.stop());

  it("forwards every call unchanged while no fault is armed: answers, errors, and the mailbox stream", async () => {
    expect(devnet.arkProxyUrl).to.not.equal(devnet.arkUrl);
    expect(arkReadyFields(devnet).ark_fault_proxy).to.equal(devnet.arkProxyUrl);
    const p = proxied();
    expect(await p.ark("getArkInfo", {})).to.deep.equal(await direct().ark("getArkInfo", {}));
    const alice = new WalletKit(grpcApi(p), devnet.node);
    const bob = new WalletKit(grpcApi(p), devnet.node);
    const board = await alice.board(50_000n);
    expect((await p.ark("getVtxo", { vtxoId: vtxoId(board) })).vtxo).to.deep.equal(encodeVtxo(board));
    // the server's refusal reaches the client as the server gave it
    const unknown = encodeOutPoint({ txid: new Uint8Array(32).fill(7), vout: 1 });
    expect(await rejection(p.ark("getVtxo", { vtxoId: unknown }))).to.be.instanceOf(ArkServerNotFoundError);

    // a payment delivered to Bob's mailbox arrives on his subscription through the proxy
    const bobKey = bob.key();
    const { sent } = await alice.send([board], 20_000n, bobKey.pk);
    const got: MailboxMessage[] = [];
    const sub = p.subscribeMailbox({ mailboxId: bob.mailbox.pk, checkpoint: 0n, authorization: () => bob.authorization(), onMessage: async (m) => void got.push(m) });
    try {
      await alice.api.postArkoorMessage(await bob.blindedMailboxId(bobKey), sent.map((v) => encodeVtxo(v)));
      const until = Date.now() + 10_000;
      while (got.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(got).to.have.length(1);
      expect(got[0]!.message?.$case).to.equal("arkoor");
      const vtxos = got[0]!.message?.$case === "arkoor" ? got[0]!.message.value.vtxos : [];
      expect(vtxos.map((b) => vtxoIdString(decodeVtxo(b)))).to.deep.equal(sent.map(vtxoIdString));
    } finally {
      await sub.stop();
    }
    expect((await control("GET", "")).body).to.deep.equal({ proxy_url: devnet.arkProxyUrl, faults: [] });
  });

  it("drop answers UNAVAILABLE without reaching the server, or an empty success with answer ok; a vtxo filter picks the calls; disarming restores forwarding", async () => {
    const p = proxied();
    const kit = new WalletKit(grpcApi(p), devnet.node);
    const post = () => p.mailbox("postRecoveryVtxoIds", { mailboxId: kit.mailbox.pk, vtxoIds: [encodeOutPoint({ txid: new Uint8Array(32).fill(3), vout: 0 })], authorization: kit.authorization() });
    const read = async () => (await direct().mailbox("readMailbox", { mailboxId: kit.mailbox.pk, authorization: kit.authorization(), checkpoint: 0n })).messages;

    const dropped = await arm({ kind: "drop", method: "PostRecoveryVtxoIds" });
    expect(dropped).to.deep.equal({ kind: "drop", method: "PostRecoveryVtxoIds", id: dropped.id, hits: 0 });
    const e = await rejection(post());
    expect(e).to.be.instanceOf(ArkServerUnavailableError);
    expect(e.message).to.contain("PostRecoveryVtxoIds dropped by the fault proxy");
    expect(await read()).to.deep.equal([]);

    // fake success of a registration: the client sees success, the server never saw the chains
    const [first, second] = await unregisteredPayment(kit);
    const fake = await arm({ kind: "drop", method: "/bark_server.ArkService/RegisterVtxoTransactions", vtxo: vtxoIdString(first!), answer: "ok" });
    await p.ark("registerVtxoTransactions", { vtxos: [encodeVtxo(first!)] });
    expect(await serverState(first!)).to.equal("unregistered");
    // a request not naming the filtered VTXO is forwarded
    await p.ark("registerVtxoTransactions", { vtxos: [encodeVtxo(second!)] });
    expect(await serverState(second!)).to.equal("spendable");

    const listed = (await control("GET", "")).body as { faults: { id: number; hits: number }[] };
    expect(listed.faults.map((f) => [f.id, f.hits])).to.deep.equal([[dropped.id, 1], [fake.id, 1]]);
    expect(await control("DELETE", `/${dropped.id}`)).to.deep.equal({ status: 200, body: { disarmed: dropped.id } });
    await post();
    expect((await read()).map((m) => m.message?.$case)).to.deep.equal(["recoveryVtxoIds"]);
    expect((await control("DELETE", "")).body).to.deep.equal({ proxy_url: devnet.arkProxyUrl, faults: [] });
    await p.ark("registerVtxoTransactions", { vtxos: [encodeVtxo(first!)] });
    expect(await serverState(first!)).to.equal("spendable");
  });

  it("refuse answers INVALID_ARGUMENT for requests naming its VTXO, even among others; delay holds a call back", async () => {
    const p = proxied();
    const kit = new WalletKit(grpcApi(p), devnet.node);
    const [poison, healthy] = await unregisteredPayment(kit);
    await arm({ kind: "refuse", method: "RegisterVtxoTransactions", vtxo: vtxoIdString(poison!) });
    const refused = await rejection(p.ark("registerVtxoTransactions", { vtxos: [encodeVtxo(healthy!), encodeVtxo(poison!)] }));
    expect(refused.message).to.contain("RegisterVtxoTransactions refused by the fault proxy");
    expect(await serverState(healthy!)).to.equal("unregistered");
    await p.ark("registerVtxoTransactions", { vtxos: [encodeVtxo(healthy!)] });
    expect([await serverState(healthy!), await serverState(poison!)]).to.deep.equal(["spendable", "unregistered"]);

    await arm({ kind: "delay", method: "GetArkInfo", ms: 400 });
    const started = Date.now();
    await p.ark("getArkInfo", {});
    expect(Date.now() - started).to.be.at.least(390);
  });

  it("inject-recovery-ids adds a recovery-ids message at the read's checkpoint to the chosen mailbox's reads only", async () => {
    const p = proxied();
    const kit = new WalletKit(grpcApi(p), devnet.node);
    const other = new WalletKit(grpcApi(p), devnet.node);
    const own = encodeOutPoint({ txid: new Uint8Array(32).fill(9), vout: 2 });
    await p.mailbox("postRecoveryVtxoIds", { mailboxId: kit.mailbox.pk, vtxoIds: [own], authorization: kit.authorization() });
    const foreign = formatOutPoint({ txid: new Uint8Array(32).fill(5), vout: 1 });
    await arm({ kind: "inject-recovery-ids", mailbox: toHex(kit.mailbox.pk), vtxo_ids: [foreign], raw_ids_hex: ["deadbeef"] });

    const page = await p.mailbox("readMailbox", { mailboxId: kit.mailbox.pk, authorization: kit.authorization(), checkpoint: 0n });
    expect(page.messages).to.have.length(2);
    expect(page.messages[0]).to.deep.equal({
      checkpoint: 0n, message: { $case: "recoveryVtxoIds", value: { vtxoIds: [encodeOutPoint({ txid: new Uint8Array(32).fill(5), vout: 1 }), fromHex("deadbeef")] } },
    });
    expect(page.messages[1]!.message).to.deep.equal({ $case: "recoveryVtxoIds", value: { vtxoIds: [own] } });
    const later = await p.mailbox("readMailbox", { mailboxId: kit.mailbox.pk, authorization: kit.authorization(), checkpoint: page.messages[1]!.checkpoint });
    expect(later.messages.map((m) => m.checkpoint)).to.deep.equal([page.messages[1]!.checkpoint]);
    // the server itself holds only the real message, and another mailbox is left alone
    expect((await direct().mailbox("readMailbox", { mailboxId: kit.mailbox.pk, authorization: kit.authorization(), checkpoint: 0n })).messages).to.have.length(1);
    expect((await p.mailbox("readMailbox", { mailboxId: other.mailbox.pk, authorization: other.authorization(), checkpoint: 0n })).messages).to.deep.equal([]);
  });

  it("invalid-signature answers GetVtxo of its VTXO with the same id and a signature that no longer verifies", async () => {
    const p = proxied();
    const kit = new WalletKit(grpcApi(p), devnet.node);
    const board = await kit.board(40_000n);
    const { sent } = await kit.send([board], 15_000n, kit.key().pk);
    const target = sent[0]!;
    await arm({ kind: "invalid-signature", vtxo: vtxoIdString(target) });
    const anchor = decodeTx(devnet.node.getTransaction(displayHex(target.anchorPoint.txid))!.raw);
    const answered = decodeVtxo((await p.ark("getVtxo", { vtxoId: vtxoId(target) })).vtxo);
    expect(vtxoIdString(answered)).to.equal(vtxoIdString(target));
    expect(() => validateVtxo(answered, anchor)).to.throw(/invalid .* signature/);
    const real = decodeVtxo((await direct().ark("getVtxo", { vtxoId: vtxoId(target) })).vtxo);
    expect(() => validateVtxo(real, anchor)).to.not.throw();
    // another VTXO is answered unchanged
    expect((await p.ark("getVtxo", { vtxoId: vtxoId(board) })).vtxo).to.deep.equal(encodeVtxo(board));
  });

  it("refuses bad faults with 400 and a reason, and an unknown fault id with 404, arming nothing", async () => {
    const bad: [unknown, RegExp][] = [
      [{ kind: "explode" }, /^kind must be one of/],
      [{ kind: "drop" }, /^method is required/],
      [{ kind: "drop", method: "NoSuchMethod" }, /^unknown method "NoSuchMethod"/],
      [{ kind: "drop", method: "GetArkInfo", vtxo: "aa:0" }, /^vtxo filters only GetVtxo/],
      [{ kind: "drop", method: "GetVtxo", answer: "maybe" }, /^answer must be/],
      [{ kind: "delay", method: "GetVtxo", ms: -1 }, /^ms must be an integer/],
      [{ kind: "invalid-signature", vtxo: "nope" }, /^vtxo must be a VTXO id/],
      [{ kind: "inject-recovery-ids" }, /needs vtxo_ids or raw_ids_hex/],
      [{ kind: "inject-recovery-ids", raw_ids_hex: ["xyz"] }, /^raw_ids_hex\[0\] must be hex bytes/],
      [{ kind: "inject-recovery-ids", raw_ids_hex: ["00"], mailbox: "00" }, /^mailbox must be a 33-byte public key/],
      [{ kind: "drop", method: "GetVtxo", extra: 1 }, /^unknown field "extra"/],
      ["[1]", /^a fault must be a JSON object/],
      ["{not json", /^Invalid request body$/],
    ];
    for (const [body, text] of bad) {
      const a = await control("POST", "", body);
      expect(a.status, JSON.stringify(body)).to.equal(400);
      expect(a.body).to.match(text);
    }
    expect(await control("DELETE", "/42")).to.deep.equal({ status: 404, body: "no armed fault 42" });
    expect(((await control("GET", "")).body as { faults: unknown[] }).faults).to.deep.equal([]);
  });
});
