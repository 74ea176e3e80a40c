import { exitDepth, formatOutPoint, policyUserPubkey, toHex } from "@tender/ark-protocol";
import type { StoredVtxo } from "./vtxo-store.js";

/** barkd's `WalletVtxoInfo`: the VTXO's fields flattened, plus its `state`. */
export interface WalletVtxoInfoJson {
  id: string;
  amount_sat: number;
  policy_type: string;
  user_pubkey: string;
  server_pubkey: string;
  expiry_height: number;
  exit_delta: number;
  chain_anchor: string;
  exit_depth: number;
  state: { type: "spendable" | "spent" | "exited" } | { type: "locked"; action_id?: string };
}

/** The `WalletVtxoInfo` JSON of a stored VTXO. */
export function walletVtxoInfo(v: StoredVtxo): WalletVtxoInfoJson {
  const user = policyUserPubkey(v.vtxo.policy);
  return {
    id: v.id,
    amount_sat: Number(v.amountSat),
    policy_type: v.vtxo.policy.type,
    user_pubkey: user ? toHex(user) : "",
    server_pubkey: toHex(v.vtxo.serverPubkey),
    expiry_height: v.vtxo.expiryHeight,
    exit_delta: v.vtxo.exitDelta,
    chain_anchor: formatOutPoint(v.vtxo.anchorPoint),
    exit_depth: exitDepth(v.vtxo),
    state: v.state === "locked" ? { type: "locked", ...(v.lockedBy ? { action_id: v.lockedBy } : {}) } : { type: v.state },
  };
}
