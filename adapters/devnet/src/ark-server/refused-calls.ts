/**
 * Calls the devnet's controls make the server refuse (`refused_calls`), as a misbehaving Ark
 * server would: a wallet's HTLC revocation, its Lightning receive claim or its board's
 * registration answered with an error (gRPC INTERNAL) whatever the request. Tests use it to drive
 * a wallet into the unilateral exit of its HTLC VTXOs or of a board the server never registered.
 */
import type { ArkServerConfig } from "./server-config.js";

/** The calls that can be refused. */
export const REFUSABLE_CALLS = ["RequestLightningPayHtlcRevocation", "ClaimLightningReceive", "RegisterBoardVtxo"] as const;
export type RefusableCall = (typeof REFUSABLE_CALLS)[number];

/** The refusal of a call listed in `refused_calls`. */
export class RefusedCallError extends Error {
  constructor(call: RefusableCall) {
    super(`${call} refused by the devnet's controls (refused_calls)`);
    this.name = "RefusedCallError";
  }
}

/** Throws {@link RefusedCallError} when `call` is listed in the settings in force. */
export function refuseIfListed(config: Pick<ArkServerConfig, "refusedCalls">, call: RefusableCall): void {
  if (config.refusedCalls?.includes(call)) throw new RefusedCallError(call);
}
