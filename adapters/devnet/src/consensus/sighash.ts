/** Signature hashes: legacy (with its quirks), BIP-143 (segwit v0) and BIP-341/342 (taproot). */
import { ByteWriter, concatBytes } from "./bytes.js";
import { hash256, sha256, taggedHash } from "./hashes.js";
import { OP } from "./opcodes.js";
import { readOp } from "./script.js";
import type { SpentOutput, Tx } from "./tx.js";

/** Sighash type values. */
export const SighashType = { DEFAULT: 0, ALL: 1, NONE: 2, SINGLE: 3, ANYONECANPAY: 0x80 } as const;

/** The "1" hash Core returns for SIGHASH_SINGLE without a matching output or an out-of-range input. */
const ONE = (() => {
  const h = new Uint8Array(32);
  h[0] = 1;
  return h;
})();

function writeScriptCodeWithoutSeparators(w: ByteWriter, script: Uint8Array): void {
  const separators: number[] = [];
  for (let pc = 0; pc < script.length; ) {
    const op = readOp(script, pc);
    if (op === undefined) break;
    if (op.opcode === OP.OP_CODESEPARATOR) separators.push(op.start);
    pc = op.end;
  }
  w.compactSize(script.length - separators.length);
  let from = 0;
  for (const at of separators) {
    w.bytes(script.subarray(from, at));
    from = at + 1;
  }
  w.bytes(script.subarray(from));
}

/**
 * Legacy (pre-segwit) signature hash, Core's `SignatureHash` with `SigVersion::BASE`, in internal byte order.
 * `hashType` is the full signed 32-bit value; `scriptCode` is used as given minus its OP_CODESEPARATORs.
 */
export function legacySighash(tx: Tx, inputIndex: number, scriptCode: Uint8Array, hashType: number): Uint8Array {
  if (inputIndex >= tx.inputs.length) return ONE;
  const base = hashType & 0x1f;
  const single = base === SighashType.SINGLE;
  const none = base === SighashType.NONE;
  const anyoneCanPay = (hashType & SighashType.ANYONECANPAY) !== 0;
  if (single && inputIndex >= tx.outputs.length) return ONE;
  const w = new ByteWriter(256 + scriptCode.length);
  w.u32(tx.version);
  const inputs = anyoneCanPay ? [inputIndex] : tx.inputs.map((_, i) => i);
  w.compactSize(inputs.length);
  for (const i of inputs) {
    const input = tx.inputs[i]!;
    w.bytes(input.prevTxid).u32(input.prevVout);
    if (i === inputIndex) writeScriptCodeWithoutSeparators(w, scriptCode);
    else w.compactSize(0);
    w.u32(i !== inputIndex && (single || none) ? 0 : input.sequence);
  }
  const outputCount = none ? 0 : single ? inputIndex + 1 : tx.outputs.length;
  w.compactSize(outputCount);
  for (let o = 0; o < outputCount; o++) {
    if (single && o !== inputIndex) {
      w.u64(-1n).compactSize(0);
    } else {
      const out = tx.outputs[o]!;
      w.u64(out.value).varBytes(out.scriptPubKey);
    }
  }
  w.u32(tx.locktime);
  w.u32(hashType);
  return hash256(w.finish());
}

/** Per-transaction hashes shared by all inputs' BIP-143 and BIP-341 sighashes (Core's PrecomputedTransactionData). */
export class PrecomputedTxData {
  private v0?: { prevouts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array };
  private v1?: { prevouts: Uint8Array; amounts: Uint8Array; scripts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array };

  /** `spent` may be omitted when only legacy/segwit-v0 hashes are needed (the v0 amount then comes from the caller). */
  constructor(readonly tx: Tx, readonly spent?: readonly SpentOutput[]) {}

  private singles(): { prevouts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array } {
    const p = new ByteWriter();
    const s = new ByteWriter();
    const o = new ByteWriter();
    for (const i of this.tx.inputs) {
      p.bytes(i.prevTxid).u32(i.prevVout);
      s.u32(i.sequence);
    }
    for (const out of this.tx.outputs) o.u64(out.value).varBytes(out.scriptPubKey);
    return { prevouts: p.finish(), sequences: s.finish(), outputs: o.finish() };
  }

  /** BIP-143 hashPrevouts, hashSequence, hashOutputs (double SHA-256). */
  segwitV0(): { prevouts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array } {
    if (this.v0 === undefined) {
      const raw = this.singles();
      this.v0 = { prevouts: hash256(raw.prevouts), sequences: hash256(raw.sequences), outputs: hash256(raw.outputs) };
    }
    return this.v0;
  }

  /** BIP-341 sha_prevouts, sha_amounts, sha_scriptpubkeys, sha_sequences, sha_outputs (single SHA-256). */
  taproot(): { prevouts: Uint8Array; amounts: Uint8Array; scripts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array } {
    if (this.v1 === undefined) {
      const spent = this.spentOutputs();
      const raw = this.singles();
      const a = new ByteWriter();
      const sc = new ByteWriter();
      for (const s of spent) {
        a.u64(s.amount);
        sc.varBytes(s.scriptPubKey);
      }
      this.v1 = {
        prevouts: sha256(raw.prevouts), amounts: sha256(a.finish()), scripts: sha256(sc.finish()),
        sequences: sha256(raw.sequences), outputs: sha256(raw.outputs),
      };
    }
    return this.v1;
  }

  /** The spent outputs; throws when they were not supplied for every input. */
  spentOutputs(): readonly SpentOutput[] {
    if (this.spent === undefined || this.spent.length !== this.tx.inputs.length) {
      throw new Error("taproot signature hash needs the spent output of every input");
    }
    return this.spent;
  }
}

/** BIP-143 signature hash for a segwit v0 input (internal byte order). */
export function segwitV0Sighash(
  data: PrecomputedTxData, inputIndex: number, scriptCode: Uint8Array, amount: bigint, hashType: number,
): Uint8Array {
  const tx = data.tx;
  const base = hashType & 0x1f;
  const anyoneCanPay = (hashType & SighashType.ANYONECANPAY) !== 0;
  const zero: Uint8Array = new Uint8Array(32);
  const h = data.segwitV0();
  const hashPrevouts = anyoneCanPay ? zero : h.prevouts;
  const hashSequence = !anyoneCanPay && base !== SighashType.SINGLE && base !== SighashType.NONE ? h.sequences : zero;
  let hashOutputs: Uint8Array = zero;
  if (base !== SighashType.SINGLE && base !== SighashType.NONE) hashOutputs = h.outputs;
  else if (base === SighashType.SINGLE && inputIndex < tx.outputs.length) {
    const out = tx.outputs[inputIndex]!;
    hashOutputs = hash256(new ByteWriter().u64(out.value).varBytes(out.scriptPubKey).finish());
  }
  const input = tx.inputs[inputIndex]!;
  const w = new ByteWriter(200 + scriptCode.length);
  w.u32(tx.version).bytes(hashPrevouts).bytes(hashSequence).bytes(input.prevTxid).u32(input.prevVout);
  w.varBytes(scriptCode).u64(amount).u32(input.sequence).bytes(hashOutputs).u32(tx.locktime).u32(hashType);
  return hash256(w.finish());
}

/** What a tapscript spend adds to the BIP-341 message (BIP-342 extension). */
export interface TapscriptContext {
  leafHash: Uint8Array;
  /** Opcode position of the last executed OP_CODESEPARATOR, 0xffffffff if none. */
  codeSeparatorPos: number;
}

/**
 * BIP-341 signature message (SigMsg with its leading epoch byte) for the key path, or BIP-342's
 * extended message for the script path when `tapscript` is given. `annex` is the full annex including
 * its 0x50 tag. Returns undefined for an invalid hash type or SIGHASH_SINGLE without a matching
 * output (Core then fails with SCHNORR_SIG_HASHTYPE).
 */
export function taprootSigMessage(
  data: PrecomputedTxData, inputIndex: number, hashType: number, annex: Uint8Array | undefined,
  tapscript?: TapscriptContext,
): Uint8Array | undefined {
  if (!(hashType <= 0x03 || (hashType >= 0x81 && hashType <= 0x83))) return undefined;
  const tx = data.tx;
  const outputType = hashType === SighashType.DEFAULT ? SighashType.ALL : hashType & 3;
  const anyoneCanPay = (hashType & SighashType.ANYONECANPAY) !== 0;
  if (outputType === SighashType.SINGLE && inputIndex >= tx.outputs.length) return undefined;
  const w = new ByteWriter(300);
  w.u8(0).u8(hashType).u32(tx.version).u32(tx.locktime);
  if (!anyoneCanPay) {
    const h = data.taproot();
    w.bytes(h.prevouts).bytes(h.amounts).bytes(h.scripts).bytes(h.sequences);
  }
  if (outputType === SighashType.ALL) w.bytes(data.taproot().outputs);
  w.u8((tapscript !== undefined ? 2 : 0) + (annex !== undefined ? 1 : 0));
  if (anyoneCanPay) {
    const input = tx.inputs[inputIndex]!;
    const spent = data.spentOutputs()[inputIndex]!;
    w.bytes(input.prevTxid).u32(input.prevVout).u64(spent.amount).varBytes(spent.scriptPubKey).u32(input.sequence);
  } else {
    w.u32(inputIndex);
  }
  if (annex !== undefined) w.bytes(sha256(new ByteWriter().varBytes(annex).finish()));
  if (outputType === SighashType.SINGLE) {
    const out = tx.outputs[inputIndex]!;
    w.bytes(sha256(new ByteWriter().u64(out.value).varBytes(out.scriptPubKey).finish()));
  }
  if (tapscript !== undefined) w.bytes(tapscript.leafHash).u8(0).u32(tapscript.codeSeparatorPos);
  return w.finish();
}

/** BIP-341/342 signature hash: TapSighash(message) of {@link taprootSigMessage}; same arguments and undefined cases. */
export function taprootSighash(
  data: PrecomputedTxData, inputIndex: number, hashType: number, annex: Uint8Array | undefined,
  tapscript?: TapscriptContext,
): Uint8Array | undefined {
  const msg = taprootSigMessage(data, inputIndex, hashType, annex, tapscript);
  return msg === undefined ? undefined : taggedHash("TapSighash", msg);
}

/** BIP-341 leaf hash: TapLeaf(leafVersion ‖ compact_size(script) ‖ script). */
export function tapLeafHash(leafVersion: number, script: Uint8Array): Uint8Array {
  return taggedHash("TapLeaf", new ByteWriter(script.length + 6).u8(leafVersion).varBytes(script).finish());
}

/** BIP-341 branch hash of two child hashes, ordered lexicographically. */
export function tapBranchHash(a: Uint8Array, b: Uint8Array): Uint8Array {
  for (let i = 0; i < 32; i++) {
    if (a[i]! < b[i]!) return taggedHash("TapBranch", a, b);
    if (a[i]! > b[i]!) return taggedHash("TapBranch", b, a);
  }
  return taggedHash("TapBranch", a, b);
}

/** BIP-341 tweak: TapTweak(internalKey ‖ merkleRoot), merkle root omitted for key-only outputs. */
export function tapTweakHash(internalKey: Uint8Array, merkleRoot?: Uint8Array): Uint8Array {
  return merkleRoot === undefined ? taggedHash("TapTweak", internalKey) : taggedHash("TapTweak", concatBytes(internalKey, merkleRoot));
}
