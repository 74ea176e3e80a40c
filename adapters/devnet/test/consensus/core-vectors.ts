/** Shared helpers for the Bitcoin Core vector tests: file loading, Core's script-asm parser, summary lines. */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromHex } from "../../src/consensus/bytes.js";
import { MAX_OPCODE, OP, opcodeName } from "../../src/consensus/opcodes.js";
import { pushData } from "../../src/consensus/script.js";
import { encodeScriptNum } from "../../src/consensus/script-num.js";

/** Absolute path of `test/vectors/<sub>` in the repository, found by walking up from this file. */
export function vectorPath(...sub: string[]): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "test", "vectors", ...sub);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`test/vectors/${sub.join("/")} not found`);
    dir = parent;
  }
}

/** Parsed JSON of a Bitcoin Core vector file. */
export function loadCoreVectors(file: string): unknown[] {
  return JSON.parse(readFileSync(vectorPath("bitcoin-core", file), "utf8")) as unknown[];
}

const OPCODES_BY_NAME = (() => {
  const map = new Map<string, number>();
  for (let op = 0; op <= MAX_OPCODE; op++) {
    if (op < OP.OP_NOP && op !== OP.OP_RESERVED) continue;
    const name = opcodeName(op);
    if (name === "OP_UNKNOWN") continue;
    map.set(name, op);
    if (name.startsWith("OP_")) map.set(name.slice(3), op);
  }
  return map;
})();

/** Core's `ParseScript` (core_read.cpp): decimal numbers, 0x raw bytes, 'strings', opcode names with or without OP_. */
export function parseCoreAsm(text: string): Uint8Array {
  const out: number[] = [];
  for (const word of text.split(/\s+/)) {
    if (word === "") continue;
    if (/^-?\d+$/.test(word)) {
      const n = Number(word);
      if (n > 0xffffffff || n < -0xffffffff) throw new Error(`number out of range: ${word}`);
      if (n === -1 || (n >= 1 && n <= 16)) out.push(n === -1 ? OP.OP_1NEGATE : OP.OP_1 + n - 1);
      else if (n === 0) out.push(OP.OP_0);
      else out.push(...pushData(encodeScriptNum(n)));
    } else if (word.startsWith("0x") && word.length > 2 && /^[0-9a-fA-F]+$/.test(word.slice(2))) {
      out.push(...fromHex(word.slice(2)));
    } else if (word.length >= 2 && word.startsWith("'") && word.endsWith("'")) {
      out.push(...pushData(new TextEncoder().encode(word.slice(1, -1))));
    } else if (OPCODES_BY_NAME.has(word)) {
      out.push(OPCODES_BY_NAME.get(word)!);
    } else {
      throw new Error(`script parse error: ${word}`);
    }
  }
  return Uint8Array.from(out);
}

/** A row-level result collector: counts rows and keeps failure descriptions. */
export class VectorTally {
  passed = 0;
  readonly failures: string[] = [];
  readonly skipped: string[] = [];

  constructor(readonly file: string) {}

  pass(): void {
    this.passed++;
  }

  fail(row: number, why: string): void {
    this.failures.push(`row ${row}: ${why}`);
  }

  skip(row: number, why: string): void {
    this.skipped.push(`row ${row}: ${why}`);
  }

  /**
   * Checks each row (skipping the listed ones with their reason); `check` returns why a row fails,
   * or undefined when it passes; a throw is a failure too. Returns the failure descriptions.
   */
  checkRows<R>(tests: readonly { row: R; index: number }[], skipped: Readonly<Record<number, string>>, check: (row: R, index: number) => string | undefined): string[] {
    const failures: string[] = [];
    for (const { row, index } of tests) {
      const reason = skipped[index];
      if (reason !== undefined) {
        this.skip(index, reason);
        continue;
      }
      let why: string | undefined;
      try {
        why = check(row, index);
      } catch (e) {
        why = `threw ${String(e)}`;
      }
      if (why === undefined) this.pass();
      else {
        this.fail(index, why);
        failures.push(`row ${index}: ${why}`);
      }
    }
    return failures;
  }

  get total(): number {
    return this.passed + this.failures.length + this.skipped.length;
  }

  /** The one summary line the brief asks for (plus each skip with its reason). */
  summary(): string {
    const lines = [`core vectors: ${this.file} ${this.passed}/${this.total} passed, ${this.skipped.length} skipped`];
    for (const s of this.skipped) lines.push(`  skipped ${s}`);
    return lines.join("\n");
  }
}

/** Message for an assertion over a batch of rows: lists every failing row. */
export function failureReport(failures: readonly string[]): string {
  return `${failures.length} failing row(s):\n${failures.slice(0, 50).join("\n")}`;
}
