/**
 * The terms of an offboard, computed the same way for the operation and for its estimate, so the
 * estimate equals what is charged:
 *
 * | operation | gross | fee | net (on chain) |
 * |---|---|---|---|
 * | offboard whole VTXOs | Σ inputs | offboard fee with every input's amount chargeable | gross − fee (≥ the destination's dust, else refused) |
 * | send-onchain | amount + fee | offboard fee over the selected inputs, the amount chargeable | amount (≥ dust) |
 *
 * The fee is the server's offboard schedule at its `GetOffboardFeeRate` (sat/kWu) for the
 * destination script and the inputs' blocks to expiry at the tip.
 */
import {
  FALLBACK_BLOCKS_TO_EXPIRY, FeeError, InsufficientFundsError, blocksToExpiry, btcDisplay, destinationDustLimit, exitDepth, offboardFee, selectVtxos, splitChange,
  type FeeInput, type Vtxo,
} from "@tender/ark-protocol";
import type { OffboardServerInfo } from "./offboard-ports.js";

/** An offboard the wallet refuses before anything is locked or sent (barkd answers 500 with its text). */
export class OffboardRefusedError extends Error {}

/** What a plan is computed with. */
export interface PlanContext {
  readonly info: OffboardServerInfo;
  readonly feeRateSatPerKwu: bigint;
  readonly tipHeight: number;
  /** Destination output script. */
  readonly script: Uint8Array;
}

const feeInputs = (vtxos: readonly Pick<Vtxo, "amount" | "expiryHeight">[], tip: number): FeeInput[] =>
  vtxos.map((v) => ({ amount: v.amount, blocksToExpiry: blocksToExpiry(v.expiryHeight, tip) }));

/** The fee of offboarding `vtxos` whole (every sat chargeable). */
export function wholeOffboardFee(c: PlanContext, vtxos: readonly Pick<Vtxo, "amount" | "expiryHeight">[]): { grossSat: bigint; feeSat: bigint } {
  const gross = vtxos.reduce((t, v) => t + v.amount, 0n);
  return { grossSat: gross, feeSat: offboardFee(c.info.fees, gross, c.script, c.feeRateSatPerKwu, feeInputs(vtxos, c.tipHeight)) };
}

/** A whole-VTXO offboard's terms. */
export interface WholePlan {
  readonly grossSat: bigint;
  readonly feeSat: bigint;
  readonly netSat: bigint;
}

/**
 * Plans offboarding `vtxos` whole: at most `max_offboard_inputs`, the fee leaves at least the
 * destination's dust, no input twice. Throws {@link OffboardRefusedError} with barkd's texts.
 */
export function planWholeOffboard(c: PlanContext, vtxos: readonly { id: string; vtxo: Pick<Vtxo, "amount" | "expiryHeight"> }[]): WholePlan {
  if (vtxos.length > c.info.maxOffboardInputs) throw new OffboardRefusedError(`max inputs for offboard is ${c.info.maxOffboardInputs}, ${vtxos.length} were provided`);
  const { grossSat, feeSat } = wholeOffboardFee(c, vtxos.map((v) => v.vtxo));
  const dust = destinationDustLimit(c.script);
  if (feeSat > grossSat) throw new OffboardRefusedError(`offboard fee leaves dust: Fee (${btcDisplay(feeSat)}) exceeds amount (${btcDisplay(grossSat)})`);
  const net = grossSat - feeSat;
  if (net < dust) {
    throw new OffboardRefusedError(
      `offboard fee leaves dust: Amount after fee (${btcDisplay(net)}) is below dust limit (${btcDisplay(dust)}). Amount: ${btcDisplay(grossSat)}, Fee: ${btcDisplay(feeSat)}`,
    );
  }
  if (new Set(vtxos.map((v) => v.id)).size !== vtxos.length) throw new OffboardRefusedError("offboard inputs must not contain duplicates");
  return { grossSat, feeSat, netSat: net };
}

/** A candidate input of a send-onchain. */
export interface SpendableVtxo {
  readonly id: string;
  readonly vtxo: Vtxo;
}

/** A send-onchain's terms: the inputs, the fee and the change pieces of the arkoor split. */
export interface SendOnchainPlan {
  readonly inputs: SpendableVtxo[];
  readonly feeSat: bigint;
  /** Σ inputs − amount − fee, split as the wallet splits arkoor change. */
  readonly changeSat: bigint[];
}

function selectForSend<T extends SpendableVtxo>(c: PlanContext, candidates: readonly T[], amountSat: bigint): { selected: T[]; total: bigint; fee: bigint } {
  const byId = new Map(candidates.map((v) => [v.id, v]));
  const r = selectVtxos(
    candidates.map((v) => ({ id: v.id, amount: v.vtxo.amount, expiryHeight: v.vtxo.expiryHeight, exitDepth: exitDepth(v.vtxo) })),
    amountSat,
    {
      maxInputs: c.info.maxOffboardInputs,
      ...(c.info.maxVtxoExitDepth ? { maxExitDepth: c.info.maxVtxoExitDepth } : {}),
      fee: (sel) => offboardFee(c.info.fees, amountSat, c.script, c.feeRateSatPerKwu, feeInputs(sel, c.tipHeight)),
    },
  );
  return { selected: r.selected.map((s) => byId.get(s.id)!), total: r.total, fee: r.fee };
}

/** The destination's dust check of a send-onchain: "the minimum you can send to … is …". */
export function checkSendAmount(c: PlanContext, destination: string, amountSat: bigint): void {
  const dust = destinationDustLimit(c.script);
  if (amountSat < dust) throw new OffboardRefusedError(`the minimum you can send to ${destination} is ${btcDisplay(dust)}`);
}

/**
 * Plans sending exactly `amountSat` on chain: fee-aware selection (soonest expiry first, at most
 * `max_offboard_inputs`, none at the exit-depth limit), then the change split. Throws
 * {@link OffboardRefusedError} for dust and insufficient funds.
 */
export function planSendOnchain(c: PlanContext, destination: string, candidates: readonly SpendableVtxo[], amountSat: bigint, splitFactor: number): SendOnchainPlan {
  checkSendAmount(c, destination, amountSat);
  let r;
  try {
    r = selectForSend(c, candidates, amountSat);
  } catch (e) {
    if (e instanceof InsufficientFundsError) throw new OffboardRefusedError(e.message);
    throw e;
  }
  const change = r.total - amountSat - r.fee;
  return { inputs: r.selected, feeSat: r.fee, changeSat: splitChange(change, amountSat + r.fee, splitFactor) };
}

/** An estimate in barkd's `FeeEstimateResponse` terms. */
export interface OffboardEstimate {
  readonly grossSat: bigint;
  readonly feeSat: bigint;
  readonly netSat: bigint;
  readonly vtxosSpent: string[];
}

/** Estimate of offboarding `vtxos` whole: net saturates at 0 (the operation itself refuses instead). */
export function estimateWholeOffboard(c: PlanContext, vtxos: readonly SpendableVtxo[]): OffboardEstimate {
  const { grossSat, feeSat } = wholeOffboardFee(c, vtxos.map((v) => v.vtxo));
  return { grossSat, feeSat, netSat: grossSat > feeSat ? grossSat - feeSat : 0n, vtxosSpent: vtxos.map((v) => v.id) };
}

/**
 * Estimate of a send-onchain: the selection the operation would make; when it fails (not enough
 * funds), one virtual input of the amount at the highest expiry tier prices the fee.
 */
export function estimateSendOnchain(c: PlanContext, candidates: readonly SpendableVtxo[], amountSat: bigint): OffboardEstimate {
  try {
    const r = selectForSend(c, candidates, amountSat);
    return { grossSat: amountSat + r.fee, feeSat: r.fee, netSat: amountSat, vtxosSpent: r.selected.map((v) => v.id) };
  } catch (e) {
    if (!(e instanceof FeeError)) throw e;
    const fee = offboardFee(c.info.fees, amountSat, c.script, c.feeRateSatPerKwu, [{ amount: amountSat, blocksToExpiry: FALLBACK_BLOCKS_TO_EXPIRY }]);
    return { grossSat: amountSat + fee, feeSat: fee, netSat: amountSat, vtxosSpent: [] };
  }
}
