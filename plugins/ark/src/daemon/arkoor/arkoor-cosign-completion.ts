/**
 * One arkoor cosign, from the user's side: build the checkpointed package over the inputs, send
 * every part with its user nonces and attestation to the server, and finish the signatures with
 * the server's nonces and partial signatures. The arkoor send, the Lightning HTLC legs and the
 * offboard split all pay through this; each chooses how the request reaches the server.
 */
import {
  arkoorPackageVtxos, arkoorPartAttestation, arkoorUserFinish, arkoorUserNonces, buildArkoorPackage, encodePolicy, signAttestation, toHex, vtxoId,
  type ArkoorPackage, type ArkoorPackageOptions, type SecretKeyLookup, type Vtxo, type VtxoPolicy,
} from "@tender/ark-protocol";
import type { ArkoorCosignPart, ArkoorCosignResponse } from "@tender/ark-protocol/server";
import type { ArkKeys } from "../keys/ark-keys.js";

/** An output of an arkoor package. */
export interface ArkoorOutput {
  readonly amount: bigint;
  readonly policy: VtxoPolicy;
}

/**
 * The secret key of a VTXO key by its public key, read where it must be (the wallet's older keys
 * are in its database); throws for a key the wallet does not own.
 */
export type KeySecrets = (pubkey: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** The secret key of one of the wallet's VTXO keys; throws for a key the wallet does not own. */
export function arkKeySecrets(keys: ArkKeys): KeySecrets {
  return async (pubkey) => {
    const k = await keys.keyByPubkey(pubkey);
    if (!k) throw new Error(`no key for ${toHex(pubkey)}`);
    return k.secretKey;
  };
}

/** The secrets of the package's signing keys, looked up once, for the protocol core's synchronous steps. */
async function packageSecrets(secretFor: KeySecrets, pkg: ArkoorPackage): Promise<SecretKeyLookup> {
  const known = new Map<string, Uint8Array>();
  for (const part of pkg.parts) {
    for (const pubkey of [part.signers[0], part.input.policy.userPubkey]) {
      const hex = toHex(pubkey);
      if (!known.has(hex)) known.set(hex, await secretFor(pubkey));
    }
  }
  return (pubkey) => {
    const sk = known.get(toHex(pubkey));
    if (!sk) throw new Error(`no key for ${toHex(pubkey)}`);
    return sk;
  };
}

/** A cosigned package: every signed output VTXO, and the final signatures they were built with. */
export interface CosignedArkoor {
  readonly vtxos: Vtxo[];
  /** Per part, per sighash (null where a part signs none there): with the inputs and outputs they rebuild `vtxos` ({@link rebuildArkoorVtxos}). */
  readonly signatures: (Uint8Array | null)[][];
}

/**
 * Builds the arkoor package (with checkpoints) paying `outputs` from `inputs`, has the server
 * cosign it through `request` and returns every signed output VTXO. Throws `ProtocolError`s for a
 * package that cannot be built or a cosign that does not verify, and whatever `request` throws.
 */
export async function completeArkoorCosign(
  secretFor: KeySecrets, inputs: readonly Vtxo[], outputs: readonly ArkoorOutput[], opts: ArkoorPackageOptions,
  request: (parts: ArkoorCosignPart[]) => Promise<readonly ArkoorCosignResponse[]>,
): Promise<Vtxo[]> {
  return (await cosignArkoor(secretFor, inputs, outputs, opts, request)).vtxos;
}

/** {@link completeArkoorCosign}, answering the final signatures too (what a payment persists). */
export async function cosignArkoor(
  keySecrets: KeySecrets, inputs: readonly Vtxo[], outputs: readonly ArkoorOutput[], opts: ArkoorPackageOptions,
  request: (parts: ArkoorCosignPart[]) => Promise<readonly ArkoorCosignResponse[]>,
): Promise<CosignedArkoor> {
  const pkg = buildArkoorPackage(inputs, outputs, opts);
  const secretFor = await packageSecrets(keySecrets, pkg);
  const nonces = arkoorUserNonces(pkg, secretFor);
  const enc = (d: ArkoorOutput) => ({ amount: d.amount, policy: encodePolicy(d.policy) });
  const parts = pkg.parts.map((part, k) => ({
    inputVtxoId: vtxoId(part.input),
    outputs: part.normal.map(enc),
    isolatedOutputs: part.isolated.map(enc),
    userPubNonces: nonces[k]!.map((n) => n.pubNonce),
    useCheckpoint: true,
    attestation: signAttestation(arkoorPartAttestation(part), secretFor(part.input.policy.userPubkey)),
  }));
  const res = await request(parts);
  const responses = res.map((p) => p.serverPubNonces.map((n, i) => ({ pubNonce: n, partialSig: p.serverPartialSigs[i]! })));
  const signatures = arkoorUserFinish(pkg, secretFor, nonces, responses);
  return { vtxos: arkoorPackageVtxos(pkg, signatures) as Vtxo[], signatures };
}

/**
 * The signed output VTXOs of a package cosigned before, from its inputs, outputs and final
 * signatures: the package is built again exactly as it was (its construction is deterministic),
 * without its checks — it passed them, and the server cosigned it, under the limits of that time.
 */
export function rebuildArkoorVtxos(inputs: readonly Vtxo[], outputs: readonly ArkoorOutput[], signatures: readonly (readonly (Uint8Array | null)[])[]): Vtxo[] {
  return arkoorPackageVtxos(buildArkoorPackage(inputs, outputs, { maxExitDepth: Number.POSITIVE_INFINITY, maxFanout: Number.POSITIVE_INFINITY }), signatures) as Vtxo[];
}
