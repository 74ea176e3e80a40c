/**
 * Lightning send as the wallet sees it, in plain data: the HTLC package is cosigned like an arkoor
 * package (`RequestLightningPayHtlcCosign`, `RequestLightningPayHtlcRevocation`), then
 * `InitiateLightningPayment` hands the invoice and the HTLC VTXOs to the server, which pays it on
 * Lightning; `CheckLightningPayment` tells where it stands. BOLT12 offers are turned into an
 * invoice by the server (`FetchBolt12Invoice`). Amounts are bigint sats; ids are 36-byte outpoints.
 */

/** `InitiateLightningPayment`: pay `invoice` with the HTLC VTXOs the server cosigned. */
export interface InitiateLightningPaymentRequest {
  /** BOLT11 invoice, or a BOLT12 invoice as its bech32 string. */
  readonly invoice: string;
  /** The HTLC VTXO ids, sorted. */
  readonly htlcVtxoIds: readonly Uint8Array[];
  /** What the payee gets (the invoice amount, or the user's amount for an amountless invoice). */
  readonly paymentAmountSat: bigint;
  /** The wallet's unblinded mailbox id, for the `LightningSendFinished` message. */
  readonly mailboxId?: Uint8Array;
}

/** `CheckLightningPayment`'s answer. A success always carries the preimage. */
export type LightningPaymentStatus =
  | { readonly status: "pending" }
  | { readonly status: "success"; readonly preimage: Uint8Array }
  | { readonly status: "failed" };

/** `FetchBolt12Invoice`: an invoice for a BOLT12 offer (raw TLV bytes), for `amountSat` or the offer's amount. */
export interface FetchBolt12InvoiceRequest {
  readonly offer: Uint8Array;
  readonly amountSat?: bigint;
}
