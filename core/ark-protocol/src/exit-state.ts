/**
 * The unilateral-exit state machine's data (bark's `ExitState`) and its persistence JSON, which
 * matches bark's serde form: kebab-case `type` tags, snake_case fields, txids in display hex.
 * A block reference is written as `{"height": h, "hash": "<display hex>"}` and read from that
 * object form or from the `"<height>:<hash>"` string form older records use.
 *
 * | State | Terminal | Cancelable |
 * |---|---|---|
 * | `start` | no | yes |
 * | `processing` | no | while the last exit tx is `verify-inputs`, `awaiting-input-confirmation` or `awaiting-cpfp-broadcast` (and the chain does not know it) |
 * | `awaiting-delta`, `claimable`, `claim-in-progress` | no | no |
 * | `claimed`, `vtxo-already-spent`, `canceled` | yes | no (`canceled` again is a no-op) |
 *
 * @example
 * ```ts
 * const state = parseExitState(row.state);     // from the database
 * if (isExitCancelable(state, chainKnowsLastTx)) { … }
 * serializeExitState(startProcessing(tip, exitTxids));
 * ```
 */
import { ProtocolDecodeError } from "./errors.js";

/** A block: height and hash (display hex). */
export interface BlockRef {
  height: number;
  hash: string;
}

/** Who made (or where we found) the CPFP child of an exit tx. */
export type ExitTxOrigin =
  | { type: "wallet"; confirmedIn: BlockRef | null }
  | { type: "mempool" }
  | { type: "block"; confirmedIn: BlockRef };

/** Status of one exit transaction. */
export type ExitTxStatus =
  | { type: "verify-inputs" }
  | { type: "awaiting-input-confirmation"; txids: string[] }
  | { type: "awaiting-cpfp-broadcast" }
  | { type: "awaiting-confirmation"; childTxid: string; origin: ExitTxOrigin }
  | { type: "confirmed"; childTxid: string; block: BlockRef; origin: ExitTxOrigin };

/** One tracked exit transaction. */
export interface ExitTx {
  txid: string;
  status: ExitTxStatus;
}

/** Per-VTXO exit state. */
export type ExitState =
  | { type: "start"; tipHeight: number }
  | { type: "processing"; tipHeight: number; transactions: ExitTx[] }
  | { type: "awaiting-delta"; tipHeight: number; confirmedBlock: BlockRef; claimableHeight: number }
  | { type: "claimable"; tipHeight: number; claimableSince: BlockRef; lastScannedBlock: BlockRef | null }
  | { type: "claim-in-progress"; tipHeight: number; claimableSince: BlockRef; claimTxid: string }
  | { type: "claimed"; tipHeight: number; txid: string; block: BlockRef }
  | { type: "vtxo-already-spent"; tipHeight: number }
  | { type: "canceled"; tipHeight: number };

/** Names of all exit states. */
export type ExitStateKind = ExitState["type"];

/** A malformed exit-state JSON value. */
export class ExitStateDecodeError extends ProtocolDecodeError {}

type Json = Record<string, unknown>;

const HASH_RE = /^[0-9a-f]{64}$/;

function obj(v: unknown, what: string): Json {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new ExitStateDecodeError(`${what}: expected an object`);
  return v as Json;
}

function height(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new ExitStateDecodeError(`${what}: expected a block height`);
  return v;
}

function hash(v: unknown, what: string): string {
  if (typeof v !== "string" || !HASH_RE.test(v.toLowerCase())) throw new ExitStateDecodeError(`${what}: expected a 32-byte hex hash`);
  return v.toLowerCase();
}

/** Parses a block reference from `"<height>:<hash>"` or `{height, hash}`. */
export function parseBlockRef(v: unknown, what = "block"): BlockRef {
  if (typeof v === "string") {
    const i = v.indexOf(":");
    if (i < 0 || !/^\d+$/.test(v.slice(0, i))) throw new ExitStateDecodeError(`${what}: expected <height>:<hash>`);
    return { height: height(Number(v.slice(0, i)), what), hash: hash(v.slice(i + 1), what) };
  }
  const o = obj(v, what);
  return { height: height(o.height, `${what}.height`), hash: hash(o.hash, `${what}.hash`) };
}

function optBlockRef(v: unknown, what: string): BlockRef | null {
  return v === null || v === undefined ? null : parseBlockRef(v, what);
}

function parseOrigin(v: unknown): ExitTxOrigin {
  const o = obj(v, "origin");
  switch (o.type) {
    case "wallet":
      return { type: "wallet", confirmedIn: optBlockRef(o.confirmed_in, "origin.confirmed_in") };
    case "mempool":
      return { type: "mempool" };
    case "block":
      return { type: "block", confirmedIn: parseBlockRef(o.confirmed_in, "origin.confirmed_in") };
    default:
      throw new ExitStateDecodeError(`unknown exit tx origin ${String(o.type)}`);
  }
}

function parseTxStatus(v: unknown): ExitTxStatus {
  const o = obj(v, "status");
  switch (o.type) {
    case "verify-inputs":
    case "awaiting-cpfp-broadcast":
      return { type: o.type };
    case "awaiting-input-confirmation": {
      if (!Array.isArray(o.txids)) throw new ExitStateDecodeError("txids: expected an array");
      return { type: o.type, txids: o.txids.map((t) => hash(t, "txids[]")) };
    }
    case "awaiting-confirmation":
      return { type: o.type, childTxid: hash(o.child_txid, "child_txid"), origin: parseOrigin(o.origin) };
    case "confirmed":
      return { type: o.type, childTxid: hash(o.child_txid, "child_txid"), block: parseBlockRef(o.block), origin: parseOrigin(o.origin) };
    default:
      throw new ExitStateDecodeError(`unknown exit tx status ${String(o.type)}`);
  }
}

/** Parses an exit state from its JSON text or an already-parsed value. */
export function parseExitState(input: string | unknown): ExitState {
  let v: unknown = input;
  if (typeof input === "string") {
    try {
      v = JSON.parse(input);
    } catch {
      throw new ExitStateDecodeError("exit state is not valid JSON");
    }
  }
  const o = obj(v, "exit state");
  const tipHeight = height(o.tip_height, "tip_height");
  switch (o.type) {
    case "start":
    case "vtxo-already-spent":
    case "canceled":
      return { type: o.type, tipHeight };
    case "processing": {
      if (!Array.isArray(o.transactions)) throw new ExitStateDecodeError("transactions: expected an array");
      const transactions = o.transactions.map((t) => {
        const x = obj(t, "transaction");
        return { txid: hash(x.txid, "txid"), status: parseTxStatus(x.status) };
      });
      return { type: o.type, tipHeight, transactions };
    }
    case "awaiting-delta":
      return { type: o.type, tipHeight, confirmedBlock: parseBlockRef(o.confirmed_block, "confirmed_block"), claimableHeight: height(o.claimable_height, "claimable_height") };
    case "claimable":
      return { type: o.type, tipHeight, claimableSince: parseBlockRef(o.claimable_since, "claimable_since"), lastScannedBlock: optBlockRef(o.last_scanned_block, "last_scanned_block") };
    case "claim-in-progress":
      return { type: o.type, tipHeight, claimableSince: parseBlockRef(o.claimable_since, "claimable_since"), claimTxid: hash(o.claim_txid, "claim_txid") };
    case "claimed":
      return { type: o.type, tipHeight, txid: hash(o.txid, "txid"), block: parseBlockRef(o.block) };
    default:
      throw new ExitStateDecodeError(`unknown exit state ${String(o.type)}`);
  }
}

const blockJson = (b: BlockRef): Json => ({ height: b.height, hash: b.hash });
const optBlockJson = (b: BlockRef | null): Json | null => (b ? blockJson(b) : null);

function originJson(o: ExitTxOrigin): Json {
  switch (o.type) {
    case "wallet":
      return { type: o.type, confirmed_in: optBlockJson(o.confirmedIn) };
    case "mempool":
      return { type: o.type };
    case "block":
      return { type: o.type, confirmed_in: blockJson(o.confirmedIn) };
  }
}

function statusJson(s: ExitTxStatus): Json {
  switch (s.type) {
    case "verify-inputs":
    case "awaiting-cpfp-broadcast":
      return { type: s.type };
    case "awaiting-input-confirmation":
      return { type: s.type, txids: [...s.txids] };
    case "awaiting-confirmation":
      return { type: s.type, child_txid: s.childTxid, origin: originJson(s.origin) };
    case "confirmed":
      return { type: s.type, child_txid: s.childTxid, block: blockJson(s.block), origin: originJson(s.origin) };
  }
}

/** The persistence JSON object of a state (bark's serde layout). */
export function exitStateToJson(s: ExitState): Json {
  const base = { type: s.type, tip_height: s.tipHeight };
  switch (s.type) {
    case "start":
    case "vtxo-already-spent":
    case "canceled":
      return base;
    case "processing":
      return { ...base, transactions: s.transactions.map((t) => ({ txid: t.txid, status: statusJson(t.status) })) };
    case "awaiting-delta":
      return { ...base, confirmed_block: blockJson(s.confirmedBlock), claimable_height: s.claimableHeight };
    case "claimable":
      return { ...base, claimable_since: blockJson(s.claimableSince), last_scanned_block: optBlockJson(s.lastScannedBlock) };
    case "claim-in-progress":
      return { ...base, claimable_since: blockJson(s.claimableSince), claim_txid: s.claimTxid };
    case "claimed":
      return { ...base, txid: s.txid, block: blockJson(s.block) };
  }
}

/** JSON text of a state. */
export function serializeExitState(s: ExitState): string {
  return JSON.stringify(exitStateToJson(s));
}

/** `claimed`, `vtxo-already-spent` and `canceled` end an exit attempt. */
export function isTerminalExitState(s: ExitState): boolean {
  return s.type === "claimed" || s.type === "vtxo-already-spent" || s.type === "canceled";
}

/**
 * Whether the exit can still be canceled: in `start`, or in `processing`
 * while the last exit tx is not yet handed to the network and `lastTxKnownToChain` is false.
 */
export function isExitCancelable(s: ExitState, lastTxKnownToChain = false): boolean {
  if (s.type === "start") return true;
  if (s.type !== "processing") return false;
  const last = s.transactions[s.transactions.length - 1];
  if (!last) return true;
  const early = last.status.type === "verify-inputs" || last.status.type === "awaiting-input-confirmation" || last.status.type === "awaiting-cpfp-broadcast";
  return early && !lastTxKnownToChain;
}

/** The wallet VTXO counts as exited from `awaiting-delta` on. */
export function exitWarrantsExitedVtxo(s: ExitState): boolean {
  return s.type === "awaiting-delta" || s.type === "claimable" || s.type === "claim-in-progress" || s.type === "claimed";
}

/** The height from which the VTXO can be claimed, when known. */
export function exitClaimableHeight(s: ExitState): number | undefined {
  if (s.type === "awaiting-delta") return s.claimableHeight;
  if (s.type === "claimable" || s.type === "claim-in-progress") return s.claimableSince.height;
  return undefined;
}

/** The `processing` state a started exit moves to: every exit txid at `verify-inputs`. */
export function startProcessing(tipHeight: number, exitTxids: readonly string[]): ExitState {
  return { type: "processing", tipHeight, transactions: exitTxids.map((txid) => ({ txid: hash(txid, "txid"), status: { type: "verify-inputs" } })) };
}

/**
 * The `awaiting-delta` state once every exit tx confirmed: claimable at the highest
 * confirmation height plus the CSV of the first wallet-signable clause.
 */
export function awaitDelta(tipHeight: number, lastConfirmedBlock: BlockRef, clauseCsv: number): ExitState {
  if (!Number.isInteger(clauseCsv) || clauseCsv <= 0) throw new ExitStateDecodeError("exit clause delay must be positive");
  return { type: "awaiting-delta", tipHeight, confirmedBlock: lastConfirmedBlock, claimableHeight: lastConfirmedBlock.height + clauseCsv };
}
