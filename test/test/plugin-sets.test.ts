/**
 * The daemon with other plugin sets than the default one: an integrator enables only the rails it
 * needs, leaves one out, or adds its own through the wallet's extension points.
 */
import { expect } from "chai";
import { writeFileSync } from "node:fs";
import { cleanup, runTenderd, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import { ok } from "../src/api-helpers.js";
import { regtestWallet, sharedDevnet } from "../src/shared-devnet.js";

const ALL_BUT_BOARDS = [
  "@tender/plugin-wallet", "@tender/plugin-chain", "@tender/plugin-fees", "@tender/plugin-onchain", "@tender/plugin-notifications",
  "@tender/plugin-history", "@tender/plugin-ark",
];
const ZERO_BALANCE = {
  spendable_sat: 0, pending_lightning_send_sat: 0, claimable_lightning_receive_sat: 0, pending_in_round_sat: 0, pending_board_sat: 0, pending_exit_sat: 0,
};

/** `path` answers barkd's fallback for a path no route serves (a JSON string 404). */
async function notRouted(d: Daemon, path: string): Promise<void> {
  const r = await fetch(d.base + path, { headers: { Authorization: `Bearer ${d.token}` } });
  expect(r.status, path).to.equal(404);
  expect(await r.json(), path).to.equal("path not found: ");
}

describe("plugin sets: a daemon with only the rails an integrator enables", function () {
  this.timeout(60_000);
  let d: Daemon | undefined;
  afterEach(async () => {
    if (d) {
      await d.stop();
      cleanup(d.datadir);
      d = undefined;
    }
  });

  it("runs the on-chain rail with no Ark at all (wallet, chain, onchain, notifications): fund, sync, balance, send", async () => {
    const devnet = await sharedDevnet();
    d = await startDaemon({ config: { plugins: ["@tender/plugin-wallet", "@tender/plugin-chain", "@tender/plugin-onchain", "@tender/plugin-notifications"] } });
    // no Ark plugin: no creation check asks the Ark server, whatever it says
    await ok(d, "POST", "/api/v1/wallet/create", await regtestWallet({ ark_server: "127.0.0.1:9" }));
    const { address } = await ok<{ address: string }>(d, "POST", "/api/v1/onchain/addresses/next");
    devnet.node.faucet(address, 200_000n);
    devnet.node.mine(1);
    await ok(d, "POST", "/api/v1/onchain/sync");
    expect((await ok<{ confirmed_sat: number }>(d, "GET", "/api/v1/onchain/balance")).confirmed_sat).to.equal(200_000);
    const { txid } = await ok<{ txid: string }>(d, "POST", "/api/v1/onchain/send", { destination: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", amount_sat: 50_000 });
    expect(txid).to.match(/^[0-9a-f]{64}$/);
    expect(devnet.node.getRawMempool()).to.include(txid);
    // the wallet-wide routes exist, with nothing contributed to them
    expect(await ok(d, "GET", "/api/v1/wallet/balance")).to.deep.equal(ZERO_BALANCE);
    const pay = await d.api("POST", "/api/v1/wallet/send", { body: { destination: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", amount_sat: 1_000 } });
    expect([pay.status, pay.json]).to.deep.equal([500, { message: "offboards are temporarily disabled" }]);
    // the Ark rail, boards and the fees plugin are not there: their paths are not routed
    for (const path of ["/api/v1/wallet/ark-info", "/api/v1/wallet/vtxos", "/api/v1/boards/pending", "/api/v1/fees/onchain"]) {
      await notRouted(d, path);
    }
  });

  it("answers the balance without the boards plugin: pending_board_sat 0 from no contributor", async () => {
    d = await startDaemon({ config: { plugins: ALL_BUT_BOARDS } });
    await ok(d, "POST", "/api/v1/wallet/create", await regtestWallet());
    expect(await ok(d, "GET", "/api/v1/wallet/balance")).to.deep.equal(ZERO_BALANCE);
    await notRouted(d, "/api/v1/boards/pending");
    await notRouted(d, "/api/v1/fees/board?amount_sat=10000");
  });

  it("lets a third-party plugin add a send destination kind and a balance field without touching any other plugin", async () => {
    d = await startDaemon({ config: { plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/e2e/example-plugin"] } });
    await ok(d, "POST", "/api/v1/wallet/create", await regtestWallet());
    expect(await ok(d, "POST", "/api/v1/wallet/send", { destination: "voucher:summer2026", amount_sat: 1_500 })).to.deep.equal({ message: "Payment sent successfully" });
    expect(await ok(d, "POST", "/api/v1/wallet/send", { destination: "voucher:winter", amount_sat: 500 })).to.deep.equal({ message: "Payment sent successfully" });
    expect(await ok(d, "GET", "/api/v1/example/vouchers")).to.deep.equal([{ code: "summer2026", amount_sat: 1_500 }, { code: "winter", amount_sat: 500 }]);
    expect(await ok(d, "GET", "/api/v1/wallet/balance")).to.deep.equal({ ...ZERO_BALANCE, pending_in_round_sat: 2_000 });
    // barkd's kinds still answer barkd's errors; a destination of no kind is still a 400
    const bad = await d.api("POST", "/api/v1/wallet/send", { body: { destination: "voucher:x", amount_sat: 1 } });
    expect(bad.status).to.equal(400);
    expect((bad.json as { message: string }).message).to.match(/^Argument is not a valid destination/);
  });

  it("refuses to start when two plugins provide the same service, naming both", async () => {
    const dir = tempDatadir();
    const config = `${dir}.tenderd.json`;
    writeFileSync(config, JSON.stringify({ plugins: ["@tender/plugin-wallet", "@tender/plugin-fees", "@tender/e2e/second-fees-plugin"] }));
    const r = await runTenderd(["--datadir", dir, "--port", "23996", "--config", config]);
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.contain("service fees.estimators is provided by both plugin fees and plugin second-fees");
    cleanup(dir);
  });
});
