/** Regtest addresses ↔ scriptPubKeys, and script template classification (Esplora's names). */
import { Address, OutScript } from "@scure/btc-signer";
import { InvalidInputError } from "./node-errors.js";
import type { Destination, ScriptType } from "./types.js";

/** Bitcoin Core's regtest address parameters (bech32 HRP `bcrt`, base58 prefixes 0x6f/0xc4). */
export const REGTEST_NETWORK = { bech32: "bcrt", pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef } as const;

const coder = Address(REGTEST_NETWORK);

/** The scriptPubKey of a regtest address or raw script; throws {@link InvalidInputError} for other networks or garbage. */
export function scriptOf(dest: Destination): Uint8Array {
  if (typeof dest !== "string") return dest;
  try {
    return OutScript.encode(coder.decode(dest));
  } catch (err) {
    throw new InvalidInputError(`not a regtest address: ${dest.slice(0, 90)}`, { cause: err });
  }
}

/** The regtest address of a script, when its template has one. */
export function addressOf(script: Uint8Array): string | undefined {
  const type = classifyScript(script);
  if (!["p2pkh", "p2sh", "v0_p2wpkh", "v0_p2wsh", "v1_p2tr", "unknown_witness", "anchor"].includes(type)) return undefined;
  try {
    return coder.encode(OutScript.decode(script));
  } catch {
    return undefined;
  }
}

/** Witness version and program of a segwit output script, if it is one. */
export function witnessProgram(script: Uint8Array): { version: number; program: Uint8Array } | undefined {
  if (script.length < 4 || script.length > 42) return undefined;
  const op = script[0]!;
  if (op !== 0x00 && (op < 0x51 || op > 0x60)) return undefined;
  if (script[1]! + 2 !== script.length) return undefined;
  return { version: op === 0 ? 0 : op - 0x50, program: script.subarray(2) };
}

/** True for the pay-to-anchor script `OP_1 <0x4e73>`. */
export function isPayToAnchor(script: Uint8Array): boolean {
  return script.length === 4 && script[0] === 0x51 && script[1] === 0x02 && script[2] === 0x4e && script[3] === 0x73;
}

function isPubkey(b: Uint8Array): boolean {
  return (b.length === 33 && (b[0] === 2 || b[0] === 3)) || (b.length === 65 && b[0] === 4);
}

/** Bare multisig `m <keys> n OP_CHECKMULTISIG` with 1 ≤ m ≤ n ≤ 3 (the standard sizes). */
function isStandardMultisig(s: Uint8Array): boolean {
  if (s.length < 37 || s[s.length - 1] !== 0xae) return false;
  const m = s[0]! - 0x50;
  const n = s[s.length - 2]! - 0x50;
  if (m < 1 || n < m || n > 3) return false;
  let o = 1;
  for (let i = 0; i < n; i++) {
    const len = s[o]!;
    if (len !== 33 && len !== 65) return false;
    if (!isPubkey(s.subarray(o + 1, o + 1 + len))) return false;
    o += 1 + len;
  }
  return o === s.length - 2;
}

/** True when `script` is OP_RETURN followed only by pushes. */
function isNullData(s: Uint8Array): boolean {
  if (s[0] !== 0x6a) return false;
  let o = 1;
  while (o < s.length) {
    const op = s[o]!;
    if (op > 0x60) return false;
    let len = 0;
    if (op > 0 && op < 0x4c) len = op;
    else if (op === 0x4c) len = s[++o] ?? -1;
    else if (op === 0x4d) {
      len = (s[o + 1] ?? -1) + 256 * (s[o + 2] ?? 0);
      o += 2;
    } else if (op === 0x4e) return false;
    o += 1 + len;
    if (len < 0 || o > s.length) return false;
  }
  return true;
}

/** Template of a scriptPubKey, named as Esplora's `scriptpubkey_type`. */
export function classifyScript(s: Uint8Array): ScriptType {
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac) return "p2pkh";
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return "p2sh";
  if (isPayToAnchor(s)) return "anchor";
  const wp = witnessProgram(s);
  if (wp) {
    if (wp.version === 0 && wp.program.length === 20) return "v0_p2wpkh";
    if (wp.version === 0 && wp.program.length === 32) return "v0_p2wsh";
    if (wp.version === 1 && wp.program.length === 32) return "v1_p2tr";
    if (wp.version !== 0) return "unknown_witness";
    return "nonstandard";
  }
  if ((s.length === 35 || s.length === 67) && s[0] === s.length - 2 && s[s.length - 1] === 0xac && isPubkey(s.subarray(1, s.length - 1))) return "p2pk";
  if (isStandardMultisig(s)) return "multisig";
  if (s.length >= 1 && isNullData(s)) return "op_return";
  return "nonstandard";
}
