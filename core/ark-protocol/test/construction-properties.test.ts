/**
 * Properties of arkoor packages and round trees built from random outputs: every created VTXO
 * rebuilds an exit chain that balances and ends at its id (`validateVtxoUnsigned` against the
 * chain anchor), and value is conserved.
 */
import { expect } from "chai";
import fc from "fast-check";
import { arkVectors } from "./ark-vectors.js";
import { fromHex } from "../src/encoding.js";
import { decodeTx, txid, type Transaction } from "../src/tx.js";
import { decodeVtxo } from "../src/vtxo.js";
import { validateVtxoUnsigned } from "../src/vtxo-validate.js";
import type { VtxoPolicy } from "../src/policy.js";
import { buildArkoorPackage, arkoorPackageVtxos } from "../src/arkoor-package.js";
import { ArkoorError } from "../src/arkoor-allocation.js";
import { VtxoTreeError, buildUnsignedVtxoTree, vtxoTreeFundingOutput, type VtxoTreeSpec } from "../src/tree.js";
import { treeLeafVtxo } from "../src/tree-signing.js";

const V2 = arkVectors.vtxo_encoding.encoding_version_2;
const G = arkVectors.keys.vtxo_vector_generation;
const keys = [G.board_user_key, G.arkoor2_user_key, G.round1_user_key, G.arkoor3_user_key].map((k: { public_key: string }) => fromHex(k.public_key));
const policyOf = (i: number): VtxoPolicy => ({ type: "pubkey", userPubkey: keys[i % keys.length]! });

describe("construction properties", () => {
  const board = decodeVtxo(fromHex((V2.vtxos as { name: string; hex: string }[]).find((v) => v.name === "board_vtxo")!.hex));
  const anchor = decodeTx(fromHex(V2.anchor_tx.hex));

  it("random arkoor packages: every new VTXO validates (unsigned) and the amounts add up", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4_000 }), { minLength: 1, maxLength: 3 }), fc.boolean(), (cuts, useCheckpoint) => {
        const amounts = cuts.map(BigInt);
        const rest = board.amount - amounts.reduce((a, b) => a + b, 0n);
        fc.pre(rest > 0n);
        const outputs = [...amounts, rest].map((amount, i) => ({ amount, policy: policyOf(i) }));
        let pkg;
        try {
          pkg = buildArkoorPackage([board], outputs, { useCheckpoint });
        } catch (e) {
          expect(e).to.be.instanceOf(ArkoorError); // e.g. fan-out above 4 after isolation
          return;
        }
        const vtxos = arkoorPackageVtxos(pkg, pkg.parts.map((p) => p.signing.map(() => null)));
        expect(vtxos.reduce((s, v) => s + v.amount, 0n)).to.equal(board.amount);
        for (const v of vtxos) expect(() => validateVtxoUnsigned(v, anchor)).to.not.throw();
      }),
      { numRuns: 25 },
    );
  });

  it("random round trees: leaf VTXOs validate (unsigned) against the funding tx; node outputs conserve value", function () {
    this.timeout(60_000);
    const server = fromHex(G.server_key.public_key);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 330, max: 100_000 }), { minLength: 2, maxLength: 21 }), fc.nat(), (amounts, pick) => {
        const spec: VtxoTreeSpec = {
          expiryHeight: 101_010,
          serverPubkey: server,
          exitDelta: 144,
          globalCosignPubkeys: [fromHex(G.server_cosign_key.public_key)],
          leaves: amounts.map((a, i) => ({ policy: policyOf(i), amount: BigInt(a), cosignPubkey: keys[(i + 1) % keys.length]!, unlockHash: new Uint8Array(32).fill(i + 1) })),
        };
        const funding: Transaction = { version: 2, locktime: 0, inputs: [], outputs: [vtxoTreeFundingOutput(spec)] };
        const tree = buildUnsignedVtxoTree(spec, { txid: txid(funding), vout: 0 });
        for (const node of tree.internal) {
          const tx = tree.txs[node.nodeIdx]!;
          expect(tx.outputs.reduce((s, o) => s + o.value, 0n)).to.equal(node.prevout.value);
        }
        const leafIdx = pick % amounts.length;
        const vtxo = treeLeafVtxo(tree, leafIdx, tree.internal.map(() => null), null, { type: "hash", hash: spec.leaves[leafIdx]!.unlockHash });
        expect(() => validateVtxoUnsigned(vtxo, funding)).to.not.throw();
        expect(vtxo.genesis.length).to.equal(countAncestors(tree.shape, leafIdx) + 1);
      }),
      { numRuns: 12 },
    );
    const one: VtxoTreeSpec = { expiryHeight: 1, serverPubkey: server, exitDelta: 1, globalCosignPubkeys: [], leaves: [{ policy: policyOf(0), amount: 1_000n, cosignPubkey: null, unlockHash: new Uint8Array(32) }] };
    expect(() => buildUnsignedVtxoTree(one, { txid: new Uint8Array(32), vout: 0 })).to.throw(VtxoTreeError, "at least two leaves");
    expect(() => vtxoTreeFundingOutput(one)).to.throw(VtxoTreeError);
  });
});

function countAncestors(shape: { parent: number | null }[], idx: number): number {
  let n = 0;
  for (let p = shape[idx]!.parent; p !== null; p = shape[p]!.parent) n++;
  return n;
}
