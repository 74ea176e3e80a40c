/**
 * The arkoor split of a send-onchain: the inputs pay one exact-sized output (amount + fee) to the
 * offboard key, and the change pieces to the change keys, co-signed by the server like any arkoor
 * payment but never delivered to a mailbox. The package is a function of the inputs and the keys
 * and amounts fixed at start, so a re-run asks the server for the same package (which it replays).
 */
import { toHex, type Vtxo, type VtxoPolicy } from "@tender/ark-protocol";
import { completeArkoorCosign } from "@tender/plugin-ark";
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
  const signed = await completeArkoorCosign((pk) => keys.secretFor(pk), inputs, outputs, maxExitDepth ? { maxExitDepth } : {}, (parts) => server.arkoorCosign(parts));
  const offboardKey = toHex(out.offboardPubkey);
  const isOffboard = (v: Vtxo) => v.policy.type === "pubkey" && toHex(v.policy.userPubkey) === offboardKey;
  return { offboard: signed.filter(isOffboard), change: signed.filter((v) => !isOffboard(v)) };
}
