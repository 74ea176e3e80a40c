import {
  arkoorPackageVtxos, arkoorPartAttestation, arkoorUserFinish, arkoorUserNonces, buildArkoorPackage, encodePolicy, signAttestation, toHex, vtxoId,
  type ArkoorPackageOptions, type Vtxo, type VtxoPolicy,
} from "@tender/ark-protocol";
import type { ArkoorCosignPart, ArkoorCosignResponse } from "@tender/ark-protocol/server";
import type { ArkKeys } from "@tender/plugin-ark";

/**
 * Builds an arkoor package with checkpoints over `inputs`, has the server cosign it through
 * `request` (the HTLC cosign or the revocation) and returns every signed output VTXO.
 */
export async function cosignPackage(
  keys: ArkKeys, inputs: readonly Vtxo[], outputs: readonly { amount: bigint; policy: VtxoPolicy }[],
  opts: ArkoorPackageOptions, request: (parts: ArkoorCosignPart[]) => Promise<ArkoorCosignResponse[]>,
): Promise<Vtxo[]> {
  const secretFor = (pk: Uint8Array) => {
    const k = keys.keyByPubkey(pk);
    if (!k) throw new Error(`no key for ${toHex(pk)}`);
    return k.secretKey;
  };
  const pkg = buildArkoorPackage(inputs, outputs, opts);
  const nonces = arkoorUserNonces(pkg, secretFor);
  const enc = (d: { amount: bigint; policy: VtxoPolicy }) => ({ amount: d.amount, policy: encodePolicy(d.policy) });
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
  return arkoorPackageVtxos(pkg, arkoorUserFinish(pkg, secretFor, nonces, responses)) as Vtxo[];
}
