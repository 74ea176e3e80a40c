/**
 * Transaction weights (BIP-141 weight units) for fee estimation. vsize = ceil(weight / 4).
 * Every fee here is an integer number of sats; rates are sat/vB with sat/kvB precision.
 */

/** Version, locktime, input and output counts (one byte each below 253), segwit marker and flag. */
export function overheadWeight(inputs: number, outputs: number): number {
  return 4 * (4 + 4 + varIntSize(inputs) + varIntSize(outputs)) + 2;
}

/** A taproot key-path input: outpoint, empty scriptSig, sequence; witness of one 64-byte signature. */
export const P2TR_KEYPATH_INPUT_WEIGHT = 4 * (36 + 1 + 4) + (1 + 1 + 64);

/** A pay-to-anchor input: outpoint, empty scriptSig, sequence; an empty witness. */
export const P2A_INPUT_WEIGHT = 4 * (36 + 1 + 4) + 1;

/** The script of a pay-to-anchor output (`OP_1 <0x4e73>`). */
export const P2A_SCRIPT_HEX = "51024e73";

/** Length of a P2TR output script, e.g. wallet change. */
export const P2TR_SCRIPT_LEN = 34;

/** Size in bytes of a Bitcoin CompactSize integer. */
export function varIntSize(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

/** Weight of one output paying a script of `scriptLen` bytes. */
export function outputWeight(scriptLen: number): number {
  return 4 * (8 + varIntSize(scriptLen) + scriptLen);
}

/** Virtual size of a weight. */
export function vsizeOf(weight: number): number {
  return Math.ceil(weight / 4);
}

/** Fee in sats for a weight at `satPerVb`. */
export function feeFor(weight: number, satPerVb: number): bigint {
  return feeForVsize(vsizeOf(weight), satPerVb);
}

/**
 * Fee in sats for `vsize` vB at `satPerVb`, with Bitcoin Core's precision: the rate is taken in
 * whole sat/kvB (rounded up) and the fee is rounded up to a whole sat, so 7.001 sat/vB pays
 * 7.001 sat/vB, not 8.
 */
export function feeForVsize(vsize: number, satPerVb: number): bigint {
  const satPerKvb = BigInt(Math.max(0, Math.ceil(satPerVb * 1000 - 1e-6)));
  return (BigInt(vsize) * satPerKvb + 999n) / 1000n;
}

/**
 * Bitcoin Core's dust threshold for an output paying `script` at the default dust relay rate of
 * 3 sat/vB: the cost of the output plus the input that would spend it (witness programs are
 * discounted). 546 for P2PKH, 294 for P2WPKH, 330 for P2WSH and P2TR.
 */
export function dustLimitSat(script: Uint8Array): bigint {
  const outputSize = 8 + varIntSize(script.length) + script.length;
  const isWitnessProgram = script.length >= 4 && script.length <= 42 && (script[0] === 0 || (script[0]! >= 0x51 && script[0]! <= 0x60)) && script[1] === script.length - 2;
  const spendSize = isWitnessProgram ? 32 + 4 + 1 + (107 >> 2) + 4 : 32 + 4 + 1 + 107 + 4;
  return BigInt((outputSize + spendSize) * 3);
}
