/** Time locks: nLockTime finality (IsFinalTx), BIP-68 relative lock-times, coinbase maturity. */
import { ConsensusError } from "./errors.js";
import type { Tx } from "./tx.js";

/** nLockTime values below this are block heights, above are UNIX times. */
export const LOCKTIME_THRESHOLD = 500_000_000;
/** Blocks a coinbase output must wait before it can be spent. */
export const COINBASE_MATURITY = 100;
const SEQUENCE_FINAL = 0xffffffff;
const SEQUENCE_DISABLE_FLAG = 0x80000000;
const SEQUENCE_TYPE_FLAG = 1 << 22;
const SEQUENCE_MASK = 0x0000ffff;
const SEQUENCE_GRANULARITY = 9;

/**
 * Core's `IsFinalTx`. For block inclusion pass the height of the block the transaction goes into and
 * the median time past of its parent (BIP-113); for the mempool: tip height + 1 and the tip's MTP.
 */
export function isFinalTx(tx: Tx, blockHeight: number, blockTime: number): boolean {
  if (tx.locktime === 0) return true;
  if (tx.locktime < (tx.locktime < LOCKTIME_THRESHOLD ? blockHeight : blockTime)) return true;
  return tx.inputs.every((i) => i.sequence === SEQUENCE_FINAL);
}

/** The height/time a BIP-68 lock needs strictly exceeded; -1 when unconstrained. */
export interface SequenceLocks {
  minHeight: number;
  minTime: number;
}

/**
 * Core's `CalculateSequenceLocks` with BIP-68 enforced. `prevHeights[i]` is the height of the block that
 * confirmed input i's coin (the next block height for unconfirmed coins); `prevMedianTimes[i]` is the
 * median time past of the block at height max(prevHeights[i] - 1, 0), i.e. the MTP before the coin's block.
 */
export function calculateSequenceLocks(tx: Tx, prevHeights: readonly number[], prevMedianTimes: readonly number[]): SequenceLocks {
  let minHeight = -1;
  let minTime = -1;
  if (tx.version >>> 0 < 2) return { minHeight, minTime };
  tx.inputs.forEach((input, i) => {
    const seq = input.sequence;
    if ((seq & SEQUENCE_DISABLE_FLAG) !== 0) return;
    const value = seq & SEQUENCE_MASK;
    if ((seq & SEQUENCE_TYPE_FLAG) !== 0) {
      minTime = Math.max(minTime, prevMedianTimes[i]! + value * 2 ** SEQUENCE_GRANULARITY - 1);
    } else {
      minHeight = Math.max(minHeight, prevHeights[i]! + value - 1);
    }
  });
  return { minHeight, minTime };
}

/**
 * Whether the BIP-68 relative locks of `tx` allow it in a block at `height` whose parent has median
 * time past `medianTimePast` (Core's `SequenceLocks`/`EvaluateSequenceLocks`). See
 * {@link calculateSequenceLocks} for `prevHeights` and `prevMedianTimes`.
 */
export function sequenceLocksSatisfied(
  tx: Tx, prevHeights: readonly number[], prevMedianTimes: readonly number[], height: number, medianTimePast: number,
): boolean {
  const locks = calculateSequenceLocks(tx, prevHeights, prevMedianTimes);
  return !(locks.minHeight >= height || locks.minTime >= medianTimePast);
}

/** Throws `bad-txns-premature-spend-of-coinbase` when a coinbase output from `coinHeight` is spent at `spendHeight` too early. */
export function checkCoinbaseMaturity(coinHeight: number, spendHeight: number): void {
  if (spendHeight - coinHeight < COINBASE_MATURITY) {
    throw new ConsensusError(
      "bad-txns-premature-spend-of-coinbase",
      `tried to spend coinbase at depth ${spendHeight - coinHeight}`,
    );
  }
}
