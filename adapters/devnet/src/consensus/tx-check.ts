/** Context-free transaction checks (Core's `CheckTransaction`) and the input-value check (`CheckTxInputs` amounts). */
import { toHex } from "./bytes.js";
import { ConsensusError } from "./errors.js";
import { encodeTx, isCoinbase, type SpentOutput, type Tx } from "./tx.js";

/** 21 million BTC in satoshis. */
export const MAX_MONEY = 2_100_000_000_000_000n;
/** Maximum block weight; also bounds a single transaction's stripped size × 4. */
export const MAX_BLOCK_WEIGHT = 4_000_000;
const WITNESS_SCALE_FACTOR = 4;

/** Whether `v` is a valid amount (0 ≤ v ≤ MAX_MONEY). */
export function moneyRange(v: bigint): boolean {
  return v >= 0n && v <= MAX_MONEY;
}

/** Throws `ConsensusError` with Core's reject reason when `tx` fails CheckTransaction. */
export function checkTransaction(tx: Tx): void {
  if (tx.inputs.length === 0) throw new ConsensusError("bad-txns-vin-empty");
  if (tx.outputs.length === 0) throw new ConsensusError("bad-txns-vout-empty");
  if (encodeTx(tx, false).length * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT) throw new ConsensusError("bad-txns-oversize");
  let total = 0n;
  for (const out of tx.outputs) {
    if (out.value < 0n) throw new ConsensusError("bad-txns-vout-negative");
    if (out.value > MAX_MONEY) throw new ConsensusError("bad-txns-vout-toolarge");
    total += out.value;
    if (!moneyRange(total)) throw new ConsensusError("bad-txns-txouttotal-toolarge");
  }
  const seen = new Set<string>();
  for (const input of tx.inputs) {
    const key = `${toHex(input.prevTxid)}:${input.prevVout}`;
    if (seen.has(key)) throw new ConsensusError("bad-txns-inputs-duplicate");
    seen.add(key);
  }
  if (isCoinbase(tx)) {
    const n = tx.inputs[0]!.scriptSig.length;
    if (n < 2 || n > 100) throw new ConsensusError("bad-cb-length");
  } else {
    for (const input of tx.inputs) {
      if (input.prevVout === 0xffffffff && input.prevTxid.every((b) => b === 0)) {
        throw new ConsensusError("bad-txns-prevout-null");
      }
    }
  }
}

/**
 * The amount checks of Core's `Consensus::CheckTxInputs`: input values in range and covering the outputs.
 * Returns the fee. (Coinbase maturity is {@link checkCoinbaseMaturity} in `locks.ts`.)
 */
export function checkInputValues(tx: Tx, spent: readonly SpentOutput[]): bigint {
  let valueIn = 0n;
  for (const s of spent) {
    valueIn += s.amount;
    if (!moneyRange(s.amount) || !moneyRange(valueIn)) throw new ConsensusError("bad-txns-inputvalues-outofrange");
  }
  const valueOut = tx.outputs.reduce((a, o) => a + o.value, 0n);
  if (valueIn < valueOut) throw new ConsensusError("bad-txns-in-belowout", `value in ${valueIn} < value out ${valueOut}`);
  const fee = valueIn - valueOut;
  if (!moneyRange(fee)) throw new ConsensusError("bad-txns-fee-outofrange");
  return fee;
}
