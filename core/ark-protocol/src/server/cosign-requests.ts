/** The co-signing requests a wallet sends its Ark server, as plain data. Amounts are bigint sats. */

/** One output of an arkoor package: an amount to a VTXO policy (encoded). */
export interface ArkoorOutput {
  readonly amount: bigint;
  readonly policy: Uint8Array;
}

/** The part of an arkoor package that spends one input VTXO. */
export interface ArkoorCosignPart {
  /** The input VTXO's id as a 36-byte outpoint. */
  readonly inputVtxoId: Uint8Array;
  readonly outputs: readonly ArkoorOutput[];
  /** Dust-isolated outputs. */
  readonly isolatedOutputs: readonly ArkoorOutput[];
  /** The user's MuSig2 public nonces, one per transaction to sign. */
  readonly userPubNonces: readonly Uint8Array[];
  readonly useCheckpoint: boolean;
  /** The owner's signature over the part (an arkoor cosign attestation). */
  readonly attestation: Uint8Array;
}

/** The server's answer for one part: its nonces and partial signatures, in the request's order. */
export interface ArkoorCosignResponse {
  readonly serverPubNonces: readonly Uint8Array[];
  readonly serverPartialSigs: readonly Uint8Array[];
}

/** A board's exit transaction to co-sign. */
export interface BoardCosignRequest {
  /** Gross value of the board output, before the board fee. */
  readonly amount: bigint;
  /** The board output (36-byte outpoint). */
  readonly utxo: Uint8Array;
  readonly expiryHeight: number;
  readonly userPubkey: Uint8Array;
  readonly pubNonce: Uint8Array;
  /** The funding transaction, consensus-serialized (it may be unsigned). */
  readonly fundingTx: Uint8Array;
}

/** The server's MuSig2 nonce and partial signature for a board. */
export interface BoardCosignResponse {
  readonly pubNonce: Uint8Array;
  readonly partialSig: Uint8Array;
}
