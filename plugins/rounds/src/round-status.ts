import type { Participation } from "./participation.js";

/** barkd's `RoundStatus`, internally tagged by `status`. */
export type RoundStatusJson =
  | { status: "pending" }
  | { status: "unconfirmed"; funding_txid: string }
  | { status: "confirmed"; funding_txid: string }
  | { status: "failed"; error: string }
  | { status: "canceled" }
  | { status: "sync-error"; error: string };

/** barkd's `PendingRoundInfo`. */
export interface PendingRoundInfoJson {
  id: number;
  status: RoundStatusJson;
  participation: { inputs: string[]; outputs: { amount_sat: number; policy_type: string; user_pubkey: string }[] };
  unlock_hash: string | null;
  funding_txid: string | null;
  funding_tx_hex: string | null;
}

/** The status a participation shows without talking to anyone. */
export function storedStatus(p: Participation): RoundStatusJson {
  switch (p.status) {
    case "pending":
    case "submitted":
      return { status: "pending" };
    case "finished":
    case "forfeiting":
      return { status: "unconfirmed", funding_txid: p.fundingTxid ?? "" };
    case "done":
      return { status: "confirmed", funding_txid: p.fundingTxid ?? "" };
    case "failed":
      return { status: "failed", error: p.error ?? "round failed" };
    case "canceled":
      return { status: "canceled" };
  }
}

/** Whether the round's funding transaction is part of what the participation shows. */
function fundingKnown(p: Participation): boolean {
  return p.status === "finished" || p.status === "forfeiting" || p.status === "done";
}

/**
 * The `PendingRoundInfo` of `p` with `status`. As barkd: the unlock hash shows for a delegated
 * participation waiting for its round and once the round finished; the funding transaction once
 * the round finished.
 */
export function pendingRoundInfo(p: Participation, status: RoundStatusJson): PendingRoundInfoJson {
  const unlockShown = (p.kind === "delegated" && p.status === "pending") || fundingKnown(p);
  return {
    id: p.id,
    status,
    participation: {
      inputs: [...p.inputs],
      outputs: p.outputs.map((o) => ({ amount_sat: Number(o.amountSat), policy_type: "pubkey", user_pubkey: o.pubkey })),
    },
    unlock_hash: unlockShown ? p.unlockHash : null,
    funding_txid: fundingKnown(p) ? p.fundingTxid : null,
    funding_tx_hex: fundingKnown(p) ? p.fundingTx : null,
  };
}
