/**
 * A whole arkoor package (bark's `ark::arkoor::package`) and its co-signing round trip: the wallet
 * allocates outputs over its inputs, isolates dust per input, builds every part, sends one
 * public nonce per sighash; the server answers a nonce and a partial signature per sighash;
 * the wallet verifies each, completes the signatures and builds the new VTXOs.
 *
 * @example
 * ```ts
 * const pkg = buildArkoorPackage(inputs, [{ amount: 5_000n, policy: recipient }, ...change]);
 * const nonces = arkoorUserNonces(pkg, keyFor);                       // keep secret halves
 * const answer = arkoorServerCosign(pkg, serverKey, arkoorPubNonces(nonces)); // server side
 * const sigs = arkoorUserFinish(pkg, keyFor, nonces, answer);         // verifies the server
 * const vtxos = arkoorPackageVtxos(pkg, sigs);
 * ```
 */
import { toHex } from "./encoding.js";
import type { VtxoPolicy } from "./policy.js";
import { ArkoorError, allocateArkoorOutputs, isolateDust, type ArkoorDestination } from "./arkoor-allocation.js";
import { arkoorOutputVtxos, buildArkoorPart, type ArkoorInput, type ArkoorPart } from "./arkoor.js";
import { vtxoId, type Vtxo } from "./vtxo.js";
import { arkoorCosignAttestation, type SignedMessage } from "./signatures.js";
import {
  MusigInvalidPartialSignatureError,
  musigCompleteCosign,
  musigNonceGen,
  musigRespondCosign,
  musigTweakedKey,
  type MusigCosignResponse,
  type MusigNonce,
} from "./musig.js";

/** All parts of a package, one per input, in input order. */
export interface ArkoorPackage {
  parts: ArkoorPart[];
}

/** Options of {@link buildArkoorPackage}. */
export interface ArkoorPackageOptions {
  /** Checkpoint mode (default true; the only mode the server accepts for payments). */
  useCheckpoint?: boolean;
  /** Refuse non-`pubkey` inputs (default true, as the server does for payments). */
  requirePubkeyInputs?: boolean;
  maxFanout?: number;
  maxExitDepth?: number;
}

/** Allocates `outputs` over `inputs`, isolates dust per input and builds every part. */
export function buildArkoorPackage(inputs: readonly ArkoorInput[], outputs: readonly ArkoorDestination<VtxoPolicy>[], opts: ArkoorPackageOptions = {}): ArkoorPackage {
  if (opts.requirePubkeyInputs ?? true) {
    for (const i of inputs) if (i.policy.type !== "pubkey") throw new ArkoorError("input-policy", "arkoor inputs must have a pubkey policy");
  }
  const perInput = allocateArkoorOutputs(
    inputs.map((i) => i.amount),
    outputs,
  );
  return { parts: inputs.map((input, k) => buildArkoorPart(input, isolateDust(perInput[k]!), opts)) };
}

/** Looks up the secret key of a VTXO user key (throws if the wallet does not own it). */
export type SecretKeyLookup = (pubkey: Uint8Array) => Uint8Array;

/** One fresh nonce per sighash, per part, bound to its message and tweaked key. */
export function arkoorUserNonces(pkg: ArkoorPackage, keyFor: SecretKeyLookup): MusigNonce[][] {
  return pkg.parts.map((part) => {
    const sk = keyFor(part.signers[0]);
    return part.signing.map((s) =>
      musigNonceGen({ pubkey: part.signers[0], secretKey: sk, aggregateKey: musigTweakedKey(part.signers, s.tweak), message: s.sighash }),
    );
  });
}

/** The public halves to send (`user_pub_nonces`, per part in sighash order). */
export function arkoorPubNonces(nonces: readonly MusigNonce[][]): Uint8Array[][] {
  return nonces.map((p) => p.map((n) => n.pubNonce));
}

/** The server side of `RequestArkoorCosign`: a nonce and a partial signature per sighash. */
export function arkoorServerCosign(pkg: ArkoorPackage, serverSecretKey: Uint8Array, userPubNonces: readonly Uint8Array[][]): MusigCosignResponse[][] {
  if (userPubNonces.length !== pkg.parts.length) throw new ArkoorError("signature", "one nonce list per part expected");
  return pkg.parts.map((part, k) => {
    const nonces = userPubNonces[k]!;
    if (nonces.length !== part.signing.length) throw new ArkoorError("signature", `part ${k}: expected ${part.signing.length} nonces, got ${nonces.length}`);
    return part.signing.map((s, i) =>
      musigRespondCosign({ secretKey: serverSecretKey, pubkey: part.signers[1], otherPubkey: part.signers[0], otherPubNonce: nonces[i]!, message: s.sighash, tweak: s.tweak }),
    );
  });
}

/**
 * Verifies every server partial signature and completes all signatures (per part, signing
 * order). Throws {@link ArkoorError} (kind `signature`) on count mismatches or a bad partial.
 */
export function arkoorUserFinish(pkg: ArkoorPackage, keyFor: SecretKeyLookup, nonces: readonly MusigNonce[][], responses: readonly MusigCosignResponse[][]): Uint8Array[][] {
  if (responses.length !== pkg.parts.length || nonces.length !== pkg.parts.length) throw new ArkoorError("signature", "one response per part expected");
  return pkg.parts.map((part, k) => {
    const resp = responses[k]!;
    const ns = nonces[k]!;
    if (resp.length !== part.signing.length || ns.length !== part.signing.length) throw new ArkoorError("signature", `part ${k}: wrong number of signatures`);
    const sk = keyFor(part.signers[0]);
    return part.signing.map((s, i) => {
      try {
        return musigCompleteCosign({ secretKey: sk, pubkey: part.signers[0], nonce: ns[i]!, otherPubkey: part.signers[1], response: resp[i]!, message: s.sighash, tweak: s.tweak });
      } catch (e) {
        if (e instanceof MusigInvalidPartialSignatureError) throw new ArkoorError("signature", `invalid server partial signature for part ${k}, sighash ${i} (${toHex(s.sighash)})`);
        throw e;
      }
    });
  });
}

/** The new VTXOs of a signed package: per input, its normal outputs then its isolated ones. */
export function arkoorPackageVtxos(pkg: ArkoorPackage, signatures: readonly (readonly (Uint8Array | null)[])[]): Vtxo<VtxoPolicy>[] {
  if (signatures.length !== pkg.parts.length) throw new ArkoorError("signature", "one signature list per part expected");
  return pkg.parts.flatMap((part, k) => arkoorOutputVtxos(part, signatures[k]!));
}

/** The `ArkoorCosignAttestation` message of a part (sign it with the input's user key). */
export function arkoorPartAttestation(part: ArkoorPart): SignedMessage {
  return arkoorCosignAttestation(vtxoId(part.input), part.normal, part.isolated);
}
