import { expect } from "chai";
import { Transaction, address as btcAddress, networks } from "bitcoinjs-lib";
import { startDevnet, type Devnet } from "@tender/devnet";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { TcpSwitch } from "../src/tcp-switch.js";

/** The on-chain daemon; sync only when a test asks; a short re-broadcast grace so a kept transaction would go out at once. */
const CONFIG = {
  plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-chain", "@tender/plugin-fees", "@tender/plugin-onchain"],
  pluginConfig: { onchain: { rebroadcastGraceMs: 300, syncIntervalMs: 3_600_000 }, chain: { retryAttempts: 2, timeoutMs: 3_000 } },
};
const EXTERNAL = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
const EXTERNAL_SCRIPT = Buffer.from(btcAddress.toOutputScript(EXTERNAL, networks.regtest)).toString("hex");

interface TxInfo { txid: string; tx: string; onchain_fee_sat?: number; confirmation: unknown }
interface Balance { total_sat: number; confirmed_sat: number; trusted_pending_sat: number }

/**
 * An on-chain send never answers "failed" for a transaction the daemon will still broadcast, so a
 * client that retries after a failure pays once: a send whose broadcast certainly reached no node
 * is dropped; one that may have reached a node is answered with its txid.
 */
describe("on-chain send answers over HTTP when the chain source goes down (devnet behind a switch)", function () {
  this.timeout(90_000);
  let devnet: Devnet;
  let sw: TcpSwitch;
  let d: Daemon;

  before(async () => {
    devnet = await startDevnet({ seed: "onchain-send-answers-e2e" });
    sw = await TcpSwitch.start(devnet.esploraUrl);
  });
  after(async () => {
    await sw.down();
    await devnet.stop();
  });
  beforeEach(async () => {
    await sw.up();
    d = await startDaemon({ config: CONFIG });
    const created = await d.api("POST", "/api/v1/wallet/create", { body: { network: "regtest", ark_server: "127.0.0.1:35035", chain_source: { esplora: { url: sw.urlFor(devnet.esploraUrl) } } } });
    expect(created.status, created.text).to.equal(200);
  });
  afterEach(async () => {
    await d.stop();
    cleanup(d.datadir);
  });

  const post = async (path: string, body?: unknown) => d.api("POST", path, body === undefined ? {} : { body });
  const sync = async () => expect((await post("/api/v1/onchain/sync")).status).to.equal(200);
  const funded = async (amount: bigint) => {
    const { address } = (await post("/api/v1/onchain/addresses/next")).json as { address: string };
    devnet.node.faucet(address, amount);
    devnet.node.mine(1);
    await sync();
  };
  /** Payments of the wallet to EXTERNAL that the devnet has, in its mempool or its chain. */
  const paymentsOnChain = async () => {
    const txs = (await d.api("GET", "/api/v1/onchain/transactions")).json as TxInfo[];
    return txs.filter((t) => devnet.node.getTransaction(t.txid) !== undefined)
      .flatMap((t) => Transaction.fromHex(t.tx).outs.filter((o) => Buffer.from(o.script).toString("hex") === EXTERNAL_SCRIPT).map((o) => ({ txid: t.txid, value: o.value })));
  };

  it("chain source down → send fails with nothing kept; source up → the client's retry with the same body pays once", async () => {
    await funded(300_000n);
    const balance = (await d.api("GET", "/api/v1/onchain/balance")).json as Balance;
    const body = { destination: EXTERNAL, amount_sat: 100_000 };

    await sw.down();
    const failed = await post("/api/v1/onchain/send", body);
    const balanceAfterFailure = (await d.api("GET", "/api/v1/onchain/balance")).json;
    const listedAfterFailure = (await d.api("GET", "/api/v1/onchain/transactions")).json as TxInfo[];

    await sw.up();
    await new Promise((r) => setTimeout(r, 400)); // past the re-broadcast grace
    await sync();
    const retried = await post("/api/v1/onchain/send", body);
    expect(retried.status, retried.text).to.equal(200);
    const { txid } = retried.json as { txid: string };
    await new Promise((r) => setTimeout(r, 400));
    await sync();
    devnet.node.mine(1);
    await sync();
    expect(await paymentsOnChain(), "paid once").to.deep.equal([{ txid, value: 100_000n }]);

    expect(failed.status).to.equal(500);
    expect((failed.json as { message: string }).message).to.match(/^Failed to send onchain payment: chain source .* is unavailable .*; nothing was broadcast or spent$/);
    expect(balanceAfterFailure).to.deep.equal(balance);
    expect(listedAfterFailure).to.have.length(1);
  });

  it("answers the txid when the answer to the broadcast is lost after the node took it; the transaction is listed and mined once", async () => {
    await funded(300_000n);
    await sw.mute();
    const sent = await post("/api/v1/onchain/send", { destination: EXTERNAL, amount_sat: 120_000 });
    expect(sent.status, sent.text).to.equal(200);
    const { txid } = sent.json as { txid: string };
    expect(devnet.node.getRawMempool()).to.deep.equal([txid]);
    const listed = (await d.api("GET", "/api/v1/onchain/transactions")).json as TxInfo[];
    expect(listed.map((t) => t.txid)).to.include(txid);
    expect(d.stderr()).to.contain(`broadcast of ${txid} may not have reached a node`);

    await sw.up();
    await sync();
    devnet.node.mine(1);
    await sync();
    expect(await paymentsOnChain()).to.deep.equal([{ txid, value: 120_000n }]);
  });

  it("refuses amount_sat above 21 million BTC as an invalid amount (400), as send-many does", async () => {
    await funded(50_000n);
    const r = await post("/api/v1/onchain/send", { destination: EXTERNAL, amount_sat: 2_100_000_000_000_001 });
    expect(r.status).to.equal(400);
    expect((r.json as { message: string }).message).to.equal("bad request: invalid amount: 2100000000000001 sat is more than 21 million BTC");
    const many = await post("/api/v1/onchain/send-many", { destinations: [`${EXTERNAL}:21000001 BTC`] });
    expect(many.status).to.equal(400);
    expect((many.json as { message: string }).message).to.match(/^bad request: invalid amount: /);
  });

  it("pays the chain source's fee rate with its precision: 7.001 sat/vB is not paid as 8 (GET /fees/onchain shows 8)", async () => {
    await funded(200_000n);
    const estimates = devnet.node.feeEstimates();
    devnet.node.setFeeEstimates({ 1: 9, 3: 7.001, 6: 2 });
    try {
      await sync(); // refreshes the cached rates
      expect((await d.api("GET", "/api/v1/fees/onchain")).json).to.deep.equal({ fast_sat_per_vb: 9, regular_sat_per_vb: 8, slow_sat_per_vb: 2 });
      const { txid } = (await post("/api/v1/onchain/send", { destination: EXTERNAL, amount_sat: 60_000 })).json as { txid: string };
      const entry = devnet.node.getMempoolEntry(txid)!;
      expect(entry.feeSat).to.equal(BigInt(Math.ceil((entry.vsize * 7001) / 1000)));
    } finally {
      devnet.node.setFeeEstimates(estimates);
    }
  });
});
