/**
 * Whether a payment the server reports succeeded took this send's HTLC VTXOs. The server's
 * status is per payment hash, so when two wallets pay one invoice it may be the other wallet's
 * success. On success the server flips the HTLC-send VTXOs of the attempt that paid from
 * spendable to spent (captaind: `ln-spent`, answered as spent) in the transaction that records
 * the success, so a send whose status says succeeded while its own HTLCs are still spendable was
 * not the one paid: its HTLCs never left the wallet's control.
 */
import { decodeVtxo, fromHex, signAttestation, vtxoId, vtxoStatusAttestation } from "@tender/ark-protocol";
import type { VtxoSpendState } from "@tender/ark-protocol/server";
import type { LightningRail } from "./lightning-rail.js";
import type { LightningSendState } from "./send-state.js";

/**
 * What the HTLCs' spend states say: `taken` (every one spent: the payment took them), `held`
 * (every one still spendable: the success is another payer's), or `mixed` (anything else; no
 * conclusion either way).
 */
export type HtlcEvidence = "taken" | "held" | "mixed";

/** Reads the server's spend state of every HTLC VTXO of the send (asked as their owner, key H); throws when the server does not answer. */
export async function htlcEvidence(w: LightningRail, s: LightningSendState): Promise<HtlcEvidence> {
  const key = w.keys.deriveVtxoKey(s.htlcKeyIndex);
  const states: VtxoSpendState[] = [];
  for (const hex of s.htlcs ?? []) {
    const id = vtxoId(decodeVtxo(fromHex(hex)));
    states.push(await w.server.getVtxoStatus(id, signAttestation(vtxoStatusAttestation(id), key.secretKey)));
  }
  if (states.length > 0 && states.every((x) => x === "spent")) return "taken";
  if (states.length > 0 && states.every((x) => x === "spendable")) return "held";
  return "mixed";
}
