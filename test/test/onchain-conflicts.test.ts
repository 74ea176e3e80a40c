import { expect } from "chai";
import { address as btcAddress, networks } from "bitcoinjs-lib";
import { startDevnet, type Devnet } from "@tender/devnet";
import { Bip86Keychain, signSpend, type WalletUtxo } from "@tender/plugin-onchain";
import { generateMnemonic, masterKey } from "@tender/plugin-wallet";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";

/** The on-chain daemon with a re-broadcast grace no test outlives: every conflict here is found within it. */
const CONFIG = {
  plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-chain", "@tender/plugin-fees", "@tender/plugin-onchain"],
  pluginConfig: { onchain: { rebroadcastGraceMs: 600_000, syncIntervalMs: 3_600_000 }, chain: { retryAttempts: 2 } },
};
const EXTERNAL = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
const OTHER = "bcrt1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qzf4jry";

interface Balance { total_sat: number; trusted_spendable_sat: number; immature_sat: number; trusted_pending_sat: number; untrusted_pending_sat: number; confirmed_sat: number }
interface TxInfo { txid: string; balance_change_sat: number; confirmation: { height: number; hash: string } | null }
interface Utxo { outpoint: string; amount_sat: number; confirmation_height: number | null }

/**
 * A sync marks a wallet transaction conflicted as soon as a transaction in a block or in the
 * mempool spends one of its inputs: its outputs leave the balance and the coins at once, it leaves
 * GET /onchain/transactions, and the next send does not try to spend what no longer exists.
 */
describe("on-chain conflicts over HTTP on the devnet (RBF replacement, confirmed double-spend)", function () {
  this.timeout(60_000);
  let devnet: Devnet;
  let d: Daemon;
  let keychain: Bip86Keychain;

  before(async () => { devnet = await startDevnet({ seed: "onchain-conflicts-e2e" }); });
  after(async () => { await devnet.stop(); });
  beforeEach(async () => {
    const mnemonic = generateMnemonic();
    keychain = new Bip86Keychain(masterKey(mnemonic), "regtest");
    keychain.deriveUpTo(40);
    d = await startDaemon({ config: CONFIG });
    const body = { network: "regtest", ark_server: "127.0.0.1:35035", chain_source: { esplora: { url: devnet.esploraUrl } }, mnemonic, birthday_height: 0 };
    expect((await d.api("POST", "/api/v1/wallet/create", { body })).status).to.equal(200);
  });
  afterEach(async () => {
    await d.stop();
    cleanup(d.datadir);
  });

  const get = async <T>(path: string): Promise<T> => (await d.api("GET", path)).json as T;
  const post = async (path: string, body?: unknown) => d.api("POST", path, body === undefined ? {} : { body });
  const sync = async () => expect((await post("/api/v1/onchain/sync")).status).to.equal(200);
  const send = async (amount: number): Promise<string> => {
    const r = await post("/api/v1/onchain/send", { destination: EXTERNAL, amount_sat: amount });
    expect(r.status, r.text).to.equal(200);
    return (r.json as { txid: string }).txid;
  };
  /** A confirmed coin of the wallet of `amount`, as the conflicts below spend it. */
  const fundedCoin = async (amount: bigint): Promise<WalletUtxo> => {
    const { address } = (await post("/api/v1/onchain/addresses/next")).json as { address: string };
    const txid = devnet.node.faucet(address, amount);
    devnet.node.mine(1);
    await sync();
    const vout = devnet.node.getTransaction(txid)!.vout.findIndex((o) => o.address === address);
    const keyIndex = keychain.indexOfScript(Buffer.from(btcAddress.toOutputScript(address, networks.regtest)).toString("hex"))!;
    return { txid, vout, valueSat: amount, keyIndex, script: keychain.key(keyIndex).script, confirmationHeight: devnet.node.tipHeight(), trusted: false, isCoinbase: false };
  };
  /** A transaction of the wallet's own keys spending `coin` elsewhere: what another copy of the wallet (or a fee bump by one) would broadcast. */
  const doubleSpend = (coin: WalletUtxo, feeSat: bigint) =>
    signSpend({ inputs: [coin], outputs: [{ script: btcAddress.toOutputScript(OTHER, networks.regtest), valueSat: coin.valueSat - feeSat }] }, keychain, keychain.network);

  it("a send replaced in the mempool leaves balance, coins and history at the next sync; the next send spends only what exists", async () => {
    const coin = await fundedCoin(400_000n);
    const sent = await send(100_000);
    expect((await get<Balance>("/api/v1/onchain/balance")).trusted_pending_sat).to.be.above(0);
    const replacement = doubleSpend(coin, 30_000n);
    expect(devnet.node.submitTransaction(replacement.hex)).to.equal(replacement.txid);

    await sync();
    expect(await get<Balance>("/api/v1/onchain/balance")).to.deep.equal({
      total_sat: 0, trusted_spendable_sat: 0, immature_sat: 0, trusted_pending_sat: 0, untrusted_pending_sat: 0, confirmed_sat: 0,
    });
    expect(await get<Utxo[]>("/api/v1/onchain/utxos")).to.deep.equal([]);
    const txs = await get<TxInfo[]>("/api/v1/onchain/transactions");
    expect(txs.map((t) => t.txid)).to.deep.equal([coin.txid, replacement.txid]);
    expect(txs[1]!.balance_change_sat).to.equal(-400_000);

    const next = await post("/api/v1/onchain/send", { destination: EXTERNAL, amount_sat: 10_000 });
    expect(next.status).to.equal(400);
    expect((next.json as { message: string }).message).to.match(/Insufficient funds/);
  });

  it("a send and its child whose input a block double-spent (replace-confirmed) leave at once; the other coins pay the next send", async () => {
    const coin = await fundedCoin(300_000n);
    const other = await fundedCoin(90_000n);
    const parent = await send(200_000); // spends the larger coin only
    const child = await send(100_000); // spends the parent's change and the other coin
    const conflict = doubleSpend(coin, 8_000n);
    const res = await fetch(`${devnet.controlUrl}/replace-confirmed`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ txid: parent, conflict_hex: conflict.hex }),
    });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { removed: string[] }).removed).to.have.members([parent, child]);

    await sync();
    const listed = (await get<TxInfo[]>("/api/v1/onchain/transactions")).map((t) => t.txid);
    expect(listed).to.include(conflict.txid).and.not.include(parent).and.not.include(child);
    expect(await get<Utxo[]>("/api/v1/onchain/utxos")).to.deep.equal([{ outpoint: `${other.txid}:${other.vout}`, amount_sat: 90_000, confirmation_height: other.confirmationHeight }]);
    expect(await get<Balance>("/api/v1/onchain/balance")).to.include({ confirmed_sat: 90_000, trusted_pending_sat: 0, total_sat: 90_000 });

    const next = await send(50_000);
    expect(devnet.node.getTransaction(next)?.status.confirmed).to.equal(false);
  });
});
