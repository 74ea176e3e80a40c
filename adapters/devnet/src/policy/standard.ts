/**
 * Standardness (Core's policy.cpp): transaction shape, output templates, dust, input and
 * witness standardness. Each check returns bitcoind's reject reason, or undefined when fine.
 */
import type { Tx } from "../consensus/index.js";
import { classifyScript, isPayToAnchor, witnessProgram } from "../node/address.js";
import type { SpentCoin } from "./mempool.js";

/** Core's limits. */
export const MAX_STANDARD_TX_WEIGHT = 400_000;
export const MIN_STANDARD_TX_NONWITNESS_SIZE = 65;
export const MAX_STANDARD_SCRIPTSIG_SIZE = 1650;
export const MAX_STANDARD_TX_SIGOPS_COST = 16_000;
export const MAX_P2SH_SIGOPS = 15;
export const MAX_STANDARD_P2WSH_SCRIPT_SIZE = 3600;
export const MAX_STANDARD_P2WSH_STACK_ITEMS = 100;
export const MAX_STANDARD_WITNESS_STACK_ITEM_SIZE = 80;
export const MAX_STANDARD_TAPSCRIPT_STACK_ITEM_SIZE = 80;
/** Default `-dustrelayfee`, sat/kvB. */
export const DUST_RELAY_FEE_SAT_PER_KVB = 3000n;
/** Outputs below the dust threshold a transaction may carry (ephemeral dust). */
export const MAX_DUST_OUTPUTS_PER_TX = 1;

/** A refusal: bitcoind's reason and optional detail. */
export interface Refusal {
  readonly reason: string;
  readonly debug?: string;
}

function outputSize(script: Uint8Array): number {
  return 8 + (script.length < 0xfd ? 1 : 3) + script.length;
}

/** Core's GetDustThreshold at the default dust relay feerate: 0 for unspendable outputs. */
export function dustThreshold(script: Uint8Array): bigint {
  if ((script.length > 0 && script[0] === 0x6a) || script.length > 10_000) return 0n;
  let size = outputSize(script);
  // cost of spending it later: a witness program input is discounted
  size += witnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return (BigInt(size) * DUST_RELAY_FEE_SAT_PER_KVB) / 1000n;
}

/** True when an output is below its dust threshold. */
export function isDust(value: bigint, script: Uint8Array): boolean {
  return value < dustThreshold(script);
}

/** Indexes of a transaction's dust outputs. */
export function dustOutputs(tx: Tx): number[] {
  return tx.outputs.flatMap((o, i) => (isDust(o.value, o.scriptPubKey) ? [i] : []));
}

function isPushOnly(script: Uint8Array): boolean {
  let o = 0;
  while (o < script.length) {
    const op = script[o]!;
    if (op > 0x60) return false;
    if (op > 0 && op < 0x4c) o += 1 + op;
    else if (op === 0x4c) o += 2 + (script[o + 1] ?? 0);
    else if (op === 0x4d) o += 3 + (script[o + 1] ?? 0) + 256 * (script[o + 2] ?? 0);
    else if (op === 0x4e) o += 5 + (script[o + 1] ?? 0) + 256 * (script[o + 2] ?? 0) + 65536 * (script[o + 3] ?? 0);
    else o += 1;
  }
  return o === script.length;
}

/** Core's IsStandardTx (with `-datacarrier` defaults of v30: OP_RETURN outputs allowed, size bounded by the tx weight limit). */
export function checkStandardTx(tx: Tx, weight: number, nonWitnessSize: number): Refusal | undefined {
  if (tx.version < 1 || tx.version > 3) return { reason: "version" };
  if (weight > MAX_STANDARD_TX_WEIGHT) return { reason: "tx-size" };
  for (const input of tx.inputs) {
    if (input.scriptSig.length > MAX_STANDARD_SCRIPTSIG_SIZE) return { reason: "scriptsig-size" };
    if (!isPushOnly(input.scriptSig)) return { reason: "scriptsig-not-pushonly" };
  }
  for (const out of tx.outputs) {
    const type = classifyScript(out.scriptPubKey);
    if (type === "nonstandard") return { reason: "scriptpubkey" };
  }
  if (dustOutputs(tx).length > MAX_DUST_OUTPUTS_PER_TX) return { reason: "dust" };
  if (nonWitnessSize < MIN_STANDARD_TX_NONWITNESS_SIZE) return { reason: "tx-size-small" };
  return undefined;
}

/** Core's AreInputsStandard: spent templates must be known (not future segwit), P2SH redeem scripts limited in sigops. */
export function checkInputsStandard(tx: Tx, spent: readonly SpentCoin[]): Refusal | undefined {
  const reason = "bad-txns-nonstandard-inputs";
  for (let i = 0; i < tx.inputs.length; i++) {
    const type = classifyScript(spent[i]!.scriptPubKey);
    if (type === "nonstandard") return { reason, debug: `input ${i} script unknown` };
    if (type === "unknown_witness") return { reason, debug: `input ${i} witness program is undefined` };
    if (type === "p2sh") {
      const redeem = lastPush(tx.inputs[i]!.scriptSig);
      if (redeem === undefined) return { reason, debug: `input ${i} P2SH redeemscript missing` };
      const sigops = countSigOps(redeem);
      if (sigops > MAX_P2SH_SIGOPS) return { reason, debug: `p2sh redeemscript sigops exceed limit (input ${i}: ${sigops} > ${MAX_P2SH_SIGOPS})` };
    }
  }
  return undefined;
}

/** Core's IsWitnessStandard: no witness on P2A or non-witness inputs; P2WSH and tapscript stacks within limits; no annex. */
export function checkWitnessStandard(tx: Tx, spent: readonly SpentCoin[]): Refusal | undefined {
  const refusal = { reason: "bad-witness-nonstandard" };
  for (let i = 0; i < tx.inputs.length; i++) {
    const input = tx.inputs[i]!;
    const witness = input.witness;
    if (witness.length === 0) continue;
    let prev = spent[i]!.scriptPubKey;
    if (isPayToAnchor(prev)) return refusal; // witness stuffing
    let p2sh = false;
    if (classifyScript(prev) === "p2sh") {
      const redeem = lastPush(input.scriptSig);
      if (redeem === undefined) return refusal;
      prev = redeem;
      p2sh = true;
    }
    const wp = witnessProgram(prev);
    if (!wp) return refusal; // a witness on a non-witness input
    if (wp.version === 0 && wp.program.length === 32) {
      if (witness[witness.length - 1]!.length > MAX_STANDARD_P2WSH_SCRIPT_SIZE) return refusal;
      if (witness.length - 1 > MAX_STANDARD_P2WSH_STACK_ITEMS) return refusal;
      if (witness.slice(0, -1).some((item) => item.length > MAX_STANDARD_WITNESS_STACK_ITEM_SIZE)) return refusal;
    }
    if (wp.version === 1 && wp.program.length === 32 && !p2sh) {
      const last = witness[witness.length - 1]!;
      if (witness.length >= 2 && last.length > 0 && last[0] === 0x50) return refusal; // annex
      if (witness.length >= 2) {
        if (last.length === 0) return refusal;
        if ((last[0]! & 0xfe) === 0xc0 && witness.slice(0, -2).some((item) => item.length > MAX_STANDARD_TAPSCRIPT_STACK_ITEM_SIZE)) {
          return refusal;
        }
      }
    }
  }
  return undefined;
}

/** Last push of a push-only script (the P2SH redeem script). */
function lastPush(script: Uint8Array): Uint8Array | undefined {
  let o = 0;
  let last: Uint8Array | undefined;
  while (o < script.length) {
    const op = script[o]!;
    let len = 0;
    let hdr = 1;
    if (op > 0 && op < 0x4c) len = op;
    else if (op === 0x4c) [len, hdr] = [script[o + 1] ?? 0, 2];
    else if (op === 0x4d) [len, hdr] = [(script[o + 1] ?? 0) + 256 * (script[o + 2] ?? 0), 3];
    else if (op > 0x60) return undefined;
    last = script.subarray(o + hdr, o + hdr + len);
    o += hdr + len;
  }
  return last;
}

/** Accurate legacy sigop count of a redeem script (CHECKMULTISIG counts its key count when preceded by OP_1..OP_16). */
function countSigOps(script: Uint8Array): number {
  let n = 0;
  let prev = 0xff;
  let o = 0;
  while (o < script.length) {
    const op = script[o]!;
    if (op > 0 && op < 0x4c) o += 1 + op;
    else if (op === 0x4c) o += 2 + (script[o + 1] ?? 0);
    else if (op === 0x4d) o += 3 + (script[o + 1] ?? 0) + 256 * (script[o + 2] ?? 0);
    else o += 1;
    if (op === 0xac || op === 0xad) n += 1;
    if (op === 0xae || op === 0xaf) n += prev >= 0x51 && prev <= 0x60 ? prev - 0x50 : 20;
    prev = op;
  }
  return n;
}
