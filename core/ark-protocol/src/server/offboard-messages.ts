/**
 * Offboards (connector swaps) as the wallet sees them, in plain data: `GetOffboardFeeRate`,
 * `PrepareOffboard` (the server builds the offboard tx and hands out one forfeit nonce per input)
 * and `FinishOffboard` (the user's forfeit signatures for the signed offboard tx). Amounts are
 * bigint sats; ids are 36-byte outpoints; transactions are consensus-serialized.
 */

/** `OffboardRequest`: what arrives on chain, where, who pays the fee and at which fee rate. */
export interface OffboardRequestMessage {
  /** Value of the on-chain output the user receives. */
  readonly netAmountSat: bigint;
  /** Destination scriptPubKey. */
  readonly script: Uint8Array;
  /** true: the fee comes out of the inputs' total; false: the fee is on top of the net amount. */
  readonly deductFeesFromGrossAmount: boolean;
  /** The fee rate the fee was computed with, sat per 1000 weight units. */
  readonly feeRateSatPerKwu: bigint;
}

/** `PrepareOffboard`. */
export interface PrepareOffboardRequest {
  readonly offboard: OffboardRequestMessage;
  /** Input VTXO ids (36 bytes each). */
  readonly inputVtxoIds: readonly Uint8Array[];
  /** One `OffboardRequestAttestation` per input, in input order. */
  readonly attestations: readonly Uint8Array[];
}

/** `PrepareOffboard`'s answer. */
export interface PreparedOffboard {
  /** The unsigned offboard transaction. */
  readonly offboardTx: Uint8Array;
  /** One server MuSig2 nonce per input, in input order. */
  readonly forfeitCosignNonces: readonly Uint8Array[];
}

/** `FinishOffboard`. */
export interface FinishOffboardRequest {
  /** Txid of the prepared offboard tx, 32 bytes in internal byte order. */
  readonly offboardTxid: Uint8Array;
  readonly userNonces: readonly Uint8Array[];
  readonly partialSignatures: readonly Uint8Array[];
}
