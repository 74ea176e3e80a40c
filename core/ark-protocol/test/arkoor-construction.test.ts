/**
 * Arkoor package transactions (checkpoint mode, vector group `arkoor_construction`): the
 * three reference packages rebuilt from their input VTXO and outputs, co-signed with MuSig2,
 * and turned into VTXOs that validate (and, with the reference signatures, encode byte-exact).
 */
import { expect } from "chai";
import * as ecc from "tiny-secp256k1";
import { arkVectors, expectVector } from "./ark-vectors.js";
import { formatOutPoint, fromHex, toHex, reverseBytes } from "../src/encoding.js";
import { decodeTx, encodeTx, txid, type Transaction } from "../src/tx.js";
import { decodeUserPolicy, encodePolicy } from "../src/policy.js";
import { decodeVtxo, encodeVtxo, type Vtxo } from "../src/vtxo.js";
import { validateVtxo, validateVtxoUnsigned } from "../src/vtxo-validate.js";
import { ArkoorError, isolateDust, allocateArkoorOutputs } from "../src/arkoor-allocation.js";
import { arkoorOutputVtxos, buildArkoorPart } from "../src/arkoor.js";
import { arkoorPartAttestation, arkoorPackageVtxos, arkoorPubNonces, arkoorServerCosign, arkoorUserFinish, arkoorUserNonces, buildArkoorPackage } from "../src/arkoor-package.js";
import { musigAggregateKey, musigSortKeys, musigTweakedKey } from "../src/musig.js";
import type { VtxoPolicy } from "../src/policy.js";
import { signAttestation, verifyAttestation } from "../src/signatures.js";

const V2 = arkVectors.vtxo_encoding.encoding_version_2;
const G = arkVectors.keys.vtxo_vector_generation;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const vtxoById = (id: string): any => (V2.vtxos as { vtxo_id: string }[]).find((v) => v.vtxo_id === id);
const secretByPubkey = new Map<string, Uint8Array>(
  Object.values(G as Record<string, { secret_key: string; public_key: string }>).map((k) => [k.public_key, fromHex(k.secret_key)]),
);
const keyFor = (pk: Uint8Array): Uint8Array => {
  const sk = secretByPubkey.get(toHex(pk));
  if (!sk) throw new Error(`no secret key for ${toHex(pk)}`);
  return sk;
};
function anchorTxOf(vtxo: Vtxo): Transaction {
  for (const t of [V2.anchor_tx, V2.round_tx]) {
    const tx = decodeTx(fromHex(t.hex));
    if (toHex(txid(tx)) === toHex(vtxo.anchorPoint.txid)) return tx;
  }
  throw new Error("anchor not in vectors");
}

describe("arkoor package construction (checkpoint, arkoor and fan-out txs, signatures, new VTXOs)", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  for (const c of arkVectors.arkoor_construction.cases as any[]) {
    describe(c.name, () => {
      const input = decodeVtxo(fromHex(vtxoById(c.input_vtxo_id).hex));
      const outputs = (c.outputs as { amount: number; policy: { type: string; user_pubkey: string; encoded_hex: string; payment_hash?: string; htlc_expiry?: number } }[]).map((o) => {
        const policy = decodeUserPolicy(fromHex(o.policy.encoded_hex));
        expectVector(policy.type, o.policy, "type");
        expectVector(toHex(policy.userPubkey), o.policy, "user_pubkey");
        if (o.policy.payment_hash !== undefined && policy.type !== "pubkey") {
          expectVector(toHex(policy.paymentHash), o.policy, "payment_hash");
          expectVector(policy.htlcExpiry, o.policy, "htlc_expiry");
        }
        expectVector(toHex(encodePolicy(policy)), o.policy, "encoded_hex");
        return { amount: BigInt(o.amount), policy };
      });
      const part = () => buildArkoorPart(input, isolateDust(allocateArkoorOutputs([input.amount], outputs)[0]!), { useCheckpoint: c.use_checkpoint });

      it("checkpoint tx, arkoor txs, ids, sighashes, tweaks and MuSig2 keys match the reference", () => {
        expectVector(formatOutPoint(input.point), c, "input_vtxo_id");
        expectVector(input.amount, c, "input_amount");
        const p = part();
        expectVector(p.normal.length, c, "normal_outputs");
        expectVector(p.isolated.length, c, "isolated_outputs");
        expectVector(toHex(encodeTx(p.checkpointTx!)), c, "checkpoint_tx_unsigned_hex");
        expectVector(toHex(reverseBytes(txid(p.checkpointTx!))), c, "checkpoint_txid");
        expectVector(toHex(p.checkpointTaproot.scriptPubKey), c, "checkpoint_output_script_pubkey");
        expectVector(p.arkoorTxs.map((t) => toHex(encodeTx(t))), c, "arkoor_txs_unsigned_hex");
        const ids = p.arkoorTxs.map((t) => formatOutPoint({ txid: txid(t), vout: 0 }));
        expectVector(ids, c, "new_vtxo_ids");
        expectVector(ids[0], c, "expected_first_vtxo_id");
        expectVector(p.signing.map((s) => toHex(s.sighash)), c, "sighashes");
        expectVector(p.signing.map((s) => toHex(s.tweak)), c, "tap_tweaks");
        expectVector(toHex(p.inputTweak), c, "input_tap_tweak");
        expectVector(toHex(p.checkpointTaproot.tweak), c, "checkpoint_tap_tweak");
        expectVector(p.signing.length, c, "nb_signatures");
        expectVector(musigSortKeys(p.signers).map(toHex), c, "musig_key_order_sorted");
        expectVector(toHex(musigAggregateKey(p.signers)), c, "musig_aggregate_xonly_untweaked");
      });

      it("with the reference signatures the first new VTXO encodes byte-exact as the reference VTXO", () => {
        // The reference VTXOs come from separate generator runs: the history they inherit has the
        // same transactions as the input VTXO vector but other (random-nonce) signatures, so the
        // input history is taken from the reference VTXO itself.
        const ref = decodeVtxo(fromHex(vtxoById(c.expected_first_vtxo_id).hex));
        expect(ref.genesis.length).to.equal(input.genesis.length + 2);
        const history = ref.genesis.slice(0, -2);
        history.forEach((item, i) => expect(item.outputIdx).to.equal(input.genesis[i]!.outputIdx));
        const p = buildArkoorPart({ ...input, genesis: history }, isolateDust(allocateArkoorOutputs([input.amount], outputs)[0]!));
        const [cpItem, arkoorItem] = ref.genesis.slice(-2);
        const sigs = p.signing.map(() => null as Uint8Array | null);
        sigs[0] = cpItem!.transition.signature;
        sigs[1] = arkoorItem!.transition.signature;
        const [first] = arkoorOutputVtxos(p, sigs);
        expectVector(toHex(encodeVtxo(first!)), vtxoById(c.expected_first_vtxo_id), "hex");
        expect(() => validateVtxo(first!, anchorTxOf(first!))).to.not.throw();
      });

      it("user and server co-sign every sighash; all new VTXOs validate against the chain anchor", () => {
        const pkg = { parts: [part()] };
        const nonces = arkoorUserNonces(pkg, keyFor);
        const responses = arkoorServerCosign(pkg, keyFor(input.serverPubkey), arkoorPubNonces(nonces));
        const sigs = arkoorUserFinish(pkg, keyFor, nonces, responses);
        pkg.parts[0]!.signing.forEach((s, i) => {
          expect(ecc.verifySchnorr(s.sighash, musigTweakedKey(pkg.parts[0]!.signers, s.tweak), sigs[0]![i]!)).to.equal(true);
        });
        const vtxos = arkoorPackageVtxos(pkg, sigs);
        expectVector(vtxos.map((v) => formatOutPoint(v.point)), c, "new_vtxo_ids");
        for (const v of vtxos) {
          expect(() => validateVtxo(v, anchorTxOf(v))).to.not.throw();
          expect(v.genesis.length).to.equal(input.genesis.length + 2);
          expect(decodeVtxo(encodeVtxo(v))).to.deep.equal(v);
        }
      });
    });
  }

  describe("dust isolation and direct mode", () => {
    const board = decodeVtxo(fromHex(vtxoById(arkVectors.arkoor_construction.cases[0].input_vtxo_id).hex));
    const bob = fromHex(G.arkoor2_user_key.public_key);
    const alice = fromHex(G.board_user_key.public_key);
    const outputs = [
      { amount: 9_800n, policy: { type: "pubkey", userPubkey: bob } as VtxoPolicy },
      { amount: 200n, policy: { type: "pubkey", userPubkey: alice } as VtxoPolicy },
    ];

    it("isolates dust behind one checkpoint output and a fan-out tx; every VTXO validates", () => {
      const pkg = buildArkoorPackage([board], outputs);
      const p = pkg.parts[0]!;
      expect(p.normal.map((d) => d.amount)).to.deep.equal([9_670n]);
      expect(p.isolated.map((d) => d.amount)).to.deep.equal([130n, 200n]);
      expect(p.checkpointTx!.outputs.map((o) => o.value)).to.deep.equal([9_670n, 330n, 0n]);
      expect(p.fanoutTx!.outputs.map((o) => o.value)).to.deep.equal([130n, 200n, 0n]);
      expect(toHex(p.fanoutTx!.inputs[0]!.prevout.txid)).to.equal(toHex(txid(p.checkpointTx!)));
      expect(p.fanoutTx!.inputs[0]!.prevout.vout).to.equal(1);
      expect(p.signing.length).to.equal(3);
      const nonces = arkoorUserNonces(pkg, keyFor);
      const sigs = arkoorUserFinish(pkg, keyFor, nonces, arkoorServerCosign(pkg, keyFor(board.serverPubkey), arkoorPubNonces(nonces)));
      const vtxos = arkoorPackageVtxos(pkg, sigs);
      expect(vtxos.map((v) => v.amount)).to.deep.equal([9_670n, 130n, 200n]);
      expect(vtxos.map((v) => toHex(encodePolicy(v.policy)))).to.deep.equal([bob, bob, alice].map((k) => toHex(encodePolicy({ type: "pubkey", userPubkey: k }))));
      for (const v of vtxos) expect(() => validateVtxo(v, anchorTxOf(v))).to.not.throw();
      expect(vtxos[1]!.point.vout).to.equal(0);
      const att = arkoorPartAttestation(p);
      const sig = signAttestation(att, keyFor(alice));
      expect(verifyAttestation(sig, att, alice)).to.equal(true);
      const swapped = arkoorPartAttestation({ ...p, isolated: [...p.isolated].reverse() });
      expect(verifyAttestation(sig, swapped, alice)).to.equal(false);
      expect(vtxos[2]!.point.vout).to.equal(1);
    });

    it("direct mode: one arkoor tx pays the outputs and the isolation output", () => {
      const pkg = buildArkoorPackage([board], outputs, { useCheckpoint: false });
      const p = pkg.parts[0]!;
      expect(p.checkpointTx).to.equal(null);
      expect(p.arkoorTxs.length).to.equal(1);
      expect(p.arkoorTxs[0]!.outputs.map((o) => o.value)).to.deep.equal([9_670n, 330n, 0n]);
      expect(p.signing.length).to.equal(2);
      const vtxos = arkoorPackageVtxos(pkg, [p.signing.map(() => null)]);
      for (const v of vtxos) expect(() => validateVtxoUnsigned(v, anchorTxOf(v))).to.not.throw();
      expect(vtxos.map((v) => v.genesis.length - board.genesis.length)).to.deep.equal([1, 2, 2]);
    });

    it("refuses a tampered server partial signature, HTLC inputs for payments and unbalanced parts", () => {
      const pkg = buildArkoorPackage([board], outputs);
      const nonces = arkoorUserNonces(pkg, keyFor);
      const responses = arkoorServerCosign(pkg, keyFor(board.serverPubkey), arkoorPubNonces(nonces));
      const bad = responses.map((r) => r.map((x) => ({ ...x, partialSig: Uint8Array.from(x.partialSig) })));
      bad[0]![1]!.partialSig[5] = bad[0]![1]!.partialSig[5]! ^ 0x40;
      expect(() => arkoorUserFinish(pkg, keyFor, nonces, bad)).to.throw(ArkoorError, "invalid server partial signature");
      const htlc = decodeVtxo(fromHex(vtxoById(arkVectors.arkoor_construction.cases[1].input_vtxo_id).hex));
      expect(() => buildArkoorPackage([htlc], [{ amount: htlc.amount, policy: outputs[0]!.policy }])).to.throw(ArkoorError, "pubkey policy");
      expect(() => buildArkoorPart(board, { normal: [{ amount: 1_000n, policy: outputs[0]!.policy }], isolated: [] })).to.throw(ArkoorError, "Unbalanced");
    });
  });
});
