/**
 * Round tree signing with per-level nonces and the round VTXOs it creates (bark's
 * `ark::tree::signed`), on the reference round of `vtxo_encoding`.
 */
import { expect } from "chai";
import * as ecc from "tiny-secp256k1";
import { arkVectors, expectVector } from "./ark-vectors.js";
import { fromHex, toHex } from "../src/encoding.js";
import { decodeTx, txid } from "../src/tx.js";
import { decodeUserPolicy } from "../src/policy.js";
import { decodeVtxo, encodeVtxo } from "../src/vtxo.js";
import { validateVtxo } from "../src/vtxo-validate.js";
import { buildUnsignedVtxoTree, treeLeafUnlockSighash, type VtxoTreeSpec } from "../src/tree.js";
import { TreeSigningError, treeAggNonces, treeCombinePartials, treeCosignAll, treeCosignBranch, treeLeafVtxo, treeNoncesPerLeaf } from "../src/tree-signing.js";
import { musigCompleteCosign, musigNonceGen, musigRespondCosign, musigTweakedKey, type MusigNonce } from "../src/musig.js";

const V2 = arkVectors.vtxo_encoding.encoding_version_2;
const G = arkVectors.keys.vtxo_vector_generation;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const named = (n: string): any => (V2.vtxos as { name: string }[]).find((v) => v.name === n);
const pub = (sk: string): Uint8Array => ecc.pointFromScalar(fromHex(sk), true) as Uint8Array;

function roundSpec(): { spec: VtxoTreeSpec; secrets: Map<string, Uint8Array> } {
  const secrets = new Map<string, Uint8Array>();
  const add = (sk: string): Uint8Array => {
    const pk = pub(sk);
    secrets.set(toHex(pk), fromHex(sk));
    return pk;
  };
  const fromVtxo = (name: string, cosignSk: string) => {
    const v = named(name);
    return { policy: decodeUserPolicy(fromHex(v.policy.encoded_hex)), amount: BigInt(v.amount), cosignPubkey: add(cosignSk), unlockHash: fromHex(v.genesis.at(-1).transition.unlock_hash) };
  };
  const others = (arkVectors.keys.vtxo_vector_round_other_users as { public_key: string; cosign_secret_key: string; unlock_hash: string }[]).map((o) => ({
    policy: { type: "pubkey" as const, userPubkey: fromHex(o.public_key) },
    amount: 5000n,
    cosignPubkey: add(o.cosign_secret_key),
    unlockHash: fromHex(o.unlock_hash),
  }));
  const r1 = named("round1_vtxo");
  return {
    spec: {
      expiryHeight: r1.expiry_height,
      serverPubkey: fromHex(G.server_key.public_key),
      exitDelta: r1.exit_delta,
      globalCosignPubkeys: [add(G.server_cosign_key.secret_key)],
      leaves: [fromVtxo("round1_vtxo", G.round1_cosign_key.secret_key), fromVtxo("round2_vtxo", G.round2_cosign_key.secret_key), ...others],
    },
    secrets,
  };
}

describe("round tree signing and round VTXOs (per-level nonces, one signature per node)", () => {
  const roundTx = decodeTx(fromHex(V2.round_tx.hex));
  const root = { txid: txid(roundTx), vout: 0 };

  it("with the reference signatures, the round VTXOs rebuilt from the tree encode byte-exact", () => {
    const { spec } = roundSpec();
    const tree = buildUnsignedVtxoTree(spec, root);
    for (const [name, leafIdx] of [["round1_vtxo", 0], ["round2_vtxo", 1]] as const) {
      const ref = decodeVtxo(fromHex(named(name).hex));
      const sig = (i: number) => ref.genesis[i]!.transition.signature;
      const last = ref.genesis.at(-1)!.transition;
      expect(last.kind).to.equal("hash-locked-cosigned-v1");
      if (last.kind !== "hash-locked-cosigned-v1") return;
      const vtxo = treeLeafVtxo(tree, leafIdx, [sig(1), sig(0)], last.signature, last.unlock);
      expectVector(toHex(encodeVtxo(vtxo)), named(name), "hex");
    }
  });

  it("7 leaf cosigners and the server sign with per-level nonces; the round VTXOs validate", function () {
    this.timeout(30_000);
    const { spec, secrets } = roundSpec();
    const tree = buildUnsignedVtxoTree(spec, root);
    const levels = treeNoncesPerLeaf(tree);
    expect(levels).to.equal(2);
    const leafSec = new Map<string, MusigNonce[]>();
    for (const l of spec.leaves) leafSec.set(toHex(l.cosignPubkey!), Array.from({ length: levels }, () => musigNonceGen({ pubkey: l.cosignPubkey! })));
    const server = spec.globalCosignPubkeys[0]!;
    const serverSec = tree.internal.map(() => musigNonceGen({ pubkey: server }));
    const aggNonces = treeAggNonces(
      tree,
      new Map([...leafSec].map(([k, ns]) => [k, ns.map((n) => n.pubNonce)])),
      [serverSec.map((n) => n.pubNonce)],
    );
    const partials = new Map<string, Uint8Array[]>();
    spec.leaves.forEach((l, i) => partials.set(toHex(l.cosignPubkey!), treeCosignBranch(tree, aggNonces, i, secrets.get(toHex(l.cosignPubkey!))!, leafSec.get(toHex(l.cosignPubkey!))!)));
    // leaf 4 hangs directly under the root: one partial signature (its level-0 nonce stays unused)
    expect(partials.get(toHex(spec.leaves[4]!.cosignPubkey!))!.length).to.equal(1);
    expect(partials.get(toHex(spec.leaves[0]!.cosignPubkey!))!.length).to.equal(2);
    partials.set(toHex(server), treeCosignAll(tree, aggNonces, secrets.get(toHex(server))!, serverSec));
    const sigs = treeCombinePartials(tree, aggNonces, partials);
    tree.internal.forEach((n, i) => expect(ecc.verifySchnorr(n.sighash, musigTweakedKey(n.cosignKeys, n.tweak), sigs[i]!)).to.equal(true));

    for (const [name, leafIdx, userKey] of [["round1_vtxo", 0, G.round1_user_key], ["round2_vtxo", 1, G.round2_user_key]] as const) {
      const ref = decodeVtxo(fromHex(named(name).hex));
      const unlock = ref.genesis.at(-1)!.transition;
      if (unlock.kind !== "hash-locked-cosigned-v1") throw new Error("expected v1 leaf");
      const msg = treeLeafUnlockSighash(tree, leafIdx);
      const userPk = fromHex(userKey.public_key);
      const nonce = musigNonceGen({ pubkey: userPk, message: msg });
      const response = musigRespondCosign({ secretKey: fromHex(G.server_key.secret_key), pubkey: spec.serverPubkey, otherPubkey: userPk, otherPubNonce: nonce.pubNonce, message: msg });
      const leafSig = musigCompleteCosign({ secretKey: fromHex(userKey.secret_key), pubkey: userPk, nonce, otherPubkey: spec.serverPubkey, response, message: msg });
      const vtxo = treeLeafVtxo(tree, leafIdx, sigs, leafSig, unlock.unlock);
      expect(() => validateVtxo(vtxo, roundTx)).to.not.throw();
      expectVector(toHex(encodeVtxo({ ...vtxo, genesis: ref.genesis })), named(name), "hex");
    }
  });

  it("missing nonces or partial signatures are typed errors", () => {
    const { spec } = roundSpec();
    const tree = buildUnsignedVtxoTree(spec, root);
    expect(() => treeAggNonces(tree, new Map(), [])).to.throw(TreeSigningError, "global");
    expect(() => treeAggNonces(tree, new Map(), [tree.internal.map(() => musigNonceGen({ pubkey: spec.serverPubkey }).pubNonce)])).to.throw(TreeSigningError, "missing nonce");
    expect(() => treeCombinePartials(tree, [], new Map())).to.throw(TreeSigningError);
  });
});
