/**
 * hArk forfeits (bark's `ark::forfeit`): the forfeit tx a round participant co-signs for each input
 * VTXO, and the 167-byte hash-locked forfeit bundle that carries the user's half.
 *
 * | Part | Value |
 * |---|---|
 * | forfeit tx | v3, locktime 0, one input = the VTXO outpoint with sequence `0xffffffff`, outputs `[hark-forfeit-v1(user, unlock hash) worth the VTXO amount, P2A 0]` |
 * | signature | MuSig2(user, server), key path with the VTXO output's TapTweak, SIGHASH_DEFAULT |
 * | bundle | `0x01` ‖ VTXO id (36) ‖ unlock hash (32) ‖ user public nonce (66) ‖ user partial signature (32) |
 *
 * @example
 * ```ts
 * const bundle = createForfeitBundle(vtxo, unlockHash, userSecretKey, serverForfeitNonce);
 * encodeForfeitBundle(bundle);                 // 167 bytes for ForfeitVtxosRequest
 * verifyForfeitBundle(vtxo, bundle, serverForfeitNonce); // server side
 * ```
 */
import { ProtocolDecodeError, ProtocolError } from "./errors.js";
import { ByteWriter, decodeExact, readOutPoint, writeOutPoint, type OutPoint, type TxOut } from "./encoding.js";
import { policyScriptPubKey, policyTaproot, type HarkPolicy, type VtxoPolicy } from "./policy.js";
import { P2A_SCRIPT } from "./script.js";
import { taprootSighash } from "./sighash.js";
import type { Transaction } from "./tx.js";
import { vtxoPolicyContext, type BareVtxo } from "./vtxo.js";
import { MUSIG_PARTIAL_SIG_SIZE, MUSIG_PUB_NONCE_SIZE, MusigSession, musigNonceAgg, musigNonceGen, musigTweakedKey } from "./musig.js";

/** Encoding version of {@link HashLockedForfeitBundle}. */
export const FORFEIT_BUNDLE_VERSION = 0x01;
/** Encoded size of a forfeit bundle. */
export const FORFEIT_BUNDLE_SIZE = 1 + 36 + 32 + MUSIG_PUB_NONCE_SIZE + MUSIG_PARTIAL_SIG_SIZE;

/** A forfeit that cannot be built or does not verify. */
export class ForfeitError extends ProtocolError {}

/** The user's half of a hArk forfeit signature. */
export interface HashLockedForfeitBundle {
  vtxoId: OutPoint;
  unlockHash: Uint8Array;
  userPubNonce: Uint8Array;
  userPartialSig: Uint8Array;
}

/** Encodes a bundle (167 bytes). */
export function encodeForfeitBundle(b: HashLockedForfeitBundle): Uint8Array {
  if (b.unlockHash.length !== 32 || b.userPubNonce.length !== MUSIG_PUB_NONCE_SIZE || b.userPartialSig.length !== MUSIG_PARTIAL_SIG_SIZE) {
    throw new ForfeitError("malformed forfeit bundle field");
  }
  const w = new ByteWriter().u8(FORFEIT_BUNDLE_VERSION);
  return writeOutPoint(w, b.vtxoId).bytes(b.unlockHash).bytes(b.userPubNonce).bytes(b.userPartialSig).finish();
}

/** Decodes a bundle; rejects other versions, wrong sizes and trailing bytes. */
export function decodeForfeitBundle(bytes: Uint8Array): HashLockedForfeitBundle {
  return decodeExact(bytes, (r) => {
    const v = r.u8();
    if (v !== FORFEIT_BUNDLE_VERSION) throw new ProtocolDecodeError(`unknown forfeit bundle version ${v}`);
    return { vtxoId: readOutPoint(r), unlockHash: r.bytes(32), userPubNonce: r.bytes(MUSIG_PUB_NONCE_SIZE), userPartialSig: r.bytes(MUSIG_PARTIAL_SIG_SIZE) };
  });
}

/** The VTXO fields a forfeit needs. */
export type ForfeitableVtxo = Pick<BareVtxo<VtxoPolicy>, "point" | "amount" | "policy" | "serverPubkey" | "exitDelta" | "expiryHeight">;

/** The hark-forfeit-v1 output policy of a VTXO's forfeit. */
export function harkForfeitPolicy(vtxo: ForfeitableVtxo, unlockHash: Uint8Array): HarkPolicy {
  return { type: "hark-forfeit-v1", userPubkey: vtxo.policy.userPubkey, unlockHash };
}

/** The forfeit tx with its signing data. */
export interface HarkForfeit {
  tx: Transaction;
  /** The VTXO output being forfeited (the sighash prevout). */
  prevout: TxOut;
  sighash: Uint8Array;
  /** MuSig2 x-only tweak = TapTweak of the VTXO's policy taproot. */
  tweak: Uint8Array;
  /** [user, server] pubkeys. */
  signers: [Uint8Array, Uint8Array];
}

/** Builds the hArk forfeit tx of `vtxo` for `unlockHash`. */
export function buildHarkForfeit(vtxo: ForfeitableVtxo, unlockHash: Uint8Array): HarkForfeit {
  if (unlockHash.length !== 32) throw new ForfeitError("unlock hash must be 32 bytes");
  const ctx = vtxoPolicyContext(vtxo as BareVtxo<VtxoPolicy>);
  const own = policyTaproot(vtxo.policy, ctx);
  const prevout: TxOut = { value: vtxo.amount, script: own.scriptPubKey };
  const tx: Transaction = {
    version: 3,
    locktime: 0,
    inputs: [{ prevout: vtxo.point, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }],
    outputs: [
      { value: vtxo.amount, script: policyScriptPubKey(harkForfeitPolicy(vtxo, unlockHash), ctx) },
      { value: 0n, script: P2A_SCRIPT },
    ],
  };
  return { tx, prevout, sighash: taprootSighash(tx, 0, [prevout]), tweak: own.tweak, signers: [vtxo.policy.userPubkey, vtxo.serverPubkey] };
}

/**
 * The user's side: a message-bound nonce (the sighash as extra input) and a partial
 * signature against the server's forfeit nonce.
 */
export function createForfeitBundle(vtxo: ForfeitableVtxo, unlockHash: Uint8Array, userSecretKey: Uint8Array, serverPubNonce: Uint8Array): HashLockedForfeitBundle {
  const f = buildHarkForfeit(vtxo, unlockHash);
  const [user, server] = f.signers;
  const nonce = musigNonceGen({ pubkey: user, secretKey: userSecretKey, aggregateKey: musigTweakedKey(f.signers, f.tweak), message: f.sighash, extra: f.sighash });
  const session = new MusigSession({ pubkeys: [user, server], aggNonce: musigNonceAgg([nonce.pubNonce, serverPubNonce]), message: f.sighash, tweak: f.tweak });
  return { vtxoId: vtxo.point, unlockHash, userPubNonce: nonce.pubNonce, userPartialSig: session.sign(nonce.secNonce, userSecretKey) };
}

/** The server's check of a bundle: its partial signature verifies for `vtxo` and `serverPubNonce`. */
export function verifyForfeitBundle(vtxo: ForfeitableVtxo, bundle: HashLockedForfeitBundle, serverPubNonce: Uint8Array): boolean {
  if (bundle.vtxoId.vout !== vtxo.point.vout || !bundle.vtxoId.txid.every((b, i) => b === vtxo.point.txid[i])) return false;
  const f = buildHarkForfeit(vtxo, bundle.unlockHash);
  const [user, server] = f.signers;
  const session = new MusigSession({ pubkeys: [user, server], aggNonce: musigNonceAgg([bundle.userPubNonce, serverPubNonce]), message: f.sighash, tweak: f.tweak });
  return session.verifyPartial(bundle.userPartialSig, user, [
    { pubkey: user, pubNonce: bundle.userPubNonce },
    { pubkey: server, pubNonce: serverPubNonce },
  ]);
}

/**
 * The server completes the forfeit: signs with its secret nonce and returns the final
 * signature (throws {@link ForfeitError} if the user's half does not verify).
 */
export function completeForfeit(vtxo: ForfeitableVtxo, bundle: HashLockedForfeitBundle, server: { secretKey: Uint8Array; secNonce: Uint8Array; pubNonce: Uint8Array }): { tx: Transaction; signature: Uint8Array } {
  if (!verifyForfeitBundle(vtxo, bundle, server.pubNonce)) throw new ForfeitError("forfeit partial signature does not verify");
  const f = buildHarkForfeit(vtxo, bundle.unlockHash);
  const session = new MusigSession({ pubkeys: f.signers, aggNonce: musigNonceAgg([bundle.userPubNonce, server.pubNonce]), message: f.sighash, tweak: f.tweak });
  const signature = session.aggregate([bundle.userPartialSig, session.sign(server.secNonce, server.secretKey)]);
  const input = f.tx.inputs[0]!;
  return { tx: { ...f.tx, inputs: [{ ...input, witness: [signature] }] }, signature };
}
