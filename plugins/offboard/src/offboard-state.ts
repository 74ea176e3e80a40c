/**
 * The persisted state of one offboard action (JSON in the kernel's action table). The request's
 * terms (destination, amounts, committed fee and fee rate, inputs, the send-onchain keys) are fixed
 * when it starts; later fields fill in step by step, each written before the step that needs it
 * talks to the server or the chain. Bytes are hex, amounts decimal strings of sats.
 */
export interface OffboardState {
  /** `offboard`: whole VTXOs, the fee comes out of their total; `send_onchain`: an exact on-chain amount, the fee on top. */
  readonly kind: "offboard" | "send_onchain";
  /** The destination address as given (or the wallet's fresh on-chain address). */
  readonly destination: string;
  /** Its output script. */
  readonly scriptHex: string;
  /** What arrives on chain. */
  readonly netSat: string;
  /** The offboard fee the wallet committed to. */
  readonly feeSat: string;
  /** The server's fee rate the fee was computed with (sat/kWu), sent with every prepare. */
  readonly feeRateSatPerKwu: string;
  /** The wallet's VTXOs the action spends (locked by it from the first step). */
  readonly inputIds: readonly string[];

  // ---- send-onchain only, fixed at start: keys and change of the arkoor split
  /** Key index of the exact-sized VTXO(s) the split creates and the offboard forfeits. */
  readonly offboardKeyIndex?: number;
  /** One key index per change piece. */
  readonly changeKeyIndexes?: readonly number[];
  readonly changeAmounts?: readonly string[];

  /** Whether the first step locked the inputs (it returns once after locking, so the request drives the rest outside the selection). */
  locked?: boolean;

  // ---- after the split (send-onchain): every signed output VTXO of the arkoor package
  splitVtxos?: string[];
  /** Ids of the split's change VTXOs (released once registered). */
  changeIds?: string[];

  /** The VTXOs the offboard forfeits: the inputs (whole offboard) or the split's exact-sized VTXO(s). */
  offboardVtxoIds?: string[];
  /** The `bark.offboard` movement. */
  movementId?: number;

  // ---- after `prepare`: the server's unsigned offboard tx and its forfeit nonces
  preparedTxHex?: string;
  serverNonces?: string[];
  /** Txid of an earlier session's tx, when the finish found the session gone and the tx was not on chain: it may still show up. */
  priorTxid?: string;
  /** Epoch ms before which a re-prepare must not run (a lost session is not re-prepared in a hot loop). */
  notBeforeMs?: number;

  // ---- after `finish`: the signed offboard tx
  signedTxHex?: string;
  offboardTxid?: string;
  /** When the tx was handed to the chain (or adopted from it): the lost-tx grace period counts from here. */
  broadcastAtMs?: number;
  /** Set once the tx was missing for longer than the grace period (the inputs stay locked). */
  lost?: boolean;

  /** The last error a waiting step met, for the HTTP answer and the logs. */
  lastError?: string;
  /** Why the offboard failed. */
  failure?: string;
}

/** Action kind of an offboard in the kernel's action table. */
export const OFFBOARD_ACTION_KIND = "offboard.offboard";

/** Step names, in order (`split` and `registerSplit` only for send-onchain). */
export const OFFBOARD_STEPS = ["lock", "split", "registerSplit", "prepare", "finish", "broadcast", "confirming"] as const;
export type OffboardStepName = (typeof OFFBOARD_STEPS)[number];

/** A field that a previous step must have set (a missing one is a bug or a corrupted row). */
export function need<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`offboard state is missing ${name}`);
  return value;
}

/** The lock holder of a send-onchain's change VTXOs until the server registered them. */
export function changeHolder(actionId: string): string {
  return `${actionId}:change`;
}
