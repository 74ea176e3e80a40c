import { expect } from "chai";
import { credentials, Metadata, status } from "@grpc/grpc-js";
import {
  ArkServerClient,
  ArkServerNotFoundError,
  ArkServerRejectedError,
  ArkServiceClient,
  HealthCheckResponse_ServingStatus,
  HealthClient,
  MailboxRequest,
  ProtocolVersionMismatchError,
  WalletAdminServiceClient,
  type ArkServerError,
  type MailboxMessage,
} from "@tender/ark-grpc";
import {
  arkoorCosignAttestation,
  encodeOutPoint,
  encodePolicy,
  encodeVtxo,
  formatOutPoint,
  musigRespondCosign,
  signAttestation,
  vtxoStatusAttestation,
  type Vtxo,
} from "@tender/ark-protocol";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { startArkServer, type RunningArkServer } from "../../src/ark-server/start-ark-server.js";
import { grpcApi, grpcClient } from "./grpc-api.js";
import { rejection } from "./fixture.js";
import { newKey, pubkeyPolicy, WalletKit } from "./wallet-kit.js";

function raw<T>(call: (cb: (err: (Error & { code?: number; details?: string; metadata?: Metadata }) | null, res: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => call((err, res) => (err ? reject(err) : resolve(res))));
}

describe("ark server over gRPC (handshake, headers, every service, bark's client scenarios)", function () {
  this.timeout(60_000);
  let node: DevnetNode;
  let ark: RunningArkServer;
  let client: ArkServerClient;
  let alice: WalletKit;
  let bob: WalletKit;
  const lines: string[] = [];

  beforeEach(async () => {
    node = new DevnetNode({ seed: "ark-grpc-test" });
    lines.length = 0;
    const logger = { trace() {}, debug: (m: string) => lines.push(m), info() {}, warn() {}, error() {}, child: () => logger };
    ark = await startArkServer({ node, profile: "test", logger });
    client = grpcClient(ark.url);
    alice = new WalletKit(grpcApi(client), node);
    bob = new WalletKit(grpcApi(client), node);
  });
  afterEach(async () => {
    client.close();
    await ark.stop();
  });

  /** The rejection a call produced, as the client adapter types it. */
  async function refused(p: Promise<unknown>): Promise<ArkServerRejectedError> {
    const e = await rejection(p);
    expect(e, String(e)).to.be.instanceOf(ArkServerRejectedError);
    return e as ArkServerRejectedError;
  }

  describe("handshake, versions, transport", () => {
    it("negotiates protocol version 5 and serves ArkInfo with the pinned keys and the test profile", async () => {
      const session = await client.connect();
      expect(session.protocolVersion).to.equal(5);
      expect(session.serverVersions).to.deep.equal({ min: 4, max: 5 });
      expect(session.arkInfo.serverPubkey).to.deep.equal(ark.server.ctx.keys.serverPubkey);
      expect(session.arkInfo.mailboxPubkey).to.deep.equal(ark.server.ctx.keys.mailboxPubkey);
      expect(session.arkInfo.vtxoLifetime).to.equal(432);
      expect(session.arkInfo.vtxoExitDelta).to.equal(12);
      expect(session.arkInfo.maxVtxoExitDepth).to.equal(50);
      expect(session.arkInfo.fees?.offboard?.fixedAdditionalVb).to.equal(100n);
    });

    it("accepts a handshake without pver and tells unknown clients to update", async () => {
      const c = new ArkServiceClient(ark.url.replace("http://", ""), credentials.createInsecure());
      try {
        const hs = await raw<{ minProtocolVersion: bigint; psa?: string }>((cb) => c.handshake({ barkVersion: "bark 0.6.0" }, cb));
        expect(hs.minProtocolVersion).to.equal(4n);
        expect(hs.psa).to.equal(undefined);
        const old = await raw<{ psa?: string }>((cb) => c.handshake({ barkVersion: "9.9.9" }, cb));
        expect(old.psa).to.match(/update/);
      } finally {
        c.close();
      }
    });

    it("refuses a client whose versions do not overlap", async () => {
      const c = new ArkServerClient({ url: ark.url, network: "regtest", protocolVersions: { min: 6, max: 7 } });
      try {
        const e = await rejection(c.connect());
        expect(e).to.be.instanceOf(ProtocolVersionMismatchError);
        expect(e.message).to.equal("version mismatch. Client min is: 6, server max is: 5");
      } finally {
        c.close();
      }
    });

    it("refuses board cosigning without or with a bad pver header, and a malformed x-user-agent", async () => {
      const c = new ArkServiceClient(ark.url.replace("http://", ""), credentials.createInsecure());
      try {
        const b = await alice.prepareBoard(30_000n);
        const noPver = await rejection(raw((cb) => c.requestBoardCosign(b.request, cb)));
        expect((noPver as { code?: number }).code).to.equal(status.INVALID_ARGUMENT);
        expect((noPver as { details?: string }).details).to.equal("missing pver header");
        const md = new Metadata();
        md.set("pver", "five");
        const badPver = await rejection(raw((cb) => c.requestBoardCosign(b.request, md, cb)));
        expect((badPver as { details?: string }).details).to.equal("invalid protocol version header");
        const old = new Metadata();
        old.set("pver", "3");
        expect(((await rejection(raw((cb) => c.requestBoardCosign(b.request, old, cb)))) as { details?: string }).details).to.equal(
          "bad user input: Your client version is too old, you need to update in order to be able to board.",
        );
        const ua = new Metadata();
        ua.set("x-user-agent", "Not Valid");
        const badUa = await rejection(raw((cb) => c.getArkInfo({}, ua, cb)));
        expect((badUa as { code?: number }).code).to.equal(status.INVALID_ARGUMENT);
        expect((badUa as { details?: string }).details).to.equal("x-user-agent must match `<name>/<version>`");
      } finally {
        c.close();
      }
    });

    it("reports SERVING on grpc.health.v1 and the server wallet on the admin port", async () => {
      const h = new HealthClient(ark.url.replace("http://", ""), credentials.createInsecure());
      const w = new WalletAdminServiceClient(ark.adminUrl.replace("http://", ""), credentials.createInsecure());
      try {
        expect((await raw<{ status: number }>((cb) => h.check({ service: "" }, cb))).status).to.equal(HealthCheckResponse_ServingStatus.SERVING);
        const before = await raw<{ rounds?: { address: string; totalBalance: bigint } }>((cb) => w.walletStatus({}, cb));
        expect(before.rounds?.totalBalance).to.equal(0n);
        node.faucet(before.rounds!.address, 1_000_000n);
        node.mine(1);
        const after = await raw<{ rounds?: { trustedBalance: bigint; confirmedUtxos: string[] } }>((cb) => w.walletStatus({}, cb));
        expect(after.rounds?.trustedBalance).to.equal(1_000_000n);
        expect(after.rounds?.confirmedUtxos).to.have.length(1);
      } finally {
        h.close();
        w.close();
      }
    });

    it("runs two servers side by side on one chain, with different keys", async () => {
      const second = await startArkServer({ node, profile: "test" });
      const c2 = grpcClient(second.url);
      try {
        const [a, b] = [await client.arkInfo(), await c2.arkInfo()];
        expect(a.serverPubkey).to.not.deep.equal(b.serverPubkey);
        const coin = await new WalletKit(grpcApi(c2), node).board(25_000n);
        // the first server knows nothing of the second one's VTXO
        expect(await rejection(client.ark("getVtxo", { vtxoId: encodeOutPoint(coin.point) }))).to.be.instanceOf(ArkServerNotFoundError);
      } finally {
        c2.close();
        await second.stop();
      }
    });

    it("logs each request at debug level", async () => {
      await client.connect();
      expect(lines.some((l) => /^rpc Handshake ok/.test(l))).to.equal(true);
      expect(lines.some((l) => /^rpc GetArkInfo ok/.test(l))).to.equal(true);
    });

    it("times how long it held each public call, answered or refused, by method", async () => {
      await client.connect();
      const before = { info: ark.server.rpcTimes.of("GetArkInfo"), vtxo: ark.server.rpcTimes.of("GetVtxo") };
      await client.ark("getArkInfo", {});
      await client.ark("getArkInfo", {});
      await client.ark("getVtxo", { vtxoId: new Uint8Array(36) }).catch(() => undefined); // NOT_FOUND
      const info = ark.server.rpcTimes.of("GetArkInfo");
      const vtxo = ark.server.rpcTimes.of("GetVtxo");
      expect([info.calls - before.info.calls, vtxo.calls - before.vtxo.calls]).to.deep.equal([2, 1]);
      expect(info.ms).to.be.greaterThan(before.info.ms);
      expect(vtxo.ms).to.be.greaterThan(before.vtxo.ms);
      expect(ark.server.rpcTimes.of("NoSuchMethod")).to.deep.equal({ calls: 0, ms: 0 });
    });
  });

  describe("flows", () => {
    it("boards, pays in an arkoor chain with change, and delivers through the mailbox with resume from a checkpoint", async () => {
      let coin: Vtxo[] = [await alice.board(80_000n)];
      const received: Vtxo[] = [];
      for (const amount of [20_000n, 15_000n]) {
        const key = bob.key();
        const { sent, change } = await alice.send(coin, amount, key.pk, { changePieces: 2 });
        await client.mailbox("postArkoorMessage", { blindedId: await bob.blindedMailboxId(key), vtxos: sent.map((v) => encodeVtxo(v)) });
        received.push(...sent);
        coin = [change[0]!, change[1]!];
      }
      // bob spends one received VTXO onwards: a third hop on the chain
      await bob.send([received[0]!], 5_000n, newKey().pk);

      const page = await client.mailbox("readMailbox", { mailboxId: bob.mailbox.pk, authorization: bob.authorization(), checkpoint: 0n });
      expect(page.messages.map((m) => m.message?.$case)).to.deep.equal(["arkoor", "arkoor"]);
      const first = page.messages[0]!.checkpoint;

      // subscription from the first checkpoint replays only the second message, then streams a new one
      const stream = await client.openStream("mailbox", "subscribeMailbox", MailboxRequest.create({ mailboxId: bob.mailbox.pk, authorization: bob.authorization(), checkpoint: first }));
      const got: MailboxMessage[] = [];
      const three = new Promise<void>((resolve, reject) => {
        stream.on("data", (m: MailboxMessage) => {
          got.push(m);
          if (got.length === 2) resolve();
        });
        stream.on("error", (e) => (got.length >= 2 ? undefined : reject(e)));
      });
      const key = bob.key();
      const { sent } = await alice.send([coin[0]!], 1_000n, key.pk);
      await client.mailbox("postArkoorMessage", { blindedId: await bob.blindedMailboxId(key), vtxos: sent.map((v) => encodeVtxo(v)) });
      await three;
      stream.cancel();
      expect(got[0]!.checkpoint).to.equal(page.messages[1]!.checkpoint);
      expect(got[1]!.message?.$case === "arkoor" && got[1]!.message.value.vtxos).to.deep.equal([encodeVtxo(sent[0]!)]);
    });

    it("GetVtxo returns a registered VTXO and NOT_FOUND with identifiers for an unknown id; GetVtxoStatus needs the owner", async () => {
      const coin = await alice.board(30_000n);
      const got = await client.ark("getVtxo", { vtxoId: encodeOutPoint(coin.point) });
      expect(got.vtxo).to.deep.equal(encodeVtxo(coin));
      const unknown = { txid: new Uint8Array(32).fill(5), vout: 2 };
      const e = await refused(client.ark("getVtxo", { vtxoId: encodeOutPoint(unknown) }));
      expect(e).to.be.instanceOf(ArkServerNotFoundError);
      expect(e.identifiers).to.deep.equal([formatOutPoint(unknown)]);
      const id = encodeOutPoint(coin.point);
      const st = await client.ark("getVtxoStatus", { vtxoId: id, attestation: signAttestation(vtxoStatusAttestation(id), alice.secretFor(coin.policy.userPubkey)) });
      expect(st.spendState).to.equal(1);
      const bad = await refused(client.ark("getVtxoStatus", { vtxoId: id, attestation: signAttestation(vtxoStatusAttestation(id), newKey().sk) }));
      expect(bad.serverMessage).to.equal("bad user input: invalid VTXO status attestation");
    });

    it("stores recovery ids in batches of at most 20", async () => {
      const rec = newKey();
      const ids = Array.from({ length: 20 }, (_, i) => encodeOutPoint({ txid: new Uint8Array(32).fill(i + 1), vout: 0 }));
      await client.mailbox("postRecoveryVtxoIds", { mailboxId: rec.pk, vtxoIds: ids, authorization: alice.authorization(60, rec) });
      const e = await refused(client.mailbox("postRecoveryVtxoIds", { mailboxId: rec.pk, vtxoIds: [...ids, ids[0]!], authorization: alice.authorization(60, rec) }));
      expect(e.serverMessage).to.equal("bad user input: too many VTXOs, max is 20");
      const page = await client.mailbox("readMailbox", { mailboxId: rec.pk, authorization: alice.authorization(60, rec), checkpoint: 0n });
      expect(page.messages[0]?.message?.$case === "recoveryVtxoIds" && page.messages[0].message.value.vtxoIds).to.deep.equal(ids);
    });
  });

  describe("refusals with captaind's texts", () => {
    it("wrong signature: an attestation by another key", async () => {
      const coin = await alice.board(30_000n);
      const { parts } = alice.prepareArkoor([coin], [{ amount: 30_000n, policy: pubkeyPolicy(bob.key().pk) }]);
      parts[0]!.attestation = signAttestation(arkoorCosignAttestation(encodeOutPoint(coin.point), [{ amount: 30_000n, policy: pubkeyPolicy(bob.key().pk) }]), newKey().sk);
      const e = await refused(client.ark("requestArkoorCosign", { parts }));
      expect(e.code).to.equal(status.INVALID_ARGUMENT);
      expect(e.serverMessage).to.equal("bad user input: invalid cosign request at index #0: Invalid attestation");
    });

    it("spent input: a second, different spend of the same VTXO, with the id in the identifiers trailer", async () => {
      const coin = await alice.board(30_000n);
      await alice.send([coin], 30_000n, bob.key().pk);
      const { parts } = alice.prepareArkoor([coin], [{ amount: 30_000n, policy: pubkeyPolicy(newKey().pk) }]);
      const e = await refused(client.ark("requestArkoorCosign", { parts }));
      expect(e.serverMessage).to.equal(`bad user input: vtxo ${formatOutPoint(coin.point)} is not spendable (state: spent)`);
      expect(e.rejectedVtxoIds).to.deep.equal([formatOutPoint(coin.point)]);
    });

    it("double spend across two concurrent requests: exactly one is cosigned", async () => {
      const coin = await alice.board(30_000n);
      const reqs = [0, 1].map(() => alice.prepareArkoor([coin], [{ amount: 30_000n, policy: pubkeyPolicy(newKey().pk) }]).parts);
      const results = await Promise.allSettled(reqs.map((parts) => client.ark("requestArkoorCosign", { parts })));
      expect(results.filter((r) => r.status === "fulfilled")).to.have.length(1);
      const loser = results.find((r): r is PromiseRejectedResult => r.status === "rejected")!.reason as ArkServerError;
      expect(loser).to.be.instanceOf(ArkServerRejectedError);
      expect(loser.serverMessage).to.match(/^bad user input: (some VTXO is already locked by another process: |vtxo .* is not spendable \(state: spent\)$)/);
    });

    it("dust output: sub-dust next to a large output without isolation", async () => {
      const coin = await alice.board(30_000n);
      const { parts } = alice.prepareArkoor([coin], [{ amount: 30_000n, policy: pubkeyPolicy(bob.key().pk) }]);
      const normal = [{ amount: 100n, policy: pubkeyPolicy(bob.key().pk) }, { amount: 29_900n, policy: pubkeyPolicy(alice.key().pk) }];
      const attestation = signAttestation(arkoorCosignAttestation(encodeOutPoint(coin.point), normal), alice.secretFor(coin.policy.userPubkey));
      const nonces = [...parts[0]!.userPubNonces, parts[0]!.userPubNonces[0]!];
      const crafted = { ...parts[0]!, outputs: normal.map((d) => ({ totalAmount: d.amount, policy: encodePolicy(d.policy) })), userPubNonces: nonces, attestation };
      const e = await refused(client.ark("requestArkoorCosign", { parts: [crafted] }));
      expect(e.serverMessage).to.equal(`bad user input: invalid mix of dust and non-dust outputs for input ${formatOutPoint(coin.point)}`);
    });

    it("wrong server key: a board VTXO co-signed by another key is not a board of this server", async () => {
      const foreign = newKey();
      const base = grpcApi(client);
      const api = { ...base, arkInfo: async () => ({ ...(await base.arkInfo()), serverPubkey: foreign.pk }) };
      const other = new WalletKit(api, node);
      const b = await other.prepareBoard(30_000n);
      const resp = musigRespondCosign({ secretKey: foreign.sk, pubkey: foreign.pk, otherPubkey: b.key.pk, otherPubNonce: b.nonce.pubNonce, message: b.exit.sighash, tweak: b.exit.tweak });
      const vtxo = await new WalletKit({ ...api, requestBoardCosign: async () => resp }, node).cosignBoard(b);
      node.mine(1);
      const e = await refused(client.ark("registerBoardVtxo", { boardVtxo: encodeVtxo(vtxo) }));
      expect(e.serverMessage).to.match(/^bad user input: vtxo is not a board: server pubkey mismatch$/);
    });

    it("exceeded exit depth: an input at the maximum depth", async () => {
      await ark.stop();
      ark = await startArkServer({ node, profile: "test", overrides: { maxVtxoExitDepth: 3 } });
      client.close();
      client = grpcClient(ark.url);
      const w = new WalletKit(grpcApi(client), node);
      const coin = await w.board(30_000n);
      const { change } = await w.send([coin], 1_000n, newKey().pk);
      const { parts } = w.prepareArkoor(change, [{ amount: change[0]!.amount, policy: pubkeyPolicy(newKey().pk) }]);
      const e = await refused(client.ark("requestArkoorCosign", { parts }));
      expect(e.serverMessage).to.equal(`bad user input: input vtxo ${formatOutPoint(change[0]!.point)} exit depth 3 meets or exceeds the maximum of 3; refresh the VTXO in a round to reset its exit depth`);
    });

    it("unconfirmed board: registration before the funding tx confirms", async () => {
      const vtxo = await alice.cosignBoard(await alice.prepareBoard(30_000n));
      const e = await refused(client.ark("registerBoardVtxo", { boardVtxo: encodeVtxo(vtxo) }));
      expect(e.serverMessage).to.equal("bad user input: board funding tx still unconfirmed");
    });

    it("mailbox reads need an authorization", async () => {
      const e = await refused(client.mailbox("readMailbox", { mailboxId: bob.mailbox.pk, checkpoint: 0n }));
      expect(e.serverMessage).to.equal("bad user input: mailbox authorization required");
    });

    it("before any round: NextRoundTime is in the future, SubmitPayment is refused, LastRoundEvent is NOT_FOUND", async () => {
      const next = await client.ark("nextRoundTime", {});
      expect(Number(next.timestamp)).to.be.greaterThan(Date.now() / 1000);
      const e = await rejection(client.ark("submitPayment", { inputVtxos: [], vtxoRequests: [], offboardRequests: [] }));
      expect((e as ArkServerError).code).to.equal(status.INVALID_ARGUMENT);
      expect((e as ArkServerError).serverMessage).to.equal("bad user input: no round is running: wait for the next round attempt");
      const last = await rejection(client.ark("lastRoundEvent", {}));
      expect(last).to.be.instanceOf(ArkServerNotFoundError);
      expect((last as ArkServerError).serverMessage).to.equal("not found: no round event yet");
    });
  });
});
