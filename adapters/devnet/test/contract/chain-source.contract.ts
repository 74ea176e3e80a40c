import { createHash } from "node:crypto";
import { expect } from "chai";
import {
  ChainSourceInvalidRequestError,
  ChainSourceRejectedError,
  ChainSourceUnavailableError,
  type ChainSource,
} from "@tender/core";
import { deadUrl, FAST_RETRY, fundWallet, hangingServer, mine, rejectsWith, type ContractBackend } from "./contract-backend.js";
import { TestWallet, type Coin } from "./test-wallet.js";

const sha256d = (b: Buffer): Buffer => createHash("sha256").update(createHash("sha256").update(b).digest()).digest();

/**
 * The behaviour every {@link ChainSource} must show, run against a live regtest backend
 * (the devnet's faces, or a real bitcoind).
 */
export function chainSourceContract(title: string, start: () => Promise<ContractBackend>): void {
  describe(`ChainSource contract: ${title}`, function () {
    this.timeout(60_000);
    let backend: ContractBackend;
    let source: ChainSource;
    let coins: Coin[];
    const wallet = new TestWallet(`contract-${title}`);
    const take = (): Coin => {
      const c = coins.shift();
      if (!c) throw new Error("test ran out of coins");
      return c;
    };

    before(async () => {
      backend = await start();
      source = backend.source();
      coins = await fundWallet(backend.rpc, wallet, 16);
    });
    after(async () => {
      await backend?.teardown();
    });

    it("reports the regtest network", async () => {
      expect(await source.getNetwork()).to.equal("regtest");
    });

    it("reports the tip and follows it as blocks are mined", async () => {
      const before = await source.getTip();
      expect(before.height).to.equal(await backend.rpc.call("getblockcount"));
      expect(before.hash).to.equal(await backend.rpc.call("getbestblockhash"));
      const [mined] = await mine(backend.rpc, 1);
      const after = await source.getTip();
      expect(after).to.deep.equal({ height: before.height + 1, hash: mined });
    });

    it("serves block hashes, headers that hash to the block, txids and raw blocks", async () => {
      const tip = await source.getTip();
      expect(await source.getBlockHash(tip.height)).to.equal(tip.hash);
      expect(await source.getBlockHash(tip.height + 1000)).to.equal(null);
      const header = (await source.getBlockHeader(tip.hash))!;
      expect(header.height).to.equal(tip.height);
      expect(header.previousBlockHash).to.equal(await source.getBlockHash(tip.height - 1));
      expect(sha256d(Buffer.from(header.headerHex, "hex")).reverse().toString("hex")).to.equal(tip.hash);
      expect(header.bits).to.equal(0x207fffff);
      const txids = (await source.getBlockTxids(tip.hash))!;
      expect(txids.length).to.be.greaterThan(0);
      const raw = (await source.getRawBlock(tip.hash))!;
      expect(raw.startsWith(header.headerHex)).to.equal(true);
      const genesis = (await source.getBlockHeader((await source.getBlockHash(0))!))!;
      expect(genesis.previousBlockHash).to.equal(null);
    });

    it("answers null for unknown blocks and transactions", async () => {
      const unknown = "11".repeat(32);
      expect(await source.getBlockHeader(unknown)).to.equal(null);
      expect(await source.getBlockTxids(unknown)).to.equal(null);
      expect(await source.getRawBlock(unknown)).to.equal(null);
      expect(await source.getTx(unknown)).to.equal(null);
      expect(await source.getTxStatus(unknown)).to.equal(null);
      expect(await source.isInMempool(unknown)).to.equal(false);
      expect(await source.getOutspends(unknown)).to.equal(null);
    });

    it("moves a broadcast transaction from the mempool to confirmed", async () => {
      const coin = take();
      const tx = wallet.spend([coin], [{ address: wallet.address, valueSat: coin.valueSat - 500n }]);
      expect(await source.broadcast(tx.hex)).to.equal(tx.txid);
      expect(await source.getTxStatus(tx.txid)).to.deep.equal({ confirmed: false });
      expect(await source.isInMempool(tx.txid)).to.equal(true);
      expect((await source.getTx(tx.txid))?.hex).to.equal(tx.hex);
      const [hash] = await mine(backend.rpc, 1);
      const header = (await source.getBlockHeader(hash!))!;
      expect(await source.getTxStatus(tx.txid)).to.deep.equal({ confirmed: true, block: { height: header.height, hash }, blockTime: header.time });
      expect(await source.isInMempool(tx.txid)).to.equal(false);
      expect(await source.getBlockTxids(hash!)).to.include(tx.txid);
    });

    it("reports who spends an output, in the mempool and once confirmed", async () => {
      const coin = take();
      expect(await source.getOutspend(coin.txid, coin.vout)).to.deep.equal({ spent: false });
      const tx = wallet.spend([coin], [{ address: wallet.address, valueSat: coin.valueSat - 400n }]);
      await source.broadcast(tx.hex);
      expect(await source.getOutspend(coin.txid, coin.vout)).to.deep.equal({ spent: true, txid: tx.txid, vin: 0, status: { confirmed: false } });
      const [hash] = await mine(backend.rpc, 1);
      const spend = await source.getOutspend(coin.txid, coin.vout);
      expect(spend.spent && spend.status.confirmed && spend.status.block.hash).to.equal(hash);
      const all = (await source.getOutspends(coin.txid))!;
      expect(all).to.have.length(16);
      expect(all[coin.vout]).to.deep.equal(spend);
      expect(all.filter((s) => !s.spent).length).to.be.greaterThan(0);
      expect(await source.getOutspends(tx.txid)).to.deep.equal([{ spent: false }]);
    });

    it("lists UTXOs and history of an address and of its script, mempool included", async () => {
      const payee = new TestWallet(`payee-${title}`);
      const a = take();
      const b = take();
      const first = wallet.spend([a], [{ address: payee.address, valueSat: 70_000n }, { address: wallet.address, valueSat: a.valueSat - 71_000n }]);
      await source.broadcast(first.hex);
      await mine(backend.rpc, 1);
      const second = wallet.spend([b], [{ address: payee.address, valueSat: 30_000n }, { address: wallet.address, valueSat: b.valueSat - 31_000n }]);
      await source.broadcast(second.hex);
      for (const query of [{ address: payee.address }, { scriptPubKeyHex: payee.scriptHex }]) {
        const utxos = await source.getScriptUtxos(query);
        const byTxid = new Map(utxos.map((u) => [u.txid, u]));
        expect(utxos).to.have.length(2);
        expect(byTxid.get(first.txid)).to.include({ vout: 0, valueSat: 70_000n });
        expect(byTxid.get(first.txid)?.status.confirmed).to.equal(true);
        expect(byTxid.get(second.txid)).to.deep.include({ vout: 0, valueSat: 30_000n, status: { confirmed: false } });
        const history = await source.getScriptHistory(query);
        expect(history.map((h) => h.txid)).to.deep.equal([second.txid, first.txid]);
      }
      const spendAll = payee.spend([{ txid: first.txid, vout: 0, valueSat: 70_000n }], [{ address: wallet.address, valueSat: 69_000n }]);
      await source.broadcast(spendAll.hex);
      const left = await source.getScriptUtxos({ address: payee.address });
      expect(left.map((u) => u.txid)).to.deep.equal([second.txid]);
      const history = await source.getScriptHistory({ address: payee.address });
      expect(history.map((h) => h.txid)).to.have.members([spendAll.txid, second.txid, first.txid]);
      expect(history[history.length - 1]!.txid).to.equal(first.txid);
      expect(await source.getScriptUtxos({ address: new TestWallet("never-paid").address })).to.deep.equal([]);
    });

    it("surfaces the backend's reason when a transaction is rejected", async () => {
      const coin = take();
      const noFee = wallet.spend([coin], [{ address: wallet.address, valueSat: coin.valueSat }]);
      const low = await rejectsWith(source.broadcast(noFee.hex), ChainSourceRejectedError);
      expect(low.reason).to.match(/min relay fee not met/);
      const missing = wallet.spend([{ txid: "22".repeat(32), vout: 0, valueSat: 10_000n }], [{ address: wallet.address, valueSat: 9_000n }]);
      const gone = await rejectsWith(source.broadcast(missing.hex), ChainSourceRejectedError);
      expect(gone.reason).to.match(/missingorspent|missing/);
      expect(gone.message).to.include(source.label);
    });

    it("relays a zero-fee v3 parent together with its fee-paying child, not alone", async () => {
      const coin = take();
      const parent = wallet.spend([coin], [{ address: wallet.address, valueSat: coin.valueSat }], { version: 3 });
      const alone = await rejectsWith(source.broadcast(parent.hex), ChainSourceRejectedError);
      expect(alone.reason).to.match(/fee/);
      const child = wallet.spend([{ txid: parent.txid, vout: 0, valueSat: coin.valueSat }], [{ address: wallet.address, valueSat: coin.valueSat - 5_000n }], { version: 3 });
      const result = await source.broadcastPackage([parent.hex, child.hex]);
      expect(result.txids).to.deep.equal([parent.txid, child.txid]);
      expect(await source.isInMempool(parent.txid)).to.equal(true);
      expect(await source.isInMempool(child.txid)).to.equal(true);
    });

    it("gives fee estimates as positive sat/vB rates for the asked targets", async () => {
      if (backend.setFeeEstimates) await backend.setFeeEstimates({ 1: 30, 3: 12, 6: 4 });
      const rates = await source.getFeeEstimates([1, 3, 6]);
      for (const [target, rate] of rates) {
        expect([1, 3, 6]).to.include(target);
        expect(rate).to.be.greaterThan(0);
      }
      if (backend.setFeeEstimates) expect([...rates]).to.deep.equal([[1, 30], [3, 12], [6, 4]]);
      else console.log(`      (fee values not checked: ${title} cannot set estimates; got ${rates.size})`);
    });

    it("refuses malformed ids before sending anything", async () => {
      await rejectsWith(source.getTx("xyz"), ChainSourceInvalidRequestError);
      await rejectsWith(source.getOutspend("11".repeat(32), -1), ChainSourceInvalidRequestError);
      await rejectsWith(source.broadcast("not hex"), ChainSourceInvalidRequestError);
    });

    it("fails with ChainSourceUnavailableError naming the URL after retrying a down source", async () => {
      const url = await deadUrl();
      const down = backend.sourceAt(url, { timeoutMs: 2_000, retry: FAST_RETRY });
      const err = await rejectsWith(down.getTip(), ChainSourceUnavailableError);
      expect(err.attempts).to.equal(FAST_RETRY.attempts);
      expect(err.kind).to.equal("connection");
      expect(err.message).to.include(url);
      if (backend.secret) expect(err.message).to.not.include(backend.secret);
    });

    it("turns unavailable, after its retries, when its server stops", async function () {
      if (!backend.disposable) {
        console.log(`      (skipped: ${title} cannot start a second backend to stop)`);
        this.skip();
      }
      const second = await backend.disposable();
      expect((await second.source.getTip()).height).to.be.a("number");
      await second.stop();
      const err = await rejectsWith(second.source.getTip(), ChainSourceUnavailableError);
      expect(err.attempts).to.equal(FAST_RETRY.attempts);
      expect(err.message).to.include(second.source.label);
    });

    it("times out a source that never answers", async () => {
      const hang = await hangingServer();
      try {
        const slow = backend.sourceAt(hang.url, { timeoutMs: 150, retry: { ...FAST_RETRY, attempts: 2 } });
        const t0 = Date.now();
        const err = await rejectsWith(slow.getTip(), ChainSourceUnavailableError);
        expect(err.kind).to.equal("timeout");
        expect(err.attempts).to.equal(2);
        expect(Date.now() - t0).to.be.lessThan(5_000);
      } finally {
        await hang.close();
      }
    });
  });
}
