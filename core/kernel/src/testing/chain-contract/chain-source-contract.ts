import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { ChainSourceInvalidRequestError, ChainSourceRejectedError, ChainSourceUnavailableError } from "../../chain/chain-errors.js";
import type { ChainSource } from "../../chain/chain-source.js";
import { deadUrl, FAST_RETRY, fundWallet, hangingServer, mine, rejectsWith, type ContractBackend } from "./contract-backend.js";
import { TestWallet, type Coin } from "./test-wallet.js";

const sha256d = (b: Buffer): Buffer => createHash("sha256").update(createHash("sha256").update(b).digest()).digest();

/**
 * The behaviour every {@link ChainSource} must show, as a mocha suite run against a live regtest
 * backend: an adapter package calls it from its tests with a `start` that launches a backend (the
 * devnet, a real bitcoind…) and points its adapter at it. Uses mocha's globals and
 * `node:assert`, so the kernel gains no dependency.
 *
 * @example
 * chainSourceContract("EsploraChainSource on the devnet Esplora face", () => esploraOnDevnet());
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
      assert.equal(await source.getNetwork(), "regtest");
    });

    it("reports the tip and follows it as blocks are mined", async () => {
      const before = await source.getTip();
      assert.equal(before.height, await backend.rpc.call("getblockcount"));
      assert.equal(before.hash, await backend.rpc.call("getbestblockhash"));
      const [mined] = await mine(backend.rpc, 1);
      assert.deepEqual(await source.getTip(), { height: before.height + 1, hash: mined });
    });

    it("serves block hashes, headers that hash to the block, txids and raw blocks", async () => {
      const tip = await source.getTip();
      assert.equal(await source.getBlockHash(tip.height), tip.hash);
      assert.equal(await source.getBlockHash(tip.height + 1000), null);
      const header = (await source.getBlockHeader(tip.hash))!;
      assert.equal(header.height, tip.height);
      assert.equal(header.previousBlockHash, await source.getBlockHash(tip.height - 1));
      assert.equal(sha256d(Buffer.from(header.headerHex, "hex")).reverse().toString("hex"), tip.hash);
      assert.equal(header.bits, 0x207fffff);
      const txids = (await source.getBlockTxids(tip.hash))!;
      assert.ok(txids.length > 0, "the block lists its txids");
      const raw = (await source.getRawBlock(tip.hash))!;
      assert.equal(raw.startsWith(header.headerHex), true);
      const genesis = (await source.getBlockHeader((await source.getBlockHash(0))!))!;
      assert.equal(genesis.previousBlockHash, null);
    });

    it("answers null for unknown blocks and transactions", async () => {
      const unknown = "11".repeat(32);
      assert.equal(await source.getBlockHeader(unknown), null);
      assert.equal(await source.getBlockTxids(unknown), null);
      assert.equal(await source.getRawBlock(unknown), null);
      assert.equal(await source.getTx(unknown), null);
      assert.equal(await source.getTxStatus(unknown), null);
      assert.equal(await source.isInMempool(unknown), false);
      assert.equal(await source.getOutspends(unknown), null);
    });

    it("moves a broadcast transaction from the mempool to confirmed", async () => {
      const coin = take();
      const tx = wallet.spend([coin], [{ address: wallet.address, valueSat: coin.valueSat - 500n }]);
      assert.equal(await source.broadcast(tx.hex), tx.txid);
      assert.deepEqual(await source.getTxStatus(tx.txid), { confirmed: false });
      assert.equal(await source.isInMempool(tx.txid), true);
      assert.equal((await source.getTx(tx.txid))?.hex, tx.hex);
      const [hash] = await mine(backend.rpc, 1);
      const header = (await source.getBlockHeader(hash!))!;
      assert.deepEqual(await source.getTxStatus(tx.txid), { confirmed: true, block: { height: header.height, hash }, blockTime: header.time });
      assert.equal(await source.isInMempool(tx.txid), false);
      assert.ok((await source.getBlockTxids(hash!))?.includes(tx.txid), "the block lists the transaction");
    });

    it("reports who spends an output, in the mempool and once confirmed", async () => {
      const coin = take();
      assert.deepEqual(await source.getOutspend(coin.txid, coin.vout), { spent: false });
      const tx = wallet.spend([coin], [{ address: wallet.address, valueSat: coin.valueSat - 400n }]);
      await source.broadcast(tx.hex);
      assert.deepEqual(await source.getOutspend(coin.txid, coin.vout), { spent: true, txid: tx.txid, vin: 0, status: { confirmed: false } });
      const [hash] = await mine(backend.rpc, 1);
      const spend = await source.getOutspend(coin.txid, coin.vout);
      assert.equal(spend.spent && spend.status.confirmed && spend.status.block.hash, hash);
      const all = (await source.getOutspends(coin.txid))!;
      assert.equal(all.length, 16);
      assert.deepEqual(all[coin.vout], spend);
      assert.ok(all.some((s) => !s.spent), "some outputs of the split are unspent");
      assert.deepEqual(await source.getOutspends(tx.txid), [{ spent: false }]);
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
        assert.equal(utxos.length, 2);
        const confirmed = byTxid.get(first.txid);
        assert.deepEqual({ vout: confirmed?.vout, valueSat: confirmed?.valueSat, confirmed: confirmed?.status.confirmed }, { vout: 0, valueSat: 70_000n, confirmed: true });
        const pending = byTxid.get(second.txid);
        assert.deepEqual({ vout: pending?.vout, valueSat: pending?.valueSat, status: pending?.status }, { vout: 0, valueSat: 30_000n, status: { confirmed: false } });
        const history = await source.getScriptHistory(query);
        assert.deepEqual(history.map((h) => h.txid), [second.txid, first.txid]);
      }
      const spendAll = payee.spend([{ txid: first.txid, vout: 0, valueSat: 70_000n }], [{ address: wallet.address, valueSat: 69_000n }]);
      await source.broadcast(spendAll.hex);
      const left = await source.getScriptUtxos({ address: payee.address });
      assert.deepEqual(left.map((u) => u.txid), [second.txid]);
      const history = await source.getScriptHistory({ address: payee.address });
      assert.deepEqual(history.map((h) => h.txid).sort(), [spendAll.txid, second.txid, first.txid].sort());
      assert.equal(history[history.length - 1]!.txid, first.txid);
      assert.deepEqual(await source.getScriptUtxos({ address: new TestWallet("never-paid").address }), []);
    });

    it("surfaces the backend's reason when a transaction is rejected", async () => {
      const coin = take();
      const noFee = wallet.spend([coin], [{ address: wallet.address, valueSat: coin.valueSat }]);
      const low = await rejectsWith(source.broadcast(noFee.hex), ChainSourceRejectedError);
      assert.match(low.reason, /min relay fee not met/);
      const missing = wallet.spend([{ txid: "22".repeat(32), vout: 0, valueSat: 10_000n }], [{ address: wallet.address, valueSat: 9_000n }]);
      const gone = await rejectsWith(source.broadcast(missing.hex), ChainSourceRejectedError);
      assert.match(gone.reason, /missingorspent|missing/);
      assert.ok(gone.message.includes(source.label), `the error names the source: ${gone.message}`);
    });

    it("relays a zero-fee v3 parent together with its fee-paying child, not alone", async () => {
      const coin = take();
      const parent = wallet.spend([coin], [{ address: wallet.address, valueSat: coin.valueSat }], { version: 3 });
      const alone = await rejectsWith(source.broadcast(parent.hex), ChainSourceRejectedError);
      assert.match(alone.reason, /fee/);
      const child = wallet.spend([{ txid: parent.txid, vout: 0, valueSat: coin.valueSat }], [{ address: wallet.address, valueSat: coin.valueSat - 5_000n }], { version: 3 });
      const result = await source.broadcastPackage([parent.hex, child.hex]);
      assert.deepEqual(result.txids, [parent.txid, child.txid]);
      assert.equal(await source.isInMempool(parent.txid), true);
      assert.equal(await source.isInMempool(child.txid), true);
    });

    it("gives fee estimates as positive sat/vB rates for the asked targets", async () => {
      if (backend.setFeeEstimates) await backend.setFeeEstimates({ 1: 30, 3: 12, 6: 4 });
      const rates = await source.getFeeEstimates([1, 3, 6]);
      for (const [target, rate] of rates) {
        assert.ok([1, 3, 6].includes(target), `estimate for an asked target, not ${target}`);
        assert.ok(rate > 0, `a positive rate, not ${rate}`);
      }
      if (backend.setFeeEstimates) assert.deepEqual([...rates], [[1, 30], [3, 12], [6, 4]]);
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
      assert.equal(err.attempts, FAST_RETRY.attempts);
      assert.equal(err.kind, "connection");
      assert.ok(err.message.includes(url), `the error names ${url}: ${err.message}`);
      if (backend.secret) assert.ok(!err.message.includes(backend.secret), "the error does not show the credential");
    });

    it("turns unavailable, after its retries, when its server stops", async function () {
      if (!backend.disposable) {
        console.log(`      (skipped: ${title} cannot start a second backend to stop)`);
        this.skip();
      }
      const second = await backend.disposable();
      assert.equal(typeof (await second.source.getTip()).height, "number");
      await second.stop();
      const err = await rejectsWith(second.source.getTip(), ChainSourceUnavailableError);
      assert.equal(err.attempts, FAST_RETRY.attempts);
      assert.ok(err.message.includes(second.source.label), `the error names the source: ${err.message}`);
    });

    it("times out a source that never answers", async () => {
      const hang = await hangingServer();
      try {
        const slow = backend.sourceAt(hang.url, { timeoutMs: 150, retry: { ...FAST_RETRY, attempts: 2 } });
        const t0 = Date.now();
        const err = await rejectsWith(slow.getTip(), ChainSourceUnavailableError);
        assert.equal(err.kind, "timeout");
        assert.equal(err.attempts, 2);
        assert.ok(Date.now() - t0 < 5_000, "gives up within 5 s");
      } finally {
        await hang.close();
      }
    });
  });
}
