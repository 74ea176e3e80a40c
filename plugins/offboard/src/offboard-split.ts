/**
 * The arkoor split of a send-onchain: the inputs pay one exact-sized output (amount + fee) to the
 * offboard key, and the change pieces to the change keys, co-signed by the server like any arkoor
 * payment but never delivered to a mailbox. The package is a function of the inputs and the keys
 * and amounts fixed at start, so a re-run asks the server for the same package (which it replays).
 */
import {
  arkoorPackageVtxos, arkoorPartAttestation, arkoorUserFinish, arkoorUserNonces, buildArkoorPackage, encodePolicy, signAttestation, toHex, vtxoId,
  type Vtxo, type VtxoPolicy,
} from "@tender/ark-protocol";
import type { OffboardKeys, OffboardServer } from "./offboard-ports.js";

/** What the split pays. */
export interface SplitOutputs {
  readonly offboardPubkey: Uint8Array;
  readonly offboardSat: bigint;
  readonly change: readonly { pubkey: Uint8Array; amountSat: bigint }[];
}

/** The split's signed VTXOs: those the offboard forfeits and the change. */
export interface SplitResult {
  readonly offboard: Vtxo[];
  readonly change: Vtxo[];
}

const pubkeyPolicy = (userPubkey: Uint8Array): VtxoPolicy => ({ type: "pubkey", userPubkey });

/** Builds, has the server co-sign and completes the split package. Throws the server's errors and `ProtocolError`s. */
export async function cosignSplit(server: OffboardServer, keys: OffboardKeys, inputs: readonly Vtxo[], out: SplitOutputs, maxExitDepth: number): Promise<SplitResult> {
  const outputs = [
    { amount: out.offboardSat, policy: pubkeyPolicy(out.offboardPubkey) },
    ...out.change.map((c) => ({ amount: c.amountSat, policy: pubkeyPolicy(c.pubkey) })),
  ];
  const pkg = buildArkoorPackage(inputs, outputs, maxExitDepth ? { maxExitDepth } : {});
  const secretFor = (pk: Uint8Array) => keys.secretFor(pk);
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
  const res = await server.arkoorCosign(parts);
  const responses = res.map((p) => p.serverPubNonces.map((n, i) => ({ pubNonce: n, partialSig: p.serverPartialSigs[i]! })));
  const signed = arkoorPackageVtxos(pkg, arkoorUserFinish(pkg, secretFor, nonces, responses)) as Vtxo[];
  const offboardKey = toHex(out.offboardPubkey);
  const isOffboard = (v: Vtxo) => v.policy.type === "pubkey" && toHex(v.policy.userPubkey) === offboardKey;
  return { offboard: signed.filter(isOffboard), change: signed.filter((v) => !isOffboard(v)) };
}
