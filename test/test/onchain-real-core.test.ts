import { expect } from "chai";
import { readdirSync } from "node:fs";
import { Transaction, address as btcAddress, networks } from "bitcoinjs-lib";
import { TestWallet, regtestRpc, startBitcoind, type RegtestRpc, type RunningBitcoind } from "@tender/core/testing";
import { Bip86Keychain, signSpend, type WalletUtxo } from "@tender/plugin-onchain";
import { generateMnemonic, masterKey } from "@tender/plugin-wallet";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { TcpSwitch } from "../src/tcp-switch.js";

const exe = process.env.BITCOIND_EXE;

/** Background sync off (each step syncs itself); a re-broadcast grace no test outlives, so every conflict is found within it. */
const CONFIG = {
  plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-chain", "@tender/plugin-fees", "@tender/plugin-onchain"],
  pluginConfig: { onchain: { rebroadcastGraceMs: 600_000, syncIntervalMs: 3_600_000 }, chain: { retryAttempts: 2, timeoutMs: 10_000 } },
};
const WATCH = "tender-watch";

interface Balance { total_sat: number; trusted_spendable_sat: number; immature_sat: number; trusted_pending_sat: number; untrusted_pending_sat: number; confirmed_sat: number }
interface TxInfo { txid: string; tx: string; onchain_fee_sat?: number; balance_change_sat: number; confirmation: { height: number; hash: string } | null }
interface Utxo { outpoint: string; amount_sat: number; confirmation_height: number | null }

const sat = (btc: number): number => Math.round(btc * 1e8);

/**
 * The daemon's on-chain wallet with a bitcoind chain source against a real Bitcoin Core, as an
 * integrator drives it, checked against Core's own RPC: a watch-only wallet in Core holding the
 * daemon's keys must agree on balances and coins after every step (fund, send, send-many, a
 * coinbase maturing, an RBF replacement, a confirmed double-spend, a reorg there and back, drain,
 * restore from mnemonic + birthday), and a send with Core unreachable must not pay twice.
 */
describe("on-chain wallet with a bitcoind chain source against a real Bitcoin Core", function () {
  this.timeout(180_000);
  if (!exe) {
    it("drives the daemon's on-chain wallet against Bitcoin Core", function () {
      console.log("      skipped: BITCOIND_EXE is not set (point it at a bitcoind binary to run the daemon's on-chain wallet against Bitcoin Core)");
      this.skip();
    });
    return;
  }

  let core: RunningBitcoind;
  let rpc: RegtestRpc;
  let watch: RegtestRpc;
  let sw: TcpSwitch;
  let d: Daemon;
  const mnemonic = generateMnemonic();
  const keychain = new Bip86Keychain(masterKey(mnemonic), "regtest");
  keychain.deriveUpTo(60);
  const miner = new TestWallet("real-core-e2e-miner");
  const payee = new TestWallet("real-core-e2e-payee");
  let minerCoins: { txid: string; vout: number; valueSat: bigint }[] = [];
  let birthday = 0;

  const chainSource = () => ({ bitcoind: { bitcoind: sw.urlFor(core.url), bitcoind_auth: { cookie: { cookie: core.cookieFile } } } });
  const get = async <T>(path: string): Promise<T> => {
    const r = await d.api("GET", path);
    expect(r.status, `${path}: ${r.text}`).to.equal(200);
    return r.json as T;
  };
  const post = async (path: string, body?: unknown) => d.api("POST", path, body === undefined ? {} : { body });
  const sync = async () => {
    const r = await post("/api/v1/onchain/sync");
    expect(r.status, r.text).to.equal(200);
  };
  const mine = async (n: number, to = miner.address) => (await rpc.call("generatetoaddress", [n, to])) as string[];
  const tip = async () => (await rpc.call("getblockcount")) as number;
  const send = async (path: string, body: unknown): Promise<string> => {
    const r = await post(path, body);
    expect(r.status, `${path}: ${r.text}`).to.equal(200);
    return (r.json as { txid: string }).txid;
  };
  /** A coin of the miner, spent to `payees` with the change back. */
  const minerPays = async (to: string, valueSat: bigint): Promise<string> => {
    const coin = minerCoins.shift()!;
    const tx = miner.spend([coin], [{ address: to, valueSat }, { address: miner.address, valueSat: coin.valueSat - valueSat - 2_000n }]);
    await rpc.call("sendrawtransaction", [tx.hex]);
    return tx.txid;
  };

  /** Syncs the daemon, then checks its balance and coins against Core's watch-only wallet of the same keys. */
  const agreeWithCore = async (step: string) => {
    await sync();
    await rpc.call("syncwithvalidationinterfacequeue");
    const b = await get<Balance>("/api/v1/onchain/balance");
    const cb = ((await watch.call("getbalances")) as { mine: { trusted: number; untrusted_pending: number; immature: number } }).mine;
    expect({ trusted: b.trusted_spendable_sat, untrusted_pending: b.untrusted_pending_sat, immature: b.immature_sat }, `${step}: balance`)
      .to.deep.equal({ trusted: sat(cb.trusted), untrusted_pending: sat(cb.untrusted_pending), immature: sat(cb.immature) });
    const coins = (await get<Utxo[]>("/api/v1/onchain/utxos")).map((u) => `${u.outpoint} ${u.amount_sat}`).sort();
    const unspent = (await watch.call("listunspent", [0])) as Array<{ txid: string; vout: number; amount: number }>;
    const immature = (await watch.call("listtransactions", ["*", 1000, 0])) as Array<{ category: string; txid: string; vout: number; amount: number }>;
    const coreCoins = [
      ...unspent.map((u) => `${u.txid}:${u.vout} ${sat(u.amount)}`),
      ...immature.filter((t) => t.category === "immature").map((t) => `${t.txid}:${t.vout} ${sat(t.amount)}`),
    ].sort();
    expect(coins, `${step}: coins`).to.deep.equal(coreCoins);
    return b;
  };

  /** The wallet coins a wallet transaction spends, as `signSpend` takes them. */
  const inputsOf = async (txid: string): Promise<WalletUtxo[]> => {
    const raw = (await rpc.call("getrawtransaction", [txid, true])) as { vin: Array<{ txid: string; vout: number }> };
    return Promise.all(raw.vin.map(async (i) => {
      const prev = (await rpc.call("getrawtransaction", [i.txid, true])) as { vout: Array<{ value: number; scriptPubKey: { hex: string } }> };
      const out = prev.vout[i.vout]!;
      const keyIndex = keychain.indexOfScript(out.scriptPubKey.hex);
      expect(keyIndex, `input ${i.txid}:${i.vout} is the wallet's`).to.not.equal(undefined);
      return { txid: i.txid, vout: i.vout, valueSat: BigInt(sat(out.value)), keyIndex: keyIndex!, script: keychain.key(keyIndex!).script, confirmationHeight: 1, trusted: true, isCoinbase: false };
    }));
  };
  /**
   * A fee bump of wallet transaction `txid` by another copy of the wallet: the same inputs and
   * payments, its change smaller by `extraFeeSat` — it conflicts with `txid`.
   */
  const doubleSpendOf = async (txid: string, extraFeeSat: bigint) => {
    const inputs = await inputsOf(txid);
    const original = Transaction.fromHex(((await rpc.call("getrawtransaction", [txid, true])) as { hex: string }).hex);
    const change = original.outs.findIndex((o) => keychain.indexOfScript(Buffer.from(o.script).toString("hex")) !== undefined);
    expect(change, `${txid} has change`).to.be.at.least(0);
    const outputs = original.outs.map((o, i) => ({ script: o.script, valueSat: i === change ? o.value - extraFeeSat : o.value }));
    return signSpend({ inputs, outputs }, keychain, keychain.network);
  };
  const listed = async () => (await get<TxInfo[]>("/api/v1/onchain/transactions")).map((t) => t.txid);

  before(async () => {
    core = await startBitcoind(exe, { wallet: true });
    rpc = regtestRpc(core.url, { cookieFile: core.cookieFile });
    const hashes = await mine(110);
    for (const h of hashes.slice(0, 10)) {
      const block = (await rpc.call("getblock", [h, 2])) as { tx: Array<{ txid: string; vout: Array<{ value: number }> }> };
      minerCoins.push({ txid: block.tx[0]!.txid, vout: 0, valueSat: BigInt(sat(block.tx[0]!.vout[0]!.value)) });
    }
    await rpc.call("createwallet", [WATCH, true, true, "", false, true, true]);
    watch = regtestRpc(`${core.url}/wallet/${WATCH}`, { cookieFile: core.cookieFile });
    const descriptors = [];
    for (let i = 0; i < 60; i++) {
      const info = (await rpc.call("getdescriptorinfo", [`tr(${Buffer.from(keychain.key(i).internalKey).toString("hex")})`])) as { descriptor: string };
      descriptors.push({ desc: info.descriptor, timestamp: "now" });
    }
    const imported = (await watch.call("importdescriptors", [descriptors])) as Array<{ success: boolean }>;
    expect(imported.every((r) => r.success)).to.equal(true);
    sw = await TcpSwitch.start(core.url);
    birthday = await tip();
    d = await startDaemon({ config: CONFIG });
  });
  after(async () => {
    await d?.stop();
    if (d) cleanup(d.datadir);
    await sw?.down();
    await core?.stop();
  });

  it("refuses to create a wallet whose bitcoind is unreachable, on another network, or refuses the credentials: barkd's 500, nothing written", async () => {
    const before = readdirSync(d.datadir).sort();
    const attempt = async (chain_source: unknown, network = "regtest") => {
      const r = await d.api("POST", "/api/v1/wallet/create", { body: { network, ark_server: "127.0.0.1:35035", chain_source, mnemonic, birthday_height: birthday } });
      return { status: r.status, message: (r.json as { message?: string } | undefined)?.message ?? r.text };
    };
    const unreachable = await attempt({ bitcoind: { bitcoind: "http://127.0.0.1:9", bitcoind_auth: { cookie: { cookie: core.cookieFile } } } });
    expect(unreachable.status).to.equal(500);
    expect(unreachable.message).to.match(/^Error while creating wallet: chain source http:\/\/127\.0\.0\.1:9 is unavailable/);
    const wrongNetwork = await attempt(chainSource(), "signet");
    expect(wrongNetwork.status).to.equal(500);
    expect(wrongNetwork.message).to.match(/^Error while creating wallet: .*is on regtest, but the wallet is for signet/);
    const badPass = await attempt({ bitcoind: { bitcoind: core.url, bitcoind_auth: { "user-pass": { user: core.rpcUser.user, pass: "wrong" } } } });
    expect(badPass.status).to.equal(500);
    expect(badPass.message).to.match(/^Error while creating wallet: .*authentication failed/);
    expect(badPass.message).to.not.contain("wrong");
    expect(readdirSync(d.datadir).sort()).to.deep.equal(before);
  });

  it("funds, sends, sends to many and matures a coinbase as Core's wallet of the same keys sees them", async () => {
    const created = await d.api("POST", "/api/v1/wallet/create", { body: { network: "regtest", ark_server: "127.0.0.1:35035", chain_source: chainSource(), mnemonic, birthday_height: birthday } });
    expect(created.status, created.text).to.equal(200);
    const { address: a0 } = (await post("/api/v1/onchain/addresses/next")).json as { address: string };
    const { address: a1 } = (await post("/api/v1/onchain/addresses/next")).json as { address: string };
    const funding = await minerPays(a0, 100_000_000n);
    let b = await agreeWithCore("payment in the mempool");
    expect(b.untrusted_pending_sat).to.equal(100_000_000);
    await mine(1, a1); // a coinbase to the wallet: immature
    b = await agreeWithCore("payment mined, coinbase immature");
    expect(b.confirmed_sat).to.equal(100_000_000);
    expect(b.immature_sat).to.be.above(0);

    const sent = await send("/api/v1/onchain/send", { destination: payee.address, amount_sat: 20_000_000 });
    const entry = (await rpc.call("getmempoolentry", [sent])) as { fees: { base: number }; vsize: number };
    const info = (await get<TxInfo[]>("/api/v1/onchain/transactions")).find((t) => t.txid === sent)!;
    expect(info.onchain_fee_sat).to.equal(sat(entry.fees.base));
    expect(info.balance_change_sat).to.equal(-(20_000_000 + info.onchain_fee_sat!));
    const many = await send("/api/v1/onchain/send-many", { destinations: [`${payee.address}:0.05 BTC`, `${payee.address}:30000 sat`] });
    const manyTx = (await rpc.call("getrawtransaction", [many, true])) as { vout: Array<{ value: number; scriptPubKey: { address?: string } }> };
    expect(manyTx.vout.filter((o) => o.scriptPubKey.address === payee.address).map((o) => sat(o.value)).sort()).to.deep.equal([30_000, 5_000_000]);
    await agreeWithCore("send and send-many in the mempool");

    await mine(100);
    b = await agreeWithCore("mined, coinbase mature");
    expect(b.immature_sat).to.equal(0);
    const txs = await get<TxInfo[]>("/api/v1/onchain/transactions");
    for (const t of txs) {
      const raw = (await rpc.call("getrawtransaction", [t.txid, true])) as { blockhash: string; hex: string };
      const header = (await rpc.call("getblockheader", [raw.blockhash])) as { height: number };
      expect(t.confirmation, t.txid).to.deep.equal({ height: header.height, hash: raw.blockhash });
      expect(t.tx).to.equal(raw.hex);
    }
    expect(txs.map((t) => t.txid)).to.include.members([funding, sent, many]);
  });

  it("drops a send replaced in Core's mempool (RBF) at the next sync, within the re-broadcast grace", async () => {
    const sent = await send("/api/v1/onchain/send", { destination: payee.address, amount_sat: 10_000_000 });
    await agreeWithCore("send in the mempool");
    const replacement = await doubleSpendOf(sent, 50_000n);
    expect(await rpc.call("sendrawtransaction", [replacement.hex])).to.equal(replacement.txid);
    await agreeWithCore("send replaced");
    expect(await listed()).to.include(replacement.txid).and.not.include(sent);
    await mine(1);
    await agreeWithCore("replacement mined");
  });

  it("drops a send at once when a block holds a double-spend of its input; the next send spends only coins that exist", async () => {
    const sent = await send("/api/v1/onchain/send", { destination: payee.address, amount_sat: 5_000_000 });
    const conflict = await doubleSpendOf(sent, 20_000n);
    await rpc.call("generateblock", [miner.address, [conflict.hex]]);
    expect((await rpc.call("getrawmempool")) as string[]).to.not.include(sent);
    const b = await agreeWithCore("double-spend mined");
    expect(await listed()).to.include(conflict.txid).and.not.include(sent);
    const next = await send("/api/v1/onchain/send", { destination: payee.address, amount_sat: Math.floor(b.trusted_spendable_sat / 4) });
    expect(((await rpc.call("getrawmempool")) as string[])).to.include(next);
    await mine(1);
    await agreeWithCore("next send mined");
  });

  it("follows a reorg that replaces a mined send by a confirmed double-spend, and the reorg back", async () => {
    const sent = await send("/api/v1/onchain/send", { destination: payee.address, amount_sat: 7_000_000 });
    const [blockX] = await mine(1);
    await agreeWithCore("send mined");
    await rpc.call("invalidateblock", [blockX]);
    expect((await rpc.call("getrawmempool")) as string[]).to.include(sent);
    const conflict = await doubleSpendOf(sent, 30_000n);
    const { hash: blockY } = (await rpc.call("generateblock", [miner.address, [conflict.hex]])) as { hash: string };
    await agreeWithCore("reorged to a double-spend");
    expect(await listed()).to.include(conflict.txid).and.not.include(sent);

    // back to the chain holding the send: the double-spend's block is invalidated, the send's reconsidered
    await rpc.call("invalidateblock", [blockY]);
    await rpc.call("reconsiderblock", [blockX]);
    expect(((await rpc.call("getbestblockhash")) as string)).to.equal(blockX);
    await agreeWithCore("reorged back");
    const txs = await get<TxInfo[]>("/api/v1/onchain/transactions");
    expect(txs.map((t) => t.txid)).to.include(sent).and.not.include(conflict.txid);
    expect(txs.find((t) => t.txid === sent)!.confirmation?.hash).to.equal(blockX);
    await rpc.call("reconsiderblock", [blockY]);
    await mine(1);
    await agreeWithCore("one block later");
  });

  it("with Core unreachable, a send fails and keeps nothing; once Core is back the client's retry pays once", async () => {
    const body = { destination: payee.address, amount_sat: 3_333_333 };
    await sw.down();
    const failed = await post("/api/v1/onchain/send", body);
    await sw.up();
    await sync();
    const retried = await send("/api/v1/onchain/send", body);
    await mine(1);
    await agreeWithCore("after the retry");
    const payments = [];
    for (const t of await get<TxInfo[]>("/api/v1/onchain/transactions")) {
      const paid = Transaction.fromHex(t.tx).outs.filter((o) => Buffer.from(o.script).toString("hex") === payee.scriptHex && o.value === 3_333_333n);
      if (paid.length > 0) payments.push(t.txid);
    }
    expect(payments, "paid once").to.deep.equal([retried]);
    expect(failed.status).to.equal(500);
    expect((failed.json as { message: string }).message).to.match(/nothing was broadcast or spent$/);
  });

  it("drains to one output, then a restore from the mnemonic and birthday finds the same history as Core", async () => {
    const before = await get<Balance>("/api/v1/onchain/balance");
    const drained = await send("/api/v1/onchain/drain", { destination: payee.address });
    const raw = (await rpc.call("getrawtransaction", [drained, true])) as { vout: Array<{ value: number }> };
    expect(raw.vout).to.have.length(1);
    await mine(1);
    const b = await agreeWithCore("drained");
    expect(b.total_sat).to.equal(0);
    expect(sat(raw.vout[0]!.value)).to.be.below(before.trusted_spendable_sat);
    const history = await get<TxInfo[]>("/api/v1/onchain/transactions");

    const { fingerprint } = (await d.api("GET", "/api/v1/wallet")).json as { fingerprint: string };
    expect((await d.api("DELETE", "/api/v1/wallet", { body: { dangerous: true, fingerprint } })).status).to.equal(200);
    const restored = await d.api("POST", "/api/v1/wallet/create", { body: { network: "regtest", ark_server: "127.0.0.1:35035", chain_source: chainSource(), mnemonic, birthday_height: birthday } });
    expect(restored.status, restored.text).to.equal(200);
    await agreeWithCore("restored");
    const again = await get<TxInfo[]>("/api/v1/onchain/transactions");
    expect(again.map((t) => [t.txid, t.balance_change_sat, t.confirmation]).sort()).to.deep.equal(history.map((t) => [t.txid, t.balance_change_sat, t.confirmation]).sort());
  });
});
