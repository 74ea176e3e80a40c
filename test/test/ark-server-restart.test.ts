import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startArkServer, startDevnet, type Devnet, type RunningArkServer } from "@tender/devnet";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, CAROL_MNEMONIC, arkDaemonConfig, boardToDaemon, createBody, ok, spendable, until,
  type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";

describe("the Ark rail survives a restart of the reference server (pinned keys, heartbeat, mailbox resubscription)", function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let ark: RunningArkServer;
  let alice: Daemon;
  let bob: Daemon;
  const dir = mkdtempSync(join(tmpdir(), "ark-restart-"));
  let port = 0;
  const view = () => ({ ...devnet, ark, arkUrl: ark.url, arkAdminUrl: ark.adminUrl }) as unknown as DevnetWithArk;
  const connected = async (d: Daemon) => (await ok<{ connected: boolean }>(d, "GET", "/api/v1/wallet/connected")).connected;

  before(async () => {
    devnet = await startDevnet({ seed: "ark-server-restart-e2e" });
    if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
    ark = await startArkServer({ node: devnet.node, datadir: dir, profile: "test" });
    port = Number(new URL(ark.url).port);
    alice = await startDaemon({ config: arkDaemonConfig() });
    bob = await startDaemon({ config: arkDaemonConfig() });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(view(), ALICE_MNEMONIC));
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(view(), BOB_MNEMONIC));
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await ark?.stop();
    await devnet?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("while the server is down: connected turns false, a send is refused with nothing locked or recorded; after the restart payments flow again", async () => {
    const hex = await boardToDaemon(alice, view(), ALICE_MNEMONIC, 60_000n);
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await until("Bob connected", async () => ((await connected(bob)) ? true : undefined));

    await ark.stop();
    await until("Alice sees the server gone", async () => ((await connected(alice)) ? undefined : true));
    // Addresses derive offline from the pinned server keys (bark's `bark_address_works_offline`).
    await until("Bob sees the server gone", async () => ((await connected(bob)) ? undefined : true));
    const offline = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    expect(offline.address).to.match(/^tark1/).and.not.equal(address);
    expect(await ok<{ address: string }>(bob, "GET", "/api/v1/wallet/addresses/index/1")).to.deep.equal(offline);
    expect((await alice.api("GET", "/api/v1/wallet/ark-info")).status).to.equal(404);
    const refused = await alice.api("POST", "/api/v1/wallet/send", { body: { destination: address, amount_sat: 10_000 } });
    expect(refused.status).to.equal(500);
    expect((refused.json as { message: string }).message).to.match(/^Failed to send arkoor payment: /);
    expect((await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos")).map((v) => v.state.type)).to.deep.equal(["spendable"]);
    expect(await spendable(alice)).to.equal(60_000);
    expect(await ok<Movement[]>(alice, "GET", "/api/v1/history")).to.deep.equal([]); // refused before any action started

    ark = await startArkServer({ node: devnet.node, datadir: dir, port, profile: "test" });
    await until("Alice reconnected", async () => ((await connected(alice)) ? true : undefined));
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: offline.address, amount_sat: 10_000 });
    expect(await spendable(alice)).to.equal(50_000);
    await until("Bob's payment through his resumed subscription", async () => ((await spendable(bob)) === 10_000 ? true : undefined), 30_000);
    expect((await ok<Movement[]>(bob, "GET", "/api/v1/history")).map((m) => [m.subsystem.kind, m.status])).to.deep.equal([["receive", "successful"]]);
  });

  it("a send interrupted at its cosign step while the server is down keeps its input locked and the movement pending, then completes once the server is back", async () => {
    const datadir = mkdtempSync(join(tmpdir(), "tenderd-ark-srv-"));
    let carol = await startDaemon({ datadir, config: arkDaemonConfig(), env: { TENDER_FAULT_INJECT: "ark-send:cosign" } });
    try {
      await ok(carol, "POST", "/api/v1/wallet/create", createBody(view(), CAROL_MNEMONIC));
      const hex = await boardToDaemon(carol, view(), CAROL_MNEMONIC, 40_000n);
      await ok(carol, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
      const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
      const bobBefore = await spendable(bob);
      const lost = await carol.api("POST", "/api/v1/wallet/send", { body: { destination: address, amount_sat: 15_000 } }).then(() => false, () => true);
      expect(lost, "the daemon died at ark-send:cosign").to.equal(true);
      await ark.stop();
      carol = await startDaemon({ datadir, config: arkDaemonConfig() });
      await new Promise((r) => setTimeout(r, 4_000)); // several resume rounds against the missing server
      const vtxos = await ok<VtxoInfo[]>(carol, "GET", "/api/v1/wallet/vtxos");
      expect(vtxos.map((v) => v.state.type)).to.deep.equal(["locked"]);
      expect(vtxos[0]!.state.action_id).to.match(/^[0-9a-f-]{36}$/);
      expect(await spendable(carol)).to.equal(0);
      expect((await ok<Movement[]>(carol, "GET", "/api/v1/history")).map((m) => m.status)).to.deep.equal(["pending"]);

      ark = await startArkServer({ node: devnet.node, datadir: dir, port, profile: "test" });
      await until("Carol's send to complete", async () => ((await ok<Movement[]>(carol, "GET", "/api/v1/history"))[0]?.status === "successful" ? true : undefined), 30_000);
      expect((await ok<VtxoInfo[]>(carol, "GET", "/api/v1/wallet/vtxos")).map((v) => [v.amount_sat, v.state.type])).to.deep.equal([[12_500, "spendable"], [12_500, "spendable"]]); // change 25 000 > 15 000: split in two
      await until("Bob's payment", async () => ((await spendable(bob)) === bobBefore + 15_000 ? true : undefined), 30_000);
    } finally {
      await carol.stop();
      cleanup(datadir);
    }
  });
});
