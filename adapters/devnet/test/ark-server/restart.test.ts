import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ArkServerClient } from "@tender/ark-grpc";
import { encodeOutPoint, encodeVtxo, signAttestation, vtxoStatusAttestation } from "@tender/ark-protocol";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { startArkServer, type RunningArkServer } from "../../src/ark-server/start-ark-server.js";
import { grpcApi, grpcClient } from "./grpc-api.js";
import { pubkeyPolicy, WalletKit, type ArkApi } from "./wallet-kit.js";

describe("ark server: kill and restart between the RPCs of a flow loses nothing", function () {
  this.timeout(60_000);
  let dir: string;
  let node: DevnetNode;
  let ark: RunningArkServer;
  let client: ArkServerClient;
  let restarts = 0;

  /** The kit's API, always through the client of the server currently running. */
  const api: ArkApi = {
    arkInfo: () => grpcApi(client).arkInfo(),
    requestBoardCosign: (r, p) => grpcApi(client).requestBoardCosign(r, p),
    registerBoardVtxo: (v) => grpcApi(client).registerBoardVtxo(v),
    requestArkoorCosign: (p) => grpcApi(client).requestArkoorCosign(p),
    registerVtxoTransactions: (v) => grpcApi(client).registerVtxoTransactions(v),
    postArkoorMessage: (b, v) => grpcApi(client).postArkoorMessage(b, v),
  };

  async function start(): Promise<void> {
    ark = await startArkServer({ node, datadir: dir, profile: "test" });
    client = grpcClient(ark.url);
  }

  /** Drops every connection without a graceful shutdown and starts a fresh server on the same datadir. */
  async function crashAndRestart(): Promise<void> {
    client.close();
    await ark.kill();
    await start();
    restarts++;
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "tender-ark-server-"));
    node = new DevnetNode({ seed: "ark-restart-test" });
    restarts = 0;
    await start();
  });
  afterEach(async () => {
    client.close();
    await ark.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps its keys, and completes board → arkoor → registration → mailbox with a restart before every RPC", async () => {
    const keys = (await client.arkInfo()).serverPubkey;
    const alice = new WalletKit(api, node);
    const bob = new WalletKit(api, node);

    const prepared = await alice.prepareBoard(60_000n);
    await crashAndRestart();
    expect((await client.arkInfo()).serverPubkey).to.deep.equal(keys);
    const board = await alice.cosignBoard(prepared);
    node.mine(1);
    await crashAndRestart();
    await api.registerBoardVtxo(encodeVtxo(board));
    await crashAndRestart();

    const bobKey = bob.key();
    const pay = alice.prepareArkoor([board], [{ amount: 25_000n, policy: pubkeyPolicy(bobKey.pk) }, { amount: 35_000n, policy: pubkeyPolicy(alice.key().pk) }]);
    const answer = await api.requestArkoorCosign(pay.parts);
    await crashAndRestart();
    // the wallet lost the answer: the replay after the restart gets the very same bytes
    expect(await api.requestArkoorCosign(pay.parts)).to.deep.equal(answer);
    const outs = alice.finishArkoor(pay.pkg, pay.nonces, answer);
    await crashAndRestart();
    await api.registerVtxoTransactions(outs.map((v) => encodeVtxo(v)));
    await crashAndRestart();
    const toBob = outs.filter((v) => Buffer.from(v.policy.userPubkey).equals(Buffer.from(bobKey.pk)));
    await api.postArkoorMessage(await bob.blindedMailboxId(bobKey), toBob.map((v) => encodeVtxo(v)));
    await crashAndRestart();

    const page = await client.mailbox("readMailbox", { mailboxId: bob.mailbox.pk, authorization: bob.authorization(), checkpoint: 0n });
    expect(page.messages.map((m) => m.message?.$case === "arkoor" && m.message.value.vtxos)).to.deep.equal([toBob.map((v) => encodeVtxo(v))]);
    const id = encodeOutPoint(board.point);
    const status = await client.ark("getVtxoStatus", { vtxoId: id, attestation: signAttestation(vtxoStatusAttestation(id), alice.secretFor(board.policy.userPubkey)) });
    expect(status.spendState).to.equal(2); // SPENT survived every restart
    await crashAndRestart();
    // and the spent input stays spent: a different spend is refused after the restarts
    const again = alice.prepareArkoor([board], [{ amount: 60_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const err = await api.requestArkoorCosign(again.parts).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.match(/is not spendable \(state: spent\)/);
    // bob can spend what he received after all of it
    const { sent } = await bob.send(toBob, 10_000n, alice.key().pk);
    expect(sent[0]!.amount).to.equal(10_000n);
    expect(restarts).to.equal(8);
  });

  it("a funded server restarts with its wallet, and a config change keeps old VTXOs spendable", async () => {
    const before = await ark.server.walletStatus();
    node.faucet(before.address, 500_000n);
    node.mine(1);
    const alice = new WalletKit(api, node);
    const old = await alice.board(40_000n);
    expect(old.exitDelta).to.equal(12);
    client.close();
    await ark.stop();
    ark = await startArkServer({ node, datadir: dir, profile: "test", overrides: { vtxoExitDelta: 20 } });
    client = grpcClient(ark.url);
    const after = await ark.server.walletStatus();
    expect(after.address).to.equal(before.address);
    expect(after.trustedBalance).to.equal(500_000n);
    expect((await client.arkInfo()).vtxoExitDelta).to.equal(20);
    // the old VTXO keeps its delta and can still be paid onwards; new boards get the new delta
    const { sent } = await alice.send([old], 40_000n, alice.key().pk);
    expect(sent[0]!.exitDelta).to.equal(12);
    expect((await alice.board(30_000n)).exitDelta).to.equal(20);
  });
});
