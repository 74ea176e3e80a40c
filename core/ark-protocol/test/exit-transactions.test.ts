/**
 * Unilateral exit on-chain transactions: the CPFP child of an
 * exit tx and the claim tx of matured exits, built from the reference VTXOs.
 */
import { expect } from "chai";
import * as ecc from "tiny-secp256k1";
import { arkVectors } from "./ark-vectors.js";
import { fromHex, toHex, utf8 } from "../src/encoding.js";
import { txid, type Transaction } from "../src/tx.js";
import { taprootSighash } from "../src/sighash.js";
import { tweakSecretKey } from "../src/schnorr.js";
import { p2trScript, P2A_SCRIPT } from "../src/script.js";
import { taprootOutput } from "../src/taproot.js";
import { decodeVtxo, type Vtxo } from "../src/vtxo.js";
import { exitTransactions } from "../src/vtxo-exit.js";
import { CpfpError, buildCpfpChild, shouldReplaceChild, TRUC_CHILD_MAX_VSIZE } from "../src/exit-cpfp.js";
import { ClaimError, buildClaimTx } from "../src/exit-claim.js";
import { txWeight } from "../src/exit-weight.js";

const V2 = arkVectors.vtxo_encoding.encoding_version_2;
const G = arkVectors.keys.vtxo_vector_generation;
const vtxo = (name: string): Vtxo => decodeVtxo(fromHex((V2.vtxos as { name: string; hex: string }[]).find((v) => v.name === name)!.hex));
const sk = (hex: string): Uint8Array => fromHex(hex);

/** A wallet taproot coin of `secret` (BIP-86 style, key path only). */
function walletCoin(secret: Uint8Array, value: bigint, n: number) {
  const internal = (ecc.pointFromScalar(secret, true) as Uint8Array).slice(1);
  const out = taprootOutput(internal, null);
  return { outpoint: { txid: new Uint8Array(32).fill(n), vout: n }, txout: { value, script: p2trScript(out.outputKey) } };
}

function signWalletInputs(child: Transaction, prevouts: { value: bigint; script: Uint8Array }[], secret: Uint8Array): Transaction {
  const tweaked = tweakSecretKey(secret, null);
  return {
    ...child,
    inputs: child.inputs.map((input, i) => (i === 0 ? input : { ...input, witness: [ecc.signSchnorr(taprootSighash(child, i, prevouts), tweaked)] })),
  };
}

describe("exit transactions (unilateral exit)", () => {
  const walletSk = sk(G.round1_user_key.secret_key);

  describe("CPFP child (1-parent-1-child package)", () => {
    const board = vtxo("board_vtxo");
    const parent = exitTransactions(board).at(-1)!;

    it("spends the P2A anchor and a wallet coin; fee pays the package at the target rate; the estimate equals the signed weight", () => {
      const coin = walletCoin(walletSk, 50_000n, 1);
      const rate = 2_500n; // 10 sat/vB
      const child = buildCpfpChild({ parent, feeRateSatPerKwu: rate, utxos: [coin], changeScript: coin.txout.script });
      expect(child.tx.version).to.equal(3);
      expect(toHex(child.tx.inputs[0]!.prevout.txid)).to.equal(toHex(txid(parent)));
      expect(toHex(parent.outputs[child.tx.inputs[0]!.prevout.vout]!.script)).to.equal(toHex(P2A_SCRIPT));
      expect(child.tx.outputs.length).to.equal(1);
      const signed = signWalletInputs(child.tx, child.prevouts, walletSk);
      expect(txWeight(signed)).to.equal(child.weight);
      const packageWeight = txWeight(parent) + txWeight(signed);
      expect(child.packageWeight).to.equal(packageWeight);
      expect(child.fee).to.equal((rate * BigInt(packageWeight) + 999n) / 1000n);
      expect(child.tx.outputs[0]!.value).to.equal(330n + 50_000n - child.fee);
      const tweakedKey = taprootOutput((ecc.pointFromScalar(walletSk, true) as Uint8Array).slice(1), null).outputKey;
      expect(ecc.verifySchnorr(taprootSighash(signed, 1, child.prevouts), tweakedKey, signed.inputs[1]!.witness[0]!)).to.equal(true);
    });

    it("replacing a child pays at least the old package fee plus 1 sat/vB of the package", () => {
      const coin = walletCoin(walletSk, 50_000n, 1);
      const first = buildCpfpChild({ parent, feeRateSatPerKwu: 500n, utxos: [coin], changeScript: coin.txout.script });
      const bumped = buildCpfpChild({ parent, feeRateSatPerKwu: 500n, utxos: [coin], changeScript: coin.txout.script, replacing: { packageFee: first.fee } });
      const perVb = (w: number): bigint => BigInt(Math.ceil(w / 4));
      expect(bumped.fee).to.equal(first.fee + perVb(txWeight(parent)) + perVb(bumped.weight));
      expect(shouldReplaceChild(500n, 500n)).to.equal(false);
      expect(shouldReplaceChild(500n, 501n)).to.equal(true);
    });

    it("adds coins largest first, refuses when funds are short or the child would break the TRUC size limit", () => {
      const arkoorParent = exitTransactions(vtxo("arkoor2_vtxo")).at(-1)!;
      const coins = [walletCoin(walletSk, 300n, 1), walletCoin(walletSk, 900n, 2), walletCoin(walletSk, 600n, 3)];
      const child = buildCpfpChild({ parent: arkoorParent, feeRateSatPerKwu: 250n, utxos: coins, changeScript: coins[0]!.txout.script });
      expect(child.tx.inputs.map((i) => i.prevout.vout)).to.deep.equal([arkoorParent.outputs.length - 1, 2]);
      expect(() => buildCpfpChild({ parent: arkoorParent, feeRateSatPerKwu: 25_000n, utxos: coins, changeScript: coins[0]!.txout.script })).to.throw(CpfpError, "insufficient");
      // 70-sat coins add 12 sat net each at 1 sat/vB: enough value only arrives past 1000 vB
      const small = Array.from({ length: 60 }, (_, i) => walletCoin(walletSk, 70n, i + 1));
      expect(TRUC_CHILD_MAX_VSIZE).to.equal(1000);
      expect(() => buildCpfpChild({ parent: arkoorParent, feeRateSatPerKwu: 250n, utxos: small, changeScript: coins[0]!.txout.script })).to.throw(CpfpError, "TRUC");
      expect(() => buildCpfpChild({ parent: { ...arkoorParent, outputs: arkoorParent.outputs.slice(0, -1) }, feeRateSatPerKwu: 250n, utxos: coins, changeScript: coins[0]!.txout.script })).to.throw(CpfpError, "no P2A");
    });
  });

  describe("claim tx (drain of matured exits)", () => {
    const dest = walletCoin(walletSk, 0n, 9).txout.script;

    it("claims two pubkey VTXOs through their DelayedSign leaves; signatures verify; fee = rate × signed weight", () => {
      const inputs = [
        { vtxo: vtxo("board_vtxo"), secretKey: sk(G.board_user_key.secret_key) },
        { vtxo: vtxo("arkoor2_vtxo"), secretKey: sk(G.arkoor2_user_key.secret_key) },
      ];
      const rate = 1_000n;
      const claim = buildClaimTx({ inputs, destinationScript: dest, tipHeight: 200_000, feeRateSatPerKwu: rate });
      const { tx } = claim;
      expect(tx.version).to.equal(2);
      expect(tx.locktime).to.equal(200_000);
      expect(tx.inputs.map((i) => i.sequence)).to.deep.equal([2016, 2016]);
      expect(txWeight(tx)).to.equal(claim.weight);
      expect(claim.fee).to.equal((rate * BigInt(claim.weight) + 999n) / 1000n);
      expect(tx.outputs[0]!.value).to.equal(inputs.reduce((s, i) => s + i.vtxo.amount, 0n) - claim.fee);
      tx.inputs.forEach((input, i) => {
        const [sig, script, cb] = input.witness;
        expect(input.witness.length).to.equal(3);
        expect(toHex(script!)).to.equal(`02e007b27520${toHex((inputs[i]!.vtxo.policy.userPubkey).slice(1))}ac`);
        const leafHash = taprootOutput(cb!.slice(1, 33), script!).leaves[0]!.leafHash;
        const msg = taprootSighash(tx, i, claim.prevouts, { leafHash });
        expect(ecc.verifySchnorr(msg, inputs[i]!.vtxo.policy.userPubkey.slice(1), sig!)).to.equal(true);
      });
    });

    it("HTLC-send refund: the DelayedTimelockSign clause needs tip ≥ htlc_expiry and sequence 2Δ", () => {
      const v = vtxo("arkoor_htlc_out_vtxo");
      const input = { vtxo: v, secretKey: sk(G.arkoor_htlc_out_user_key.secret_key) };
      expect(() => buildClaimTx({ inputs: [input], destinationScript: dest, tipHeight: 100_009, feeRateSatPerKwu: 250n })).to.throw(ClaimError, "needs height 100010");
      const claim = buildClaimTx({ inputs: [input], destinationScript: dest, tipHeight: 100_010, feeRateSatPerKwu: 250n });
      expect(claim.tx.inputs[0]!.sequence).to.equal(2 * v.exitDelta);
    });

    it("HTLC-receive claim needs the preimage and pushes it after the signature", () => {
      const v = vtxo("round2_vtxo");
      const input = { vtxo: v, secretKey: sk(G.round2_user_key.secret_key) };
      expect(() => buildClaimTx({ inputs: [input], destinationScript: dest, tipHeight: 200_000, feeRateSatPerKwu: 250n })).to.throw(ClaimError, "no exit clause");
      const claim = buildClaimTx({ inputs: [{ ...input, preimage: utf8("round2") }], destinationScript: dest, tipHeight: 200_000, feeRateSatPerKwu: 250n });
      expect(claim.tx.inputs[0]!.witness.length).to.equal(4);
      expect(toHex(claim.tx.inputs[0]!.witness[1]!)).to.equal(toHex(utf8("round2")));
      expect(claim.tx.inputs[0]!.sequence).to.equal(40 + v.exitDelta);
    });

    it("refuses a claim whose fee leaves less than 330 sat, and keys the wallet does not hold", () => {
      const input = { vtxo: vtxo("board_vtxo"), secretKey: sk(G.board_user_key.secret_key) };
      expect(() => buildClaimTx({ inputs: [input], destinationScript: dest, tipHeight: 200_000, feeRateSatPerKwu: 200_000n })).to.throw(ClaimError, "leaves less than 330");
      expect(() => buildClaimTx({ inputs: [{ ...input, secretKey: walletSk }], destinationScript: dest, tipHeight: 200_000, feeRateSatPerKwu: 250n })).to.throw(ClaimError, "no exit clause");
    });
  });
});
