/**
 * Ark fee schedule and fee computations (bark's `ark::fees`); the server announces its schedule
 * in `ArkInfo.fees`.
 *
 * | Kind | Fee |
 * |---|---|
 * | board | `max(min_fee, base_fee + ceil_ppm(amount, ppm))` |
 * | refresh | `base_fee + ppm_expiry(None, inputs)` |
 * | offboard | `base_fee + ceil(fee_rate_kwu × 4 × (fixed_additional_vb + len(spk)) / 1000) + ppm_expiry(Some(amount), inputs)` |
 * | Lightning send | `max(min_fee, base_fee + ppm_expiry(Some(amount), inputs))` |
 * | Lightning receive | `base_fee + ceil_ppm(amount, ppm)` |
 * | arkoor | 0 |
 *
 * Every ppm component is accumulated exactly (in millionths of a satoshi) and rounded up once
 * on the total (protocol version ≥ 4). Amounts are bigint satoshis; fee rates name their unit.
 *
 * @example
 * ```ts
 * const s = captaindDefaultFeeSchedule();
 * boardFee(s.board, 100_000n);                                             // 330n
 * refreshFee(s.refresh, [{ amount: 1_000_000n, blocksToExpiry: 3000 }]);  // 8_150n
 * ```
 */
import { ProtocolError } from "./errors.js";

/** A fee computation or schedule failure. */
export class FeeError extends ProtocolError {}

/** A fee table whose thresholds are not ascending or whose ppm decrease ("invalid fee schedule"). */
export class InvalidFeeScheduleError extends FeeError {}

/** One row of a ppm-by-expiry table: applies when blocks-until-expiry ≥ `expiryBlocksThreshold`. */
export interface PpmExpiryEntry {
  expiryBlocksThreshold: number;
  ppm: bigint;
}

/** Board fee parameters. */
export interface BoardFeeParams {
  minFeeSat: bigint;
  baseFeeSat: bigint;
  ppm: bigint;
}

/** Offboard (and send-onchain) fee parameters. */
export interface OffboardFeeParams {
  baseFeeSat: bigint;
  fixedAdditionalVb: bigint;
  ppmExpiryTable: PpmExpiryEntry[];
}

/** Refresh (round) fee parameters. */
export interface RefreshFeeParams {
  baseFeeSat: bigint;
  ppmExpiryTable: PpmExpiryEntry[];
}

/** Lightning receive fee parameters. */
export interface LightningReceiveFeeParams {
  baseFeeSat: bigint;
  ppm: bigint;
}

/** Lightning send fee parameters. */
export interface LightningSendFeeParams {
  minFeeSat: bigint;
  baseFeeSat: bigint;
  ppmExpiryTable: PpmExpiryEntry[];
}

/** The server's `ArkInfo.fees` (all five parts mandatory). */
export interface FeeSchedule {
  board: BoardFeeParams;
  offboard: OffboardFeeParams;
  refresh: RefreshFeeParams;
  lightningReceive: LightningReceiveFeeParams;
  lightningSend: LightningSendFeeParams;
}

/** A VTXO as the fee functions see it: amount and blocks until it expires. */
export interface FeeInput {
  amount: bigint;
  blocksToExpiry: number;
}

const MILLION = 1_000_000n;
const U64_MAX = (1n << 64n) - 1n;

function checkAmount(v: bigint, what: string): void {
  if (v < 0n || v > U64_MAX) throw new FeeError(`${what} out of range: ${v}`);
}

/** `⌈x × ppm / 1 000 000⌉` with exact integer arithmetic. */
export function ceilPpm(amount: bigint, ppm: bigint): bigint {
  checkAmount(amount, "amount");
  if (ppm < 0n) throw new FeeError("negative ppm");
  return ceilDiv(amount * ppm, MILLION);
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** `max(0, expiryHeight − tipHeight)`: the blocks-to-expiry used by the expiry tables. */
export function blocksToExpiry(expiryHeight: number, tipHeight: number): number {
  return Math.max(0, expiryHeight - tipHeight);
}

/**
 * Checks a ppm expiry table as captaind and the wallet do: thresholds in ascending order (equal
 * neighbours allowed), ppm never decreasing, no negatives.
 * An empty table is valid (no ppm component).
 */
export function validatePpmExpiryTable(table: readonly PpmExpiryEntry[]): void {
  for (let i = 0; i < table.length; i++) {
    const e = table[i] as PpmExpiryEntry;
    if (!Number.isInteger(e.expiryBlocksThreshold) || e.expiryBlocksThreshold < 0 || e.ppm < 0n) {
      throw new InvalidFeeScheduleError("invalid fee schedule: negative or non-integer table entry");
    }
    const prev = table[i - 1];
    if (prev && (e.expiryBlocksThreshold < prev.expiryBlocksThreshold || e.ppm < prev.ppm)) {
      throw new InvalidFeeScheduleError("invalid fee schedule: table must be sorted by threshold with a non-decreasing ppm");
    }
  }
}

/** Validates every table of a schedule (the wallet refuses a schedule that fails). */
export function validateFeeSchedule(s: FeeSchedule): void {
  validatePpmExpiryTable(s.offboard.ppmExpiryTable);
  validatePpmExpiryTable(s.refresh.ppmExpiryTable);
  validatePpmExpiryTable(s.lightningSend.ppmExpiryTable);
  for (const v of [s.board.minFeeSat, s.board.baseFeeSat, s.board.ppm, s.offboard.baseFeeSat, s.offboard.fixedAdditionalVb, s.refresh.baseFeeSat, s.lightningReceive.baseFeeSat, s.lightningReceive.ppm, s.lightningSend.minFeeSat, s.lightningSend.baseFeeSat]) {
    if (v < 0n) throw new InvalidFeeScheduleError("invalid fee schedule: negative value");
  }
}

/**
 * The ppm-by-expiry fee: bucket each VTXO by the last entry whose threshold
 * ≤ its blocks-to-expiry (else the 0-ppm bucket), walk the buckets soonest-expiring first,
 * charging each bucket's total (or, with `chargeable`, at most what remains of it), and round
 * the exact sum up once. Input order never matters.
 */
export function ppmExpiryFee(table: readonly PpmExpiryEntry[], inputs: readonly FeeInput[], chargeable?: bigint): bigint {
  const totals: bigint[] = new Array<bigint>(table.length + 1).fill(0n);
  for (const v of inputs) {
    checkAmount(v.amount, "vtxo amount");
    let bucket = 0;
    for (let i = 0; i < table.length; i++) if ((table[i] as PpmExpiryEntry).expiryBlocksThreshold <= v.blocksToExpiry) bucket = i + 1;
    totals[bucket] = (totals[bucket] as bigint) + v.amount;
  }
  let remaining = chargeable;
  if (remaining !== undefined) checkAmount(remaining, "chargeable amount");
  let millionths = 0n;
  for (let b = 0; b < totals.length; b++) {
    let charged = totals[b] as bigint;
    if (remaining !== undefined) {
      charged = min(charged, remaining);
      remaining -= charged;
    }
    const ppm = b === 0 ? 0n : (table[b - 1] as PpmExpiryEntry).ppm;
    millionths += charged * ppm;
  }
  return ceilDiv(millionths, MILLION);
}

/** Board fee (deducted from the board amount). */
export function boardFee(p: BoardFeeParams, amount: bigint): bigint {
  return max(p.minFeeSat, p.baseFeeSat + ceilPpm(amount, p.ppm));
}

/** Lightning receive fee (deducted from the received amount). */
export function lightningReceiveFee(p: LightningReceiveFeeParams, amount: bigint): bigint {
  return p.baseFeeSat + ceilPpm(amount, p.ppm);
}

/** Lightning send fee over the VTXOs that fund the HTLCs. */
export function lightningSendFee(p: LightningSendFeeParams, amount: bigint, inputs: readonly FeeInput[]): bigint {
  return max(p.minFeeSat, p.baseFeeSat + ppmExpiryFee(p.ppmExpiryTable, inputs, amount));
}

/** Refresh fee: every input amount is chargeable. */
export function refreshFee(p: RefreshFeeParams, inputs: readonly FeeInput[]): bigint {
  return p.baseFeeSat + ppmExpiryFee(p.ppmExpiryTable, inputs);
}

/**
 * Offboard / send-onchain fee: base + weight part at `feeRateSatPerKwu` for
 * `fixed_additional_vb + len(destination script)` vbytes (rounded up) + ppm expiry on `amount`.
 */
export function offboardFee(
  p: OffboardFeeParams,
  amount: bigint,
  destinationScript: Uint8Array,
  feeRateSatPerKwu: bigint,
  inputs: readonly FeeInput[],
): bigint {
  if (feeRateSatPerKwu < 0n) throw new FeeError("negative fee rate");
  const vbytes = p.fixedAdditionalVb + BigInt(destinationScript.length);
  const weightFee = ceilDiv(feeRateSatPerKwu * 4n * vbytes, 1000n);
  return p.baseFeeSat + weightFee + ppmExpiryFee(p.ppmExpiryTable, inputs, amount);
}

/** sat/vB → sat/kwu (exact: 1 vB = 4 WU). */
export function satPerVbToSatPerKwu(satPerVb: bigint): bigint {
  return satPerVb * 250n;
}

/** sat/kvB → sat/kwu, rounding up (`(x + 3) / 4`). */
export function satPerKvbToSatPerKwuCeil(satPerKvb: bigint): bigint {
  return ceilDiv(satPerKvb, 4n);
}

/** Feerate of `fee` over `weightWu` in sat/kwu, rounded up; `undefined` for zero weight. */
export function feeRateFromFeeAndWeightCeil(fee: bigint, weightWu: bigint): bigint | undefined {
  if (weightWu === 0n) return undefined;
  return ceilDiv(fee * 1000n, weightWu);
}

/** `fee = ceil(satPerKwu × weightWu / 1000)`. */
export function feeForWeight(satPerKwu: bigint, weightWu: bigint): bigint {
  return ceilDiv(satPerKwu * weightWu, 1000n);
}

/** Millisatoshis → satoshis, rounded up. */
export function satFromMsatCeil(msat: bigint): bigint {
  return ceilDiv(msat, 1000n);
}

/** Millisatoshis → satoshis, rounded down. */
export function satFromMsatFloor(msat: bigint): bigint {
  return msat / 1000n;
}

/** The default schedule of captaind (bark's server, `captaind.default.toml`). */
export function captaindDefaultFeeSchedule(): FeeSchedule {
  const table = (): PpmExpiryEntry[] => [
    { expiryBlocksThreshold: 0, ppm: 0n },
    { expiryBlocksThreshold: 97, ppm: 1000n },
    { expiryBlocksThreshold: 199, ppm: 4000n },
    { expiryBlocksThreshold: 2161, ppm: 8000n },
  ];
  return {
    board: { minFeeSat: 330n, baseFeeSat: 100n, ppm: 1000n },
    offboard: { baseFeeSat: 200n, fixedAdditionalVb: 212n, ppmExpiryTable: table() },
    refresh: { baseFeeSat: 150n, ppmExpiryTable: table() },
    lightningReceive: { baseFeeSat: 100n, ppm: 2000n },
    lightningSend: { minFeeSat: 10n, baseFeeSat: 75n, ppmExpiryTable: table() },
  };
}
