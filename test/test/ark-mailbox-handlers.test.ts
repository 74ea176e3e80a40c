import { expect } from "chai";
import { ArkServerClient } from "@tender/ark-grpc";
import { WalletKeys, encodeOutPoint, parseOutPoint, toHex } from "@tender/ark-protocol";
import type { ClaimedRecoveryIds } from "../src/mailbox-claim-plugin/index.js";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import { CAROL_MNEMONIC, arkDaemonConfig, createBody, ok, startArkDevnet, until, type DevnetWithArk } from "./ark-harness.js";

/** Two VTXO ids as the server's recovery messages carry them (36-byte outpoints). */
const IDS = [`${"ab".repeat(32)}:1`, `${"cd".repeat(32)}:7`];
const idBytes = (id: string) => encodeOutPoint(parseOutPoint(id));

describe("mailbox messages of a kind no plugin handles are kept, and handed to a plugin that claims them after a restart", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let daemon: Daemon | undefined;
  const datadir = tempDatadir();

  before(async () => {
    devnet = await startArkDevnet("ark-mailbox-handlers-e2e");
  });
  after(async () => {
    await daemon?.stop();
    cleanup(datadir);
    await devnet?.stop();
  });

  it("keeps a recovery-ids message in the wallet's mailbox through a sync, then the claiming plugin receives it once", async () => {
    daemon = await startDaemon({ datadir, config: arkDaemonConfig() });
    await ok(daemon, "POST", "/api/v1/wallet/create", createBody(devnet, CAROL_MNEMONIC));

    // the reference server posts recovery ids to any mailbox id: this one is the wallet's unified mailbox
    const mailboxId = WalletKeys.fromMnemonic(CAROL_MNEMONIC).mailboxKey().publicKey;
    const client = new ArkServerClient({ url: devnet.arkUrl, network: "regtest", userAgent: "tender-test/0.1.0" });
    try {
      await client.mailbox("postRecoveryVtxoIds", { mailboxId, vtxoIds: IDS.map(idBytes) });
    } finally {
      client.close();
    }

    // no default plugin handles recovery ids: the sync moves past the message, which is kept and logged
    const { checkpoint } = await ok<{ checkpoint: number }>(daemon, "POST", "/api/v1/wallet/sync/mailbox");
    expect(checkpoint).to.be.greaterThan(0);
    const kept = new RegExp(`no plugin handles recovery-vtxo-ids messages; the one at checkpoint ${checkpoint} is kept until one does`);
    await until("the kept message logged", async () => (kept.test(daemon!.stderr()) ? true : undefined));
    expect((await daemon.api("GET", "/api/v1/mailbox-claim/received")).status).to.equal(404);
    await daemon.stop();

    // restarted with a plugin that claims the kind: the kept message is handed to it
    const config = arkDaemonConfig() as { plugins: string[] };
    daemon = await startDaemon({ datadir, config: { ...config, plugins: [...config.plugins, "@tender/e2e/mailbox-claim-plugin"] } });
    const received = await until("the kept message handed over", async () => {
      const r = await ok<ClaimedRecoveryIds[]>(daemon!, "GET", "/api/v1/mailbox-claim/received");
      return r.length > 0 ? r : undefined;
    });
    expect(received).to.deep.equal([{ checkpoint: String(checkpoint), vtxo_ids: IDS.map((id) => toHex(idBytes(id))) }]);

    // handed over once: a later sync neither hands it again nor moves the checkpoint
    expect(await ok(daemon, "POST", "/api/v1/wallet/sync/mailbox")).to.deep.equal({ checkpoint });
    expect(await ok(daemon, "GET", "/api/v1/mailbox-claim/received")).to.deep.equal(received);
  });
});
