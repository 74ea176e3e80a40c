/**
 * Lightning receive against an Ark server that requires an anti-DoS proof before it grants
 * HTLC-recv VTXOs: a wallet holding a spendable VTXO proves ownership of it (an attestation over
 * the payment hash and the VTXO id, signed with its key) and is paid; a wallet without any VTXO
 * and without a token is refused the grant, so it never reveals its preimage, the receive ends
 * (no longer listed) and the external payer is refunded.
 */
import { expect } from "chai";
import { arkServer } from "@tender/devnet";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC, boardToDaemon, createBody, ok, until, type Balance, type DevnetWithArk } from "./ark-harness.js";

interface ReceiveInfo { payment_hash: string; state: string; invoice: string }

const CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  pluginConfig: { notifications: { waitTimeoutMs: 300 } },
};

describe("Lightning receive when the server requires an anti-DoS proof", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    devnet = await arkServer.startDevnetWithArk({ seed: "lightning-receive-anti-dos-e2e", ark: { profile: "test", overrides: { lnReceiveAntiDosRequired: true } } });
    if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
    alice = await startDaemon({ config: CONFIG });
    bob = await startDaemon({ config: CONFIG });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 20_000n)] });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  async function payExternally(invoice: string): Promise<void> {
    const r = await fetch(`${devnet.lnControlUrl}/hold-invoices/pay`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ invoice }) });
    expect(r.status, await r.clone().text()).to.equal(200);
  }
  const payerView = async (hash: string) => (await fetch(`${devnet.lnControlUrl}/hold-invoices/${hash}`)).text();

  it("a wallet with a spendable VTXO proves ownership and is paid", async () => {
    const before = (await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).spendable_sat;
    const { invoice } = await ok<{ invoice: string }>(alice, "POST", "/api/v1/lightning/receives/invoice", { amount_sat: 4_000 });
    await payExternally(invoice);
    await until("settled", async () => ((await ok<ReceiveInfo>(alice, "GET", `/api/v1/lightning/receives/${invoice}`)).state === "settled" ? true : undefined), 30_000);
    expect((await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(before + 4_000);
  });

  it("a wallet without VTXO or token is refused the grant: the receive ends unclaimed, the payer is refunded", async () => {
    const { invoice } = await ok<{ invoice: string }>(bob, "POST", "/api/v1/lightning/receives/invoice", { amount_sat: 4_000 });
    const { payment_hash: hash } = await ok<ReceiveInfo>(bob, "GET", `/api/v1/lightning/receives/${invoice}`);
    await payExternally(invoice);
    await until("the receive to end", async () => ((await bob.api("GET", `/api/v1/lightning/receives/${hash}`)).status === 500 ? true : undefined), 30_000);
    expect((await ok<ReceiveInfo[]>(bob, "GET", "/api/v1/lightning/receives")).map((r) => r.payment_hash)).to.not.include(hash);
    expect(bob.stderr()).to.not.match(/[0-9a-f]{64}.*preimage|preimage.*[0-9a-f]{64}/i);
    expect((await ok<Balance>(bob, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(0);
    await until("the payer refunded", async () => ((await payerView(hash)).includes("refunded") ? true : undefined), 60_000);
  });
});
