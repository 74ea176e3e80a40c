/** hArk forfeit tx and the hash-locked forfeit bundle (bark's `ark::forfeit`, `related_vectors_other_areas`). */
import { expect } from "chai";
import * as ecc from "tiny-secp256k1";
import { arkVectors, expectVector } from "./ark-vectors.js";
import { concatBytes, formatOutPoint, fromHex, toHex } from "../src/encoding.js";
import { sha256 } from "../src/hashes.js";
import { ProtocolDecodeError } from "../src/errors.js";
import { decodeVtxo } from "../src/vtxo.js";
import {
  FORFEIT_BUNDLE_SIZE,
  ForfeitError,
  buildHarkForfeit,
  completeForfeit,
  createForfeitBundle,
  decodeForfeitBundle,
  encodeForfeitBundle,
  verifyForfeitBundle,
} from "../src/forfeit.js";
import { musigNonceGen, musigTweakedKey } from "../src/musig.js";

const F = arkVectors.related_vectors_other_areas.hash_locked_forfeit_bundle;
const V2 = arkVectors.vtxo_encoding.encoding_version_2;
const G = arkVectors.keys.vtxo_vector_generation;
const PREIMAGE = "c65f29e65dbc6cbad3e7f35c41986487c74ed513aeb37778354d42f3b0714645"; // from the vector's description

/**
 * libsecp256k1-zkp stores a MuSig2 secret nonce as magic (4) ‖ k1 (32, big-endian) ‖ k2 (32) ‖ the
 * pubkey in its in-memory storage form (x then y, each as four little-endian 64-bit limbs, least
 * significant first: the byte-reversed big-endian coordinate). BIP-327 (and our backend) use
 * k1 ‖ k2 ‖ compressed pubkey.
 */
function secNonceFromLibsecp(hex: string): Uint8Array {
  const b = fromHex(hex);
  expect(b.length).to.equal(132);
  expect(toHex(b.subarray(0, 4))).to.equal("220edcf1");
  const x = Uint8Array.from(b.subarray(68, 100)).reverse();
  const yLowByte = b[100]!;
  return concatBytes(b.subarray(4, 68), Uint8Array.of((yLowByte & 1) === 0 ? 2 : 3), x);
}

describe("hArk forfeit bundle (167 bytes, the user's half of the forfeit)", () => {
  const vtxoVector = (V2.vtxos as { name: string; hex: string }[]).find((v) => v.name === "arkoor3_vtxo")!;
  const vtxo = decodeVtxo(fromHex(vtxoVector.hex));
  const serverPubNonce = fromHex(F.server_pub_nonce);

  it("decodes the reference bundle: version, VTXO id, unlock hash of the preimage", () => {
    const bundle = decodeForfeitBundle(fromHex(F.bundle_hex));
    expect(fromHex(F.bundle_hex).length).to.equal(FORFEIT_BUNDLE_SIZE);
    expect(formatOutPoint(bundle.vtxoId)).to.equal(formatOutPoint(vtxo.point));
    expect(toHex(bundle.unlockHash)).to.equal(toHex(sha256(fromHex(PREIMAGE))));
    expectVector(toHex(encodeForfeitBundle(bundle)), F, "bundle_hex");
  });

  it("the reference user partial signature verifies over our forfeit tx sighash (byte-exact forfeit tx)", () => {
    const bundle = decodeForfeitBundle(fromHex(F.bundle_hex));
    expect(verifyForfeitBundle(vtxo, bundle, serverPubNonce)).to.equal(true);
    const tampered = { ...bundle, unlockHash: sha256(bundle.unlockHash) };
    expect(verifyForfeitBundle(vtxo, tampered, serverPubNonce)).to.equal(false);
  });

  it("the server completes the reference forfeit with its recorded secret nonce; the signature verifies", () => {
    const bundle = decodeForfeitBundle(fromHex(F.bundle_hex));
    const secNonce = secNonceFromLibsecp(F.server_secret_nonce_libsecp_internal);
    expectVector(toHex(secNonce.subarray(64)), G.server_key, "public_key");
    const k1 = ecc.pointFromScalar(secNonce.subarray(0, 32), true)!;
    const k2 = ecc.pointFromScalar(secNonce.subarray(32, 64), true)!;
    expectVector(toHex(concatBytes(k1, k2)), F, "server_pub_nonce");
    const { tx, signature } = completeForfeit(vtxo, bundle, { secretKey: fromHex(G.server_key.secret_key), secNonce, pubNonce: serverPubNonce });
    const f = buildHarkForfeit(vtxo, bundle.unlockHash);
    expect(ecc.verifySchnorr(f.sighash, musigTweakedKey(f.signers, f.tweak), signature)).to.equal(true);
    expect(tx.inputs[0]!.sequence).to.equal(0xffffffff);
    expect(tx.outputs[0]!.value).to.equal(vtxo.amount);
  });

  it("a fresh bundle made by the user key verifies and completes", () => {
    const userSk = fromHex(G.arkoor3_user_key.secret_key);
    const serverNonce = musigNonceGen({ pubkey: vtxo.serverPubkey });
    const unlock = sha256(fromHex(PREIMAGE));
    const bundle = createForfeitBundle(vtxo, unlock, userSk, serverNonce.pubNonce);
    expect(decodeForfeitBundle(encodeForfeitBundle(bundle))).to.deep.equal(bundle);
    const done = completeForfeit(vtxo, bundle, { secretKey: fromHex(G.server_key.secret_key), secNonce: serverNonce.secNonce, pubNonce: serverNonce.pubNonce });
    const f = buildHarkForfeit(vtxo, unlock);
    expect(ecc.verifySchnorr(f.sighash, musigTweakedKey(f.signers, f.tweak), done.signature)).to.equal(true);
    const other = musigNonceGen({ pubkey: vtxo.serverPubkey });
    expect(() => completeForfeit(vtxo, bundle, { secretKey: fromHex(G.server_key.secret_key), secNonce: other.secNonce, pubNonce: other.pubNonce })).to.throw(ForfeitError);
  });

  it("rejects other versions, truncation and trailing bytes", () => {
    const b = fromHex(F.bundle_hex);
    const v2 = Uint8Array.from(b);
    v2[0] = 2;
    expect(() => decodeForfeitBundle(v2)).to.throw(ProtocolDecodeError);
    expect(() => decodeForfeitBundle(b.subarray(0, 166))).to.throw(ProtocolDecodeError);
    expect(() => decodeForfeitBundle(concatBytes(b, Uint8Array.of(0)))).to.throw(ProtocolDecodeError);
  });
});
