/**
 * Boarding (bark's `ark::board`): the funding output the user pays on-chain, the board exit tx the
 * user and server co-sign before the funding tx is broadcast, and the checks on amount and fee.
 *
 * | Object | Definition |
 * |---|---|
 * | funding output | P2TR, internal key agg(U, S), one leaf TimelockSign(S, E); value A |
 * | exit tx | v3, locktime 0, input = funding outpoint (sequence 0), outputs `[pubkey(U) worth A − F, P2A worth F]` |
 * | signature | MuSig2(U, S), key path, tweak = funding TapTweak, over the exit tx's sighash |
 * | VTXO | amount A − F, one `cosigned` genesis item `[U, S]`, id = (exit txid, 0) |
 *
 * @example
 * ```ts
 * const params = { userPubkey, serverPubkey, expiryHeight: tip + 4320, exitDelta: 144 };
 * const fundingScript = boardFundingTaproot(params).scriptPubKey;       // pay A here
 * const board = buildBoardExit(params, fundingOutpoint, A, boardFee(fees.board, A));
 * // co-sign board.sighash with tweak board.tweak (musig.ts), then:
 * const vtxo = boardVtxo(board, signature);
 * ```
 */
import { ProtocolError } from "./errors.js";
import type { OutPoint, TxOut } from "./encoding.js";
import { aggregateXOnly, toXOnly } from "./keys.js";
import { clauseScript } from "./clause.js";
import { taprootOutput, type TaprootOutput } from "./taproot.js";
import { policyScriptPubKey, type PubkeyPolicy } from "./policy.js";
import { P2A_SCRIPT } from "./script.js";
import { txid, type Transaction } from "./tx.js";
import type { Vtxo } from "./vtxo.js";
import { bytesEqual, outPointEquals } from "./encoding.js";
import { taprootSighash } from "./sighash.js";

/** Output index of the board VTXO in the board exit tx. */
export const BOARD_EXIT_VTXO_VOUT = 0;
/** Maximum inputs of a board funding tx the server accepts. */
export const MAX_BOARD_FUNDING_INPUTS = 100;

/** Why a board was refused. */
export type BoardErrorKind = "zero-amount" | "fee-higher-than-amount" | "zero-after-fee" | "signature" | "not-a-board" | "amount-bounds" | "expiry" | "funding-tx";

/** A board amount/fee combination that cannot make a VTXO. */
export class BoardError extends ProtocolError {
  constructor(
    readonly kind: BoardErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** What fixes a board before the funding tx exists. */
export interface BoardParams {
  /** Fresh VTXO key U (33 bytes). */
  userPubkey: Uint8Array;
  /** Server key S (33 bytes). */
  serverPubkey: Uint8Array;
  /** E = tip + vtxo_lifetime when the funding address was made. */
  expiryHeight: number;
  /** Δ = ArkInfo.vtxo_exit_delta. */
  exitDelta: number;
}

/** The board funding taproot ("cosign taproot"): agg(U, S) with one TimelockSign(S, E) leaf. */
export function boardFundingTaproot(p: Pick<BoardParams, "userPubkey" | "serverPubkey" | "expiryHeight">): TaprootOutput {
  const leaf = clauseScript({ kind: "timelock-sign", key: toXOnly(p.serverPubkey), height: p.expiryHeight });
  return taprootOutput(aggregateXOnly([p.userPubkey, p.serverPubkey]), leaf);
}

/** Checks a board amount A against its fee F (reference `BoardFundingError`). */
export function checkBoardAmounts(amount: bigint, fee: bigint): void {
  if (amount === 0n) throw new BoardError("zero-amount", "amount is zero");
  if (fee > amount) throw new BoardError("fee-higher-than-amount", `fee larger than amount: amount ${amount}, fee ${fee}`);
  if (amount - fee <= 0n) throw new BoardError("zero-after-fee", `amount after fee is <= 0: amount ${amount}, fee ${fee}`);
}

/** Everything needed to co-sign a board and to build its VTXO. */
export interface BoardExit {
  params: BoardParams;
  fundingOutpoint: OutPoint;
  /** The funding output (value A, funding script). */
  fundingOutput: TxOut;
  fundingTaproot: TaprootOutput;
  /** Unsigned exit tx. */
  exitTx: Transaction;
  /** Exit txid (internal order); the VTXO id is (exitTxid, 0). */
  exitTxid: Uint8Array;
  /** BIP-341 key-path sighash of the exit tx (the MuSig2 message). */
  sighash: Uint8Array;
  /** MuSig2 x-only tweak = funding TapTweak. */
  tweak: Uint8Array;
  vtxoAmount: bigint;
  fee: bigint;
}

/** Builds the board exit tx and its sighash for a funding output of `amount` at `fundingOutpoint`. */
export function buildBoardExit(params: BoardParams, fundingOutpoint: OutPoint, amount: bigint, fee: bigint): BoardExit {
  checkBoardAmounts(amount, fee);
  const fundingTaproot = boardFundingTaproot(params);
  const fundingOutput: TxOut = { value: amount, script: fundingTaproot.scriptPubKey };
  const policy: PubkeyPolicy = { type: "pubkey", userPubkey: params.userPubkey };
  const vtxoAmount = amount - fee;
  const exitTx: Transaction = {
    version: 3,
    locktime: 0,
    inputs: [{ prevout: fundingOutpoint, scriptSig: new Uint8Array(0), sequence: 0, witness: [] }],
    outputs: [
      { value: vtxoAmount, script: policyScriptPubKey(policy, { serverPubkey: params.serverPubkey, exitDelta: params.exitDelta, expiryHeight: params.expiryHeight }) },
      { value: fee, script: P2A_SCRIPT },
    ],
  };
  return {
    params,
    fundingOutpoint,
    fundingOutput,
    fundingTaproot,
    exitTx,
    exitTxid: txid(exitTx),
    sighash: taprootSighash(exitTx, 0, [fundingOutput]),
    tweak: fundingTaproot.tweak,
    vtxoAmount,
    fee,
  };
}

/** The exit tx with its key-path witness (the final 64-byte co-signature). */
export function signedBoardExitTx(board: BoardExit, signature: Uint8Array): Transaction {
  if (signature.length !== 64) throw new BoardError("signature", "board signature must be 64 bytes");
  const input = board.exitTx.inputs[0]!;
  return { ...board.exitTx, inputs: [{ ...input, witness: [signature] }] };
}

/**
 * The board VTXO: amount A − F, anchored at the funding outpoint, one `cosigned` item
 * `[U, S]` with output index 0 and fee F; `signature` null gives the unsigned VTXO.
 */
export function boardVtxo(board: BoardExit, signature: Uint8Array | null): Vtxo<PubkeyPolicy> {
  if (signature && signature.length !== 64) throw new BoardError("signature", "board signature must be 64 bytes");
  const { params } = board;
  return {
    amount: board.vtxoAmount,
    expiryHeight: params.expiryHeight,
    serverPubkey: params.serverPubkey,
    exitDelta: params.exitDelta,
    anchorPoint: board.fundingOutpoint,
    genesis: [{ transition: { kind: "cosigned", pubkeys: [params.userPubkey, params.serverPubkey], signature }, outputIdx: BOARD_EXIT_VTXO_VOUT, otherOutputs: [], feeAmount: board.fee }],
    policy: { type: "pubkey", userPubkey: params.userPubkey },
    point: { txid: board.exitTxid, vout: BOARD_EXIT_VTXO_VOUT },
  };
}

/**
 * The server's check at `RegisterBoardVtxo` (after `validateVtxo`): the VTXO is a board of
 * `serverPubkey` funded by `fundingTx` — one `cosigned` item, and the exit tx rebuilt from
 * amount + fee has the VTXO's id. Returns the rebuilt board; throws {@link BoardError}.
 */
export function boardFromVtxo(vtxo: Vtxo, fundingTx: Transaction, serverPubkey: Uint8Array): BoardExit {
  if (!bytesEqual(txid(fundingTx), vtxo.anchorPoint.txid)) throw new BoardError("not-a-board", "funding txid mismatch");
  if (!bytesEqual(vtxo.serverPubkey, serverPubkey)) throw new BoardError("not-a-board", "server pubkey mismatch");
  const item = vtxo.genesis[0];
  if (vtxo.genesis.length !== 1 || !item) throw new BoardError("not-a-board", `incorrect number of genesis items ${vtxo.genesis.length}, should be 1`);
  if (vtxo.policy.type !== "pubkey") throw new BoardError("not-a-board", "board VTXOs have a pubkey policy");
  const board = buildBoardExit(
    { userPubkey: vtxo.policy.userPubkey, serverPubkey, expiryHeight: vtxo.expiryHeight, exitDelta: vtxo.exitDelta },
    vtxo.anchorPoint,
    vtxo.amount + item.feeAmount,
    item.feeAmount,
  );
  if (!outPointEquals({ txid: board.exitTxid, vout: BOARD_EXIT_VTXO_VOUT }, vtxo.point)) throw new BoardError("not-a-board", "vtxo id mismatch");
  return board;
}

/** What the server knows when it receives `RequestBoardCosign` (before any funding tx is signed). */
export interface BoardCosignRequestCheck {
  amount: bigint;
  fee: bigint;
  expiryHeight: number;
  fundingOutpoint: OutPoint;
  /** The unsigned funding tx the client sent. */
  fundingTx: Transaction;
  /** Also the user key of the request, to rebuild the funding script. */
  userPubkey: Uint8Array;
  serverPubkey: Uint8Array;
  tipHeight: number;
  vtxoLifetime: number;
  minBoardAmount: bigint;
  maxVtxoAmount?: bigint;
}

/**
 * The server's stateless checks of a board cosign request: amount bounds (≥ max(min, 330),
 * ≤ max VTXO amount), fee, expiry window (`E ≥ tip`, `E − tip ≤ lifetime + 3`), and that the
 * funding tx has ≤ 100 inputs and pays the board funding script the amount at the outpoint.
 * Chain lookups (inputs exist, not a known virtual tx) stay with the caller.
 */
export function checkBoardCosignRequest(r: BoardCosignRequestCheck): void {
  const min = r.minBoardAmount > 330n ? r.minBoardAmount : 330n;
  if (r.amount < min) throw new BoardError("amount-bounds", `board amount ${r.amount} below the minimum ${min}`);
  if (r.maxVtxoAmount !== undefined && r.amount > r.maxVtxoAmount) throw new BoardError("amount-bounds", `board amount ${r.amount} above the maximum ${r.maxVtxoAmount}`);
  checkBoardAmounts(r.amount, r.fee);
  if (r.expiryHeight < r.tipHeight || r.expiryHeight - r.tipHeight > r.vtxoLifetime + 3) throw new BoardError("expiry", `expiry height ${r.expiryHeight} outside the allowed window`);
  if (r.fundingTx.inputs.length > MAX_BOARD_FUNDING_INPUTS) throw new BoardError("funding-tx", "board funding tx has too many inputs");
  if (!bytesEqual(txid(r.fundingTx), r.fundingOutpoint.txid)) throw new BoardError("funding-tx", "funding tx does not match the outpoint");
  const out = r.fundingTx.outputs[r.fundingOutpoint.vout];
  const script = boardFundingTaproot({ userPubkey: r.userPubkey, serverPubkey: r.serverPubkey, expiryHeight: r.expiryHeight }).scriptPubKey;
  if (!out || out.value !== r.amount || !bytesEqual(out.script, script)) throw new BoardError("funding-tx", "funding output does not pay the board script the board amount");
}
