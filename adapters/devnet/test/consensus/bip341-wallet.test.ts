/** BIP-341 wallet vectors (bip341_wallet_vectors.json): output construction, key-path sighashes and signatures. */
import { bech32m } from "@scure/base";
import { expect } from "chai";
import * as secp from "tiny-secp256k1";
import { concatBytes, fromHex, toHex } from "../../src/consensus/bytes.js";
import { STANDARD_SCRIPT_VERIFY_FLAGS } from "../../src/consensus/flags.js";
import { PrecomputedTxData, tapBranchHash, tapLeafHash, taprootSigMessage, taprootSighash } from "../../src/consensus/sighash.js";
import { controlBlock, taprootOutputKey, taprootScriptPubKey } from "../../src/consensus/taproot.js";
import { decodeTx, type SpentOutput } from "../../src/consensus/tx.js";
import { verifyScript } from "../../src/consensus/verify-script.js";
import { TransactionSignatureChecker, verifyInputScripts } from "../../src/consensus/verify-tx.js";
import { VectorTally, failureReport, vectorPath } from "./core-vectors.js";
import { readFileSync } from "node:fs";

/** Cases we do not run, with the reason (none: every case is modelled). */
const SKIPPED: Record<string, string> = {};

const FILE = "bip341_wallet_vectors.json";

interface Leaf { id: number; script: string; leafVersion: number }
type TreeNode = Leaf | [TreeNode, TreeNode];
interface SpkCase {
  given: { internalPubkey: string; scriptTree: TreeNode | null };
  intermediary: { leafHashes?: string[]; merkleRoot: string | null; tweak: string; tweakedPubkey: string };
  expected: { scriptPubKey: string; bip350Address: string; scriptPathControlBlocks?: string[] };
}
interface InputCase {
  given: { txinIndex: number; internalPrivkey: string; merkleRoot: string | null; hashType: number };
  intermediary: { internalPubkey: string; tweak: string; tweakedPrivkey: string; sigMsg: string; sigHash: string };
  expected: { witness: string[] };
}
interface KeyPathCase {
  given: { rawUnsignedTx: string; utxosSpent: { scriptPubKey: string; amountSats: number }[] };
  intermediary: { hashAmounts: string; hashOutputs: string; hashPrevouts: string; hashScriptPubkeys: string; hashSequences: string };
  inputSpending: InputCase[];
  auxiliary: { fullySignedTx: string };
}

const vectors = JSON.parse(readFileSync(vectorPath("bitcoin-core", FILE), "utf8")) as {
  scriptPubKey: SpkCase[];
  keyPathSpending: KeyPathCase[];
};

interface Built { hash: Uint8Array; leaves: { id: number; version: number; leafHash: Uint8Array; path: Uint8Array[] }[] }

function buildTree(node: TreeNode): Built {
  if (!Array.isArray(node)) {
    const leafHash = tapLeafHash(node.leafVersion, fromHex(node.script));
    return { hash: leafHash, leaves: [{ id: node.id, version: node.leafVersion, leafHash, path: [] }] };
  }
  const left = buildTree(node[0]);
  const right = buildTree(node[1]);
  for (const l of left.leaves) l.path.push(right.hash);
  for (const l of right.leaves) l.path.push(left.hash);
  return { hash: tapBranchHash(left.hash, right.hash), leaves: [...left.leaves, ...right.leaves] };
}

function checkSpkCase(c: SpkCase): string | undefined {
  const internal = fromHex(c.given.internalPubkey);
  const tree = c.given.scriptTree === null ? undefined : buildTree(c.given.scriptTree);
  const root = tree?.hash;
  if ((root === undefined ? null : toHex(root)) !== c.intermediary.merkleRoot) return "merkle root differs";
  const leaves = (tree?.leaves ?? []).sort((a, b) => a.id - b.id);
  if (c.intermediary.leafHashes !== undefined && leaves.map((l) => toHex(l.leafHash)).join() !== c.intermediary.leafHashes.join()) {
    return "leaf hashes differ";
  }
  const out = taprootOutputKey(internal, root);
  if (toHex(out.tweak) !== c.intermediary.tweak) return "tweak differs";
  if (toHex(out.outputKey) !== c.intermediary.tweakedPubkey) return "tweaked key differs";
  const spk = taprootScriptPubKey(out.outputKey);
  if (toHex(spk) !== c.expected.scriptPubKey) return "scriptPubKey differs";
  const address = bech32m.encode("bc", [1, ...bech32m.toWords(out.outputKey)]);
  if (address !== c.expected.bip350Address) return `address ${address} differs`;
  const blocks = leaves.map((l) => toHex(controlBlock(l.version, out.parity, internal, l.path)));
  if (blocks.join() !== (c.expected.scriptPathControlBlocks ?? []).join()) return "control blocks differ";
  return undefined;
}

function tweakPrivateKey(priv: Uint8Array, tweak: Uint8Array): Uint8Array {
  const pub = secp.pointFromScalar(priv, true)!;
  const even = pub[0] === 2 ? priv : secp.privateNegate(priv);
  return secp.privateAdd(even, tweak)!;
}

function checkInputCase(kp: KeyPathCase, data: PrecomputedTxData, spent: SpentOutput[], c: InputCase): string | undefined {
  const priv = fromHex(c.given.internalPrivkey);
  const internal = secp.xOnlyPointFromScalar(priv);
  if (toHex(internal) !== c.intermediary.internalPubkey) return "internal key differs";
  const out = taprootOutputKey(internal, c.given.merkleRoot === null ? undefined : fromHex(c.given.merkleRoot));
  if (toHex(out.tweak) !== c.intermediary.tweak) return "tweak differs";
  const tweakedPriv = tweakPrivateKey(priv, out.tweak);
  if (toHex(tweakedPriv) !== c.intermediary.tweakedPrivkey) return "tweaked private key differs";
  const index = c.given.txinIndex;
  const msg = taprootSigMessage(data, index, c.given.hashType, undefined);
  if (msg === undefined || toHex(msg) !== c.intermediary.sigMsg) return "signature message differs";
  const hash = taprootSighash(data, index, c.given.hashType, undefined)!;
  if (toHex(hash) !== c.intermediary.sigHash) return "signature hash differs";
  const sig = secp.signSchnorr(hash, tweakedPriv, new Uint8Array(32));
  const full = c.given.hashType === 0 ? sig : concatBytes(sig, Uint8Array.of(c.given.hashType));
  if (toHex(full) !== c.expected.witness[0]) return "signature differs";
  const witness = c.expected.witness.map(fromHex);
  const tx = data.tx;
  const checker = new TransactionSignatureChecker(data, index, spent[index]!.amount);
  verifyScript(tx.inputs[index]!.scriptSig, spent[index]!.scriptPubKey, witness, STANDARD_SCRIPT_VERIFY_FLAGS, checker);
  void kp;
  return undefined;
}

function checkSignedTx(kp: KeyPathCase, data: PrecomputedTxData, spent: SpentOutput[]): string | undefined {
  const h = data.taproot();
  const i = kp.intermediary;
  if (toHex(h.amounts) !== i.hashAmounts || toHex(h.outputs) !== i.hashOutputs || toHex(h.prevouts) !== i.hashPrevouts ||
    toHex(h.scripts) !== i.hashScriptPubkeys || toHex(h.sequences) !== i.hashSequences) return "precomputed hashes differ";
  verifyInputScripts(decodeTx(fromHex(kp.auxiliary.fullySignedTx)), spent, STANDARD_SCRIPT_VERIFY_FLAGS);
  return undefined;
}

describe("BIP-341 wallet vectors", () => {
  const tally = new VectorTally(FILE);
  const failures: string[] = [];
  const record = (label: string, check: () => string | undefined): void => {
    if (SKIPPED[label] !== undefined) {
      tally.skip(0, `${label}: ${SKIPPED[label]}`);
      return;
    }
    let why: string | undefined;
    try {
      why = check();
    } catch (e) {
      why = `threw ${String(e)}`;
    }
    if (why === undefined) tally.pass();
    else failures.push(`${label}: ${why}`);
  };

  it("derives each scriptPubKey case's leaf hashes, merkle root, tweak, output key, address and control blocks", () => {
    failures.length = 0;
    vectors.scriptPubKey.forEach((c, n) => record(`scriptPubKey[${n}]`, () => checkSpkCase(c)));
    expect(failures, failureReport(failures)).to.deep.equal([]);
  });

  it("reproduces each key-path input's tweak, signature message, sighash and signature, and the signed tx verifies", () => {
    failures.length = 0;
    for (const [k, kp] of vectors.keyPathSpending.entries()) {
      const tx = decodeTx(fromHex(kp.given.rawUnsignedTx));
      const spent = kp.given.utxosSpent.map((u) => ({ scriptPubKey: fromHex(u.scriptPubKey), amount: BigInt(u.amountSats) }));
      const data = new PrecomputedTxData(tx, spent);
      kp.inputSpending.forEach((c, n) => record(`keyPathSpending[${k}].inputSpending[${n}]`, () => checkInputCase(kp, data, spent, c)));
      record(`keyPathSpending[${k}].fullySignedTx`, () => checkSignedTx(kp, data, spent));
    }
    expect(failures, failureReport(failures)).to.deep.equal([]);
  });

  after(() => {
    for (const f of failures) tally.fail(0, f);
    console.log(tally.summary());
  });
});
