/**
 * Fee estimates in the shape of barkd's `/api/v1/fees/*`: `{gross, fee, net, vtxosSpent}` where
 * net = gross − fee saturates at 0 (the operations themselves fail instead).
 */
import { FeeError, boardFee, lightningReceiveFee, lightningSendFee, type FeeInput, type FeeSchedule } from "./fees.js";
import { selectVtxos, type SelectableVtxo } from "./fees-selection.js";

/** One estimate. */
export interface FeeEstimate {
  grossAmountSat: bigint;
  feeSat: bigint;
  netAmountSat: bigint;
  /** Ids of the VTXOs that would be spent (empty when none are involved). */
  vtxosSpent: string[];
}

/** A requested amount outside the server's limits. */
export class AmountLimitError extends FeeError {}

const net = (gross: bigint, fee: bigint): bigint => (gross > fee ? gross - fee : 0n);

/** Board estimate: checks `min_board_amount` and `max_vtxo_amount`; on-chain fee excluded. */
export function estimateBoard(s: FeeSchedule, amount: bigint, limits: { minBoardAmount: bigint; maxVtxoAmount?: bigint }): FeeEstimate {
  if (amount < limits.minBoardAmount) throw new AmountLimitError(`board amount ${amount} below the minimum ${limits.minBoardAmount}`);
  if (limits.maxVtxoAmount !== undefined && amount > limits.maxVtxoAmount) throw new AmountLimitError(`board amount ${amount} above the maximum ${limits.maxVtxoAmount}`);
  const fee = boardFee(s.board, amount);
  return { grossAmountSat: amount, feeSat: fee, netAmountSat: net(amount, fee), vtxosSpent: [] };
}

/** Lightning receive estimate: gross = amount, net = amount − fee. */
export function estimateLightningReceive(s: FeeSchedule, amount: bigint, maxVtxoAmount?: bigint): FeeEstimate {
  if (maxVtxoAmount !== undefined && amount > maxVtxoAmount) throw new AmountLimitError(`amount ${amount} above the maximum ${maxVtxoAmount}`);
  const fee = lightningReceiveFee(s.lightningReceive, amount);
  return { grossAmountSat: amount, feeSat: fee, netAmountSat: net(amount, fee), vtxosSpent: [] };
}

/** Blocks-to-expiry of the virtual input priced when selection fails (highest tier). */
export const FALLBACK_BLOCKS_TO_EXPIRY = 0xffffffff;

/**
 * Lightning send estimate: runs fee-aware selection over the wallet's VTXOs; if that fails,
 * prices one virtual input of `amount` at the highest expiry tier. gross = amount + fee.
 */
export function estimateLightningSend(s: FeeSchedule, amount: bigint, vtxos: readonly SelectableVtxo[], tipHeight: number, maxExitDepth?: number): FeeEstimate {
  const toInputs = (sel: readonly SelectableVtxo[]): FeeInput[] => sel.map((v) => ({ amount: v.amount, blocksToExpiry: Math.max(0, v.expiryHeight - tipHeight) }));
  try {
    const r = selectVtxos(vtxos, amount, { maxExitDepth, fee: (sel) => lightningSendFee(s.lightningSend, amount, toInputs(sel)) });
    return { grossAmountSat: amount + r.fee, feeSat: r.fee, netAmountSat: amount, vtxosSpent: r.selected.map((v) => v.id) };
  } catch (e) {
    if (!(e instanceof FeeError)) throw e;
    const fee = lightningSendFee(s.lightningSend, amount, [{ amount, blocksToExpiry: FALLBACK_BLOCKS_TO_EXPIRY }]);
    return { grossAmountSat: amount + fee, feeSat: fee, netAmountSat: amount, vtxosSpent: [] };
  }
}

/** Arkoor estimate: free; lists the VTXOs that would be spent. */
export function estimateArkoor(amount: bigint, vtxos: readonly SelectableVtxo[], maxExitDepth?: number): FeeEstimate {
  const r = selectVtxos(vtxos, amount, { maxExitDepth });
  return { grossAmountSat: amount, feeSat: 0n, netAmountSat: amount, vtxosSpent: r.selected.map((v) => v.id) };
}
