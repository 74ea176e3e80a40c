import { expect } from "chai";
import { readdirSync } from "node:fs";
import { Transaction } from "bitcoinjs-lib";
import { startDevnet, type Devnet } from "@tender/devnet";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";

/** The daemon with the on-chain rail; background sync off so each test drives sync itself. */
const CONFIG = {
  plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-chain", "@tender/plugin-fees", "@tender/plugin-onchain"],
  pluginConfig: { onchain: { rebroadcastGraceMs: 1_500, syncIntervalMs: 3_600_000 }, chain: { retryAttempts: 2 } },
};
const EXTERNAL = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
const MAINNET_ADDRESS = "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr";

interface Balance { total_sat: number; trusted_spendable_sat: number; immature_sat: number; trusted_pending_sat: number; untrusted_pending_sat: number; confirmed_sat: number }
interface TxInfo { txid: string; tx: string; onchain_fee_sat?: number; balance_change_sat: number; confirmation: { height: number; hash: string } | null; is_cpfp: boolean }
interface Utxo { outpoint: string; amount_sat: number; confirmation_height: number | null }

describe("on-chain wallet over HTTP on the devnet (onchain, fees and bitcoin routes)", function () {
  this.timeout(90_000);
  let devnet: Devnet;
  let d: Daemon;
  const wallet = (esplora: string, network = "regtest") => ({ network, ark_server: "127.0.0.1:35035", chain_source: { esplora: { url: esplora } } });

  before(async () => { devnet = await startDevnet({ seed: "onchain-e2e" }); });
  after(async () => { await devnet.stop(); });
  beforeEach(async () => { d = await startDaemon({ config: CONFIG }); });
  afterEach(async () => { await d.stop(); cleanup(d.datadir); });

  const get = async <T>(path: string): Promise<T> => {
    const r = await d.api("GET", path);
    expect(r.status, `${path}: ${r.text}`).to.equal(200);
    return r.json as T;
  };
  const post = async <T>(path: string, body?: unknown): Promise<T> => {
    const r = await d.api("POST", path, body === undefined ? {} : { body });
    expect(r.status, `${path}: ${r.text}`).to.equal(200);
    return r.json as T;
  };
  const sync = async () => { expect((await d.api("POST", "/api/v1/onchain/sync")).status).to.equal(200); };

  it("answers 422 No wallet set on every on-chain route without a wallet", async () => {
    for (const [m, p] of [["GET", "/api/v1/onchain/balance"], ["POST", "/api/v1/onchain/addresses/next"], ["GET", "/api/v1/onchain/utxos"],
      ["GET", "/api/v1/onchain/transactions"], ["POST", "/api/v1/onchain/sync"], ["GET", "/api/v1/fees/onchain"], ["GET", "/api/v1/bitcoin/tip"]] as const) {
      const r = await d.api(m, p);
      expect(r.status, p).to.equal(422);
      expect(r.json).to.deep.equal({ message: "No wallet set" });
    }
  });

  it("refuses to create a wallet whose chain source is unreachable or on another network, writing nothing", async () => {
    const before = readdirSync(d.datadir).sort();
    const down = await d.api("POST", "/api/v1/wallet/create", { body: wallet("http://127.0.0.1:9") });
    expect(down.status).to.equal(500);
    expect((down.json as { message: string }).message).to.match(/^Error while creating wallet: chain source http:\/\/127\.0\.0\.1:9 is unavailable/);
    const wrong = await d.api("POST", "/api/v1/wallet/create", { body: wallet(devnet.esploraUrl, "signet") });
    expect(wrong.status).to.equal(500);
    expect((wrong.json as { message: string }).message).to.contain("is on regtest, but the wallet is for signet");
    expect(readdirSync(d.datadir).sort()).to.deep.equal(before);
    expect((await d.api("GET", "/api/v1/wallet")).json).to.deep.equal({ fingerprint: null });
  });

  it("funds, confirms, sends, sends to many, re-broadcasts an evicted send, refuses bad input without changes, and drains", async () => {
    expect((await d.api("POST", "/api/v1/wallet/create", { body: wallet(devnet.esploraUrl) })).status).to.equal(200);
    expect(await get("/api/v1/bitcoin/tip")).to.deep.equal({ tip_height: devnet.node.tipHeight() });

    const { address } = await post<{ address: string }>("/api/v1/onchain/addresses/next");
    expect(address).to.match(/^bcrt1p[02-9ac-hj-np-z]{58}$/);
    const { address: second } = await post<{ address: string }>("/api/v1/onchain/addresses/next");
    expect(second).to.not.equal(address);

    const fundTxid = devnet.node.faucet(address, 500_000n);
    await sync();
    let b = await get<Balance>("/api/v1/onchain/balance");
    expect(b).to.deep.equal({ total_sat: 500_000, trusted_spendable_sat: 0, immature_sat: 0, trusted_pending_sat: 0, untrusted_pending_sat: 500_000, confirmed_sat: 0 });
    expect(await get<Utxo[]>("/api/v1/onchain/utxos")).to.deep.equal([{ outpoint: `${fundTxid}:${devnet.node.getTransaction(fundTxid)!.vout.findIndex((o) => o.amountSat === 500_000n)}`, amount_sat: 500_000, confirmation_height: null }]);
    devnet.node.mine(1);
    await sync();
    b = await get<Balance>("/api/v1/onchain/balance");
    expect(b).to.deep.equal({ total_sat: 500_000, trusted_spendable_sat: 500_000, immature_sat: 0, trusted_pending_sat: 0, untrusted_pending_sat: 0, confirmed_sat: 500_000 });
    expect((await get<Utxo[]>("/api/v1/onchain/utxos"))[0]!.confirmation_height).to.equal(devnet.node.tipHeight());

    const rates = await get<{ fast_sat_per_vb: number; regular_sat_per_vb: number; slow_sat_per_vb: number }>("/api/v1/fees/onchain");
    expect(rates.fast_sat_per_vb).to.be.at.least(rates.regular_sat_per_vb).and.at.least(1);
    expect(rates.regular_sat_per_vb).to.be.at.least(rates.slow_sat_per_vb);

    const { txid: sendTxid } = await post<{ txid: string }>("/api/v1/onchain/send", { destination: EXTERNAL, amount_sat: 100_000 });
    expect(devnet.node.getTransaction(sendTxid)?.status.confirmed).to.equal(false);
    const sentOut = devnet.node.getTransaction(sendTxid)!.vout.find((o) => o.address === EXTERNAL);
    expect(sentOut?.amountSat).to.equal(100_000n);

    const { txid: manyTxid } = await post<{ txid: string }>("/api/v1/onchain/send-many", {
      destinations: [`${EXTERNAL}:0.0005 BTC`, `${EXTERNAL}:20000 sat`], immediate: true,
    });
    const many = devnet.node.getTransaction(manyTxid)!;
    expect(many.vout.filter((o) => o.address === EXTERNAL).map((o) => o.amountSat).sort()).to.deep.equal([20_000n, 50_000n]);

    let txs = await get<TxInfo[]>("/api/v1/onchain/transactions");
    expect(txs.map((t) => t.txid)).to.deep.equal([fundTxid, sendTxid, manyTxid]);
    expect(txs[0]!.confirmation).to.deep.equal({ height: devnet.node.tipHeight(), hash: devnet.node.tipHash() });
    expect(txs[0]!.balance_change_sat).to.equal(500_000);
    for (const t of txs.slice(1)) {
      expect(t.confirmation).to.equal(null);
      expect(t.is_cpfp).to.equal(false);
      expect(t.onchain_fee_sat).to.be.a("number").and.above(0);
      expect(Transaction.fromHex(t.tx).getId()).to.equal(t.txid);
    }
    expect(txs[1]!.balance_change_sat).to.equal(-(100_000 + txs[1]!.onchain_fee_sat!));
    expect(txs[2]!.balance_change_sat).to.equal(-(70_000 + txs[2]!.onchain_fee_sat!));
    b = await get<Balance>("/api/v1/onchain/balance");
    expect(b.confirmed_sat).to.equal(0);
    expect(b.trusted_pending_sat).to.equal(500_000 - 170_000 - txs[1]!.onchain_fee_sat! - txs[2]!.onchain_fee_sat!);

    // An evicted wallet transaction (and its child) comes back with the next sync after the grace.
    expect(devnet.node.evict(sendTxid)).to.include.members([sendTxid, manyTxid]);
    await new Promise((r) => setTimeout(r, 1_600));
    await sync();
    expect(devnet.node.getTransaction(sendTxid)?.status.confirmed).to.equal(false);
    expect(devnet.node.getTransaction(manyTxid)?.status.confirmed).to.equal(false);

    // Bad input: 400 with barkd's messages, and nothing changes.
    const snapshot = async () => ({
      balance: await get<Balance>("/api/v1/onchain/balance"), utxos: await get<Utxo[]>("/api/v1/onchain/utxos"),
      txs: await get<TxInfo[]>("/api/v1/onchain/transactions"), mempool: devnet.node.getRawMempool().sort(),
    });
    const before = await snapshot();
    const refusals: [string, unknown, RegExp][] = [
      ["/api/v1/onchain/send", { destination: "not-an-address", amount_sat: 1_000 }, /^bad request: Invalid destination address/],
      ["/api/v1/onchain/send", { destination: MAINNET_ADDRESS, amount_sat: 1_000 }, /^bad request: Address is not valid for configured network/],
      ["/api/v1/onchain/send", { destination: EXTERNAL, amount_sat: 10_000_000 }, /Insufficient funds/],
      ["/api/v1/onchain/send-many", { destinations: [`${EXTERNAL}:1000`] }, /^bad request: invalid amount/],
      ["/api/v1/onchain/send-many", { destinations: [`${EXTERNAL}`] }, /^bad request: invalid destination format, expected address:amount$/],
      ["/api/v1/onchain/send-many", { destinations: [`${EXTERNAL}:1000 sat`, `${MAINNET_ADDRESS}:1000 sat`] }, /^bad request: Address is not valid for configured network/],
      ["/api/v1/onchain/drain", { destination: MAINNET_ADDRESS }, /^bad request: Address is not valid for configured network/],
    ];
    for (const [path, body, message] of refusals) {
      const r = await d.api("POST", path, { body });
      expect(r.status, `${path} ${JSON.stringify(body)}`).to.equal(400);
      expect((r.json as { message: string }).message).to.match(message);
    }
    expect(await snapshot()).to.deep.equal(before);

    devnet.node.mine(1);
    await sync();
    b = await get<Balance>("/api/v1/onchain/balance");
    expect(b.trusted_pending_sat).to.equal(0);
    expect(b.confirmed_sat).to.equal(before.balance.trusted_pending_sat);

    const { txid: drainTxid } = await post<{ txid: string }>("/api/v1/onchain/drain", { destination: EXTERNAL });
    const drained = devnet.node.getTransaction(drainTxid)!;
    expect(drained.vout).to.have.length(1);
    expect(drained.vout[0]!.amountSat + drained.feeSat!).to.equal(BigInt(b.confirmed_sat));
    expect(await get<Utxo[]>("/api/v1/onchain/utxos")).to.deep.equal([]);
    txs = await get<TxInfo[]>("/api/v1/onchain/transactions");
    expect(txs.at(-1)).to.include({ txid: drainTxid, balance_change_sat: -b.confirmed_sat, onchain_fee_sat: Number(drained.feeSat) });
  });

  it("works the same on the bitcoind RPC face (cookie auth), scanning from the wallet's birthday", async () => {
    const body = { network: "regtest", ark_server: "127.0.0.1:35035", chain_source: { bitcoind: { bitcoind: devnet.rpcUrl, bitcoind_auth: { cookie: { cookie: devnet.cookieFile } } } } };
    expect((await d.api("POST", "/api/v1/wallet/create", { body })).status).to.equal(200);
    expect(await get("/api/v1/bitcoin/tip")).to.deep.equal({ tip_height: devnet.node.tipHeight() });
    const { address } = await post<{ address: string }>("/api/v1/onchain/addresses/next");
    const fundTxid = devnet.node.faucet(address, 80_000n);
    devnet.node.mine(1);
    await sync();
    expect((await get<Balance>("/api/v1/onchain/balance")).confirmed_sat).to.equal(80_000);
    const { txid } = await post<{ txid: string }>("/api/v1/onchain/send", { destination: EXTERNAL, amount_sat: 30_000 });
    expect(devnet.node.getTransaction(txid)?.status.confirmed).to.equal(false);
    await sync();
    const txs = await get<TxInfo[]>("/api/v1/onchain/transactions");
    expect(txs.map((t) => t.txid)).to.deep.equal([fundTxid, txid]);
    expect(d.stderr()).to.match(/chain source: http:\/\/127\.0\.0\.1:\d+ \(wallet birthday \d+\)/);
  });

  it("answers 500 on sync and tip when the chain source goes down, while balance, utxos, transactions and fee rates still answer from memory", async () => {
    const lonely = await startDevnet({ seed: "onchain-e2e-down", premineBlocks: 1 });
    try {
      expect((await d.api("POST", "/api/v1/wallet/create", { body: wallet(lonely.esploraUrl) })).status).to.equal(200);
      await sync();
    } finally {
      await lonely.stop();
    }
    const synced = await d.api("POST", "/api/v1/onchain/sync");
    expect(synced.status).to.equal(500);
    expect((synced.json as { message: string }).message).to.contain("is unavailable");
    expect((await d.api("GET", "/api/v1/bitcoin/tip")).status).to.equal(500);
    const send = await d.api("POST", "/api/v1/onchain/send", { body: { destination: EXTERNAL, amount_sat: 1_000 } });
    expect(send.status).to.equal(400); // nothing to spend: refused before any network call
    expect(await get<Balance>("/api/v1/onchain/balance")).to.include({ total_sat: 0 });
    expect(await get<Utxo[]>("/api/v1/onchain/utxos")).to.deep.equal([]);
    expect(await get<TxInfo[]>("/api/v1/onchain/transactions")).to.deep.equal([]);
    expect((await d.api("GET", "/api/v1/fees/onchain")).status).to.equal(200);
  });

  it("re-opens the on-chain wallet for a wallet created again after a delete, from index 0 of the same seed", async () => {
    const body = { ...wallet(devnet.esploraUrl), mnemonic: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", birthday_height: 0 };
    const { fingerprint } = (await d.api("POST", "/api/v1/wallet/create", { body })).json as { fingerprint: string };
    const first = await post<{ address: string }>("/api/v1/onchain/addresses/next");
    expect(first.address).to.equal("bcrt1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqjeprhg");
    expect((await d.api("DELETE", "/api/v1/wallet", { body: { dangerous: true, fingerprint } })).status).to.equal(200);
    expect((await d.api("GET", "/api/v1/onchain/balance")).status).to.equal(422);
    expect((await d.api("POST", "/api/v1/wallet/create", { body })).status).to.equal(200);
    expect(await post<{ address: string }>("/api/v1/onchain/addresses/next")).to.deep.equal(first);
  });

  it("reports a coinbase paying the wallet as immature, listed without onchain_fee_sat (unknown)", async () => {
    expect((await d.api("POST", "/api/v1/wallet/create", { body: wallet(devnet.esploraUrl) })).status).to.equal(200);
    const { address } = await post<{ address: string }>("/api/v1/onchain/addresses/next");
    const [hash] = devnet.node.mine(1, address);
    await sync();
    const b = await get<Balance>("/api/v1/onchain/balance");
    expect(b.immature_sat).to.be.above(0);
    expect(b).to.include({ confirmed_sat: 0, trusted_spendable_sat: 0, total_sat: b.immature_sat });
    const [tx] = await get<TxInfo[]>("/api/v1/onchain/transactions");
    expect(tx!.confirmation).to.deep.equal({ height: devnet.node.tipHeight(), hash });
    expect(tx).to.not.have.property("onchain_fee_sat");
    expect(tx!.balance_change_sat).to.equal(b.immature_sat);
  });

  it("keeps addresses and transactions across a daemon restart", async () => {
    expect((await d.api("POST", "/api/v1/wallet/create", { body: wallet(devnet.esploraUrl) })).status).to.equal(200);
    const { address } = await post<{ address: string }>("/api/v1/onchain/addresses/next");
    devnet.node.faucet(address, 42_000n);
    devnet.node.mine(1);
    await sync();
    const txs = await get<TxInfo[]>("/api/v1/onchain/transactions");
    await d.stop();
    d = await startDaemon({ datadir: d.datadir, config: CONFIG });
    expect(await get<TxInfo[]>("/api/v1/onchain/transactions")).to.deep.equal(txs);
    expect((await get<Balance>("/api/v1/onchain/balance")).confirmed_sat).to.equal(42_000);
    const { address: next } = await post<{ address: string }>("/api/v1/onchain/addresses/next");
    expect(next).to.not.equal(address);
  });
});
