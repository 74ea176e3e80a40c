/**
 * Lightning receive as the wallet sees it, in plain data: the wallet asks its Ark server for a
 * hold invoice on its own payment hash (`StartLightningReceive`), waits until the payer's HTLCs
 * are held (`CheckLightningReceive`, or the `IncomingLightningPayment` mailbox message), gets
 * HTLC-recv VTXOs granted from the server's pool (`PrepareLightningReceiveClaim`, proving it may
 * receive with an owned VTXO or an anti-DoS token), then reveals the preimage while having the
 * claim arkoor cosigned (`ClaimLightningReceive`). Amounts are bigint sats; ids 36-byte outpoints.
 */
import type { ArkoorCosignPart, ArkoorCosignResponse } from "./cosign-requests.js";

/** `StartLightningReceive`: a hold invoice for `paymentHash`. */
export interface StartLightningReceiveRequest {
  readonly paymentHash: Uint8Array;
  readonly amountSat: bigint;
  /** The smallest final CLTV delta the invoice may carry. */
  readonly minCltvDelta: number;
  /** The receiver's unblinded mailbox id (for `IncomingLightningPayment`). */
  readonly mailboxId?: Uint8Array;
  /** Invoice memo. */
  readonly description?: string;
}

/** Where a Lightning receive stands on the server. */
export type LightningReceiveState = "created" | "accepted" | "htlcs-ready" | "settled" | "canceled";

/** `CheckLightningReceive`'s answer. */
export interface LightningReceiveStatus {
  readonly invoice: string;
  readonly amountSat: bigint;
  readonly state: LightningReceiveState;
  /** HTLC-recv VTXO ids; empty until `htlcs-ready` or `settled`. */
  readonly htlcVtxoIds: readonly Uint8Array[];
}

/** What proves the wallet may have HTLC-recv VTXOs granted (when the server requires it). */
export type LightningReceiveAntiDos =
  | { readonly kind: "vtxo"; readonly vtxoId: Uint8Array; readonly attestation: Uint8Array }
  | { readonly kind: "token"; readonly token: string };

/** `PrepareLightningReceiveClaim`: HTLC-recv VTXOs to `userPubkey`, expiring at `htlcRecvExpiry`. */
export interface PrepareLightningReceiveClaimRequest {
  readonly paymentHash: Uint8Array;
  readonly userPubkey: Uint8Array;
  /** Absolute block height. */
  readonly htlcRecvExpiry: number;
  readonly antiDos?: LightningReceiveAntiDos;
}

/** `PrepareLightningReceiveClaim`'s answer: the receive and the full HTLC-recv VTXOs. */
export interface PrepareLightningReceiveClaimResponse {
  readonly receive: LightningReceiveStatus;
  readonly htlcVtxos: readonly Uint8Array[];
}

/** `ClaimLightningReceive`: the preimage, and the arkoor package moving the HTLC-recv VTXOs to the wallet. */
export interface ClaimLightningReceiveRequest {
  readonly paymentHash: Uint8Array;
  readonly preimage: Uint8Array;
  readonly parts: readonly ArkoorCosignPart[];
}

export type { ArkoorCosignResponse as ClaimLightningReceiveResponse };
