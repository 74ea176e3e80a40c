/**
 * Protocol constants (from bark's `ark` and `bitcoin_ext` crates) that no other module owns.
 * (Bounds live in `encoding.ts`, dust limits in `vtxo-validate.ts`, the P2A script in
 * `script.ts`, board and arkoor limits in `board.ts` / `arkoor-allocation.ts`.)
 */

/** Virtual size of a P2A fee-anchor output, in vbytes. */
export const FEE_ANCHOR_OUTPUT_VSIZE = 13;
/** Witness weight of spending a P2A anchor (empty witness), in weight units. */
export const FEE_ANCHOR_SPEND_WITNESS_WU = 1;
/** Witness weight of a taproot key-path spend (64-byte signature), in weight units. */
export const TAPROOT_KEYSPEND_WITNESS_WU = 66;
/** Declared exit-transaction size in vbytes (informative; not used by current flows). */
export const EXIT_TX_VSIZE = 124;
/** Minimum fee of an HTLC, in sats. */
export const HTLC_MIN_FEE_SAT = 330n;
/** Size of a Lightning preimage and of a payment hash. */
export const PREIMAGE_SIZE = 32;
/** Largest number of VTXOs in one arkoor mailbox post. */
export const MAX_ARKOOR_VTXOS_PER_POST = 100;
/** Largest number of VTXO ids in one recovery-mailbox post. */
export const MAX_RECOVERY_IDS_PER_POST = 20;
/** Confirmations after which exit transactions are no longer re-checked. */
export const DEEPLY_CONFIRMED_BLOCKS = 100;
/** Fee-rate confirmation targets in blocks. */
export const FEERATE_TARGET_BLOCKS = { fast: 1, regular: 3, slow: 6 } as const;
