import { expect } from "chai";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { fromHex, toHex, type TxOut } from "../src/encoding.js";
import { p2trAddress, taprootOutput, type TapTree } from "../src/taproot.js";
import { decodeTx, encodeTx } from "../src/tx.js";
import { taprootSighash, taprootSigMsg } from "../src/sighash.js";
import { signSchnorr, tweakSecretKey, verifySchnorr } from "../src/schnorr.js";
import { pubkeyFromSecret, toXOnly } from "../src/keys.js";

const FILE = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bips/bip-0341/wallet-test-vectors.json");
const V = JSON.parse(readFileSync(FILE, "utf8"));

function toTree(t: any): TapTree {
  if (Array.isArray(t)) return [toTree(t[0]), toTree(t[1])];
  return { script: fromHex(t.script), leafVersion: t.leafVersion };
}

describe("BIP-341 wallet test vectors", () => {
  V.scriptPubKey.forEach((c: any, i: number) => {
    it(`scriptPubKey case ${i}: tweak, output key, leaf hashes, control blocks, address`, () => {
      const out = taprootOutput(fromHex(c.given.internalPubkey), c.given.scriptTree ? toTree(c.given.scriptTree) : null);
      expect(out.merkleRoot ? toHex(out.merkleRoot) : null).to.equal(c.intermediary.merkleRoot);
      expect(toHex(out.tweak)).to.equal(c.intermediary.tweak);
      expect(toHex(out.outputKey)).to.equal(c.intermediary.tweakedPubkey);
      expect(toHex(out.scriptPubKey)).to.equal(c.expected.scriptPubKey);
      expect(p2trAddress(out.outputKey, "bitcoin")).to.equal(c.expected.bip350Address);
      // Leaves are reported in tree order; the vectors index leaf hashes and control blocks by leaf id.
      const ids: number[] = [];
      const collect = (t: any): void => (Array.isArray(t) ? t.forEach(collect) : void ids.push(t.id));
      if (c.given.scriptTree) collect(c.given.scriptTree);
      ids.forEach((id, pos) => {
        expect(toHex(out.leaves[pos]!.leafHash)).to.equal(c.intermediary.leafHashes[id]);
        expect(toHex(out.leaves[pos]!.controlBlock)).to.equal(c.expected.scriptPathControlBlocks[id]);
      });
      expect(out.leaves.length).to.equal(ids.length);
    });
  });

  const kp = V.keyPathSpending[0];
  const tx = decodeTx(fromHex(kp.given.rawUnsignedTx));
  const prevouts: TxOut[] = kp.given.utxosSpent.map((u: any) => ({ value: BigInt(u.amountSats), script: fromHex(u.scriptPubKey) }));

  it("decodes and re-encodes the unsigned transaction byte for byte", () => {
    expect(toHex(encodeTx(tx))).to.equal(kp.given.rawUnsignedTx);
  });

  kp.inputSpending.forEach((s: any) => {
    it(`key-path input ${s.given.txinIndex} (hash type 0x${s.given.hashType.toString(16)}): sigMsg, sighash, tweaked key, signature`, () => {
      const opts = { hashType: s.given.hashType };
      expect(toHex(taprootSigMsg(tx, s.given.txinIndex, prevouts, opts))).to.equal(s.intermediary.sigMsg);
      const sighash = taprootSighash(tx, s.given.txinIndex, prevouts, opts);
      expect(toHex(sighash)).to.equal(s.intermediary.sigHash);
      const sk = fromHex(s.given.internalPrivkey);
      expect(toHex(toXOnly(pubkeyFromSecret(sk)))).to.equal(s.intermediary.internalPubkey);
      const tweaked = tweakSecretKey(sk, s.given.merkleRoot ? fromHex(s.given.merkleRoot) : null);
      expect(toHex(tweaked)).to.equal(s.intermediary.tweakedPrivkey);
      const sig = signSchnorr(sighash, tweaked, new Uint8Array(32));
      const withType = s.given.hashType === 0 ? sig : Uint8Array.from([...sig, s.given.hashType]);
      expect(toHex(withType)).to.equal(s.expected.witness[0]);
      expect(verifySchnorr(sig, sighash, toXOnly(pubkeyFromSecret(tweaked)))).to.equal(true);
    });
  });

  it("the fully signed transaction round-trips through the decoder", () => {
    expect(toHex(encodeTx(decodeTx(fromHex(kp.auxiliary.fullySignedTx))))).to.equal(kp.auxiliary.fullySignedTx);
  });
});
