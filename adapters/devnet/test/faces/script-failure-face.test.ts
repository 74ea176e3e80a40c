import { expect } from "chai";
import { startDevnet, type Devnet } from "../../src/devnet.js";
import { TestKey, buildTx, fund, type BuiltTx, type Coin } from "../node/tx-kit.js";
import { esplora, rpc } from "./face-client.js";

/**
 * A transaction with an invalid signature, refused over both faces with Bitcoin Core master's text:
 * reason `mempool-script-verify-flag-failed (<script error>)`, debug
 * `input <n> of <txid> (wtxid <wtxid>), spending <txid>:<n>`, printed `reason, debug`.
 */
describe("devnet faces: script failures in mempool acceptance", function () {
  this.timeout(30_000);
  const alice = new TestKey("script-face-alice");
  const bob = new TestKey("script-face-bob");

  /** A confirmed taproot coin of alice and a spend of it whose Schnorr signature is corrupt. */
  function badSpend(devnet: Devnet): { coin: Coin; bad: BuiltTx; wtxid: string } {
    const coin = fund(devnet.node, alice, 50_000n, { taproot: true });
    const bad = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 49_000n }], corruptSignature: true });
    return { coin, bad, wtxid: devnet.node.testMempoolAccept([bad.hex])[0]!.wtxid };
  }

  describe("by default (Core master)", () => {
    let devnet: Devnet;
    before(async () => {
      devnet = await startDevnet({ seed: "script-failure-face" });
    });
    after(() => devnet?.stop());

    it("sendrawtransaction and testmempoolaccept give the reason and the failing input", async () => {
      const { coin, bad, wtxid } = badSpend(devnet);
      const reason = "mempool-script-verify-flag-failed (Invalid Schnorr signature)";
      const details = `${reason}, input 0 of ${bad.txid} (wtxid ${wtxid}), spending ${coin.txid}:${coin.vout}`;
      const sent = await rpc(devnet, "sendrawtransaction", [bad.hex]);
      expect(sent.error).to.deep.equal({ code: -26, message: details });
      const tested = await rpc(devnet, "testmempoolaccept", [[bad.hex]]);
      expect(tested.result).to.deep.equal([{ txid: bad.txid, wtxid, allowed: false, "reject-reason": reason, "reject-details": details }]);
      expect(devnet.node.getRawMempool()).to.not.include(bad.txid);
    });

    it("submitpackage keeps the valid parent and reports the child's failure", async () => {
      const coin = fund(devnet.node, alice, 60_000n);
      const parent = buildTx({ inputs: [coin], outputs: [{ script: alice.tr.script, amount: 59_000n }] });
      const child = buildTx({ inputs: [parent.coin(0, alice, true)], outputs: [{ script: bob.wpkh.script, amount: 58_000n }], corruptSignature: true });
      const childWtxid = devnet.node.testMempoolAccept([parent.hex, child.hex]).at(-1)!.wtxid;
      const { result } = await rpc(devnet, "submitpackage", [[parent.hex, child.hex]]);
      expect(result.package_msg).to.equal("transaction failed");
      expect(result["tx-results"][childWtxid].error).to.equal(
        `mempool-script-verify-flag-failed (Invalid Schnorr signature), input 0 of ${child.txid} (wtxid ${childWtxid}), spending ${parent.txid}:0`,
      );
      expect(devnet.node.getRawMempool()).to.include(parent.txid).and.not.include(child.txid);
    });

    it("the Esplora broadcast relays bitcoind's text in its 400 body", async () => {
      const { coin, bad, wtxid } = badSpend(devnet);
      const reply = await esplora(devnet, "/tx", { body: bad.hex });
      expect(reply.status).to.equal(400);
      const message = `mempool-script-verify-flag-failed (Invalid Schnorr signature), input 0 of ${bad.txid} (wtxid ${wtxid}), spending ${coin.txid}:${coin.vout}`;
      expect(reply.text).to.equal(`sendrawtransaction RPC error: ${JSON.stringify({ code: -26, message })}`);
    });
  });

  describe("with scriptFailureWording: core-29", () => {
    let devnet: Devnet;
    before(async () => {
      devnet = await startDevnet({ seed: "script-failure-face-29", scriptFailureWording: "core-29" });
    });
    after(() => devnet?.stop());

    it("gives Core 29's two-pass wording, without a debug text, over both faces", async () => {
      const { bad } = badSpend(devnet);
      const reason = "mandatory-script-verify-flag-failed (Invalid Schnorr signature)";
      expect((await rpc(devnet, "sendrawtransaction", [bad.hex])).error).to.deep.equal({ code: -26, message: reason });
      const [tested] = (await rpc(devnet, "testmempoolaccept", [[bad.hex]])).result;
      expect(tested).to.include({ allowed: false, "reject-reason": reason });
      const reply = await esplora(devnet, "/tx", { body: bad.hex });
      expect(reply.text).to.equal(`sendrawtransaction RPC error: ${JSON.stringify({ code: -26, message: reason })}`);
    });
  });
});
