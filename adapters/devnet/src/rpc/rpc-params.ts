import { RpcError, RpcErrorCode } from "./rpc-error.js";

/** A method's parameters, given by position (array) or by name (object), read with Core's type errors. */
export class RpcParams {
  private readonly values: unknown[];

  constructor(raw: unknown, names: readonly string[]) {
    if (raw === undefined || raw === null) this.values = [];
    else if (Array.isArray(raw)) {
      if (raw.length > names.length) throw new RpcError(RpcErrorCode.MISC_ERROR, `too many parameters (at most ${names.length}: ${names.join(", ")})`);
      this.values = raw;
    } else if (typeof raw === "object") {
      const named = raw as Record<string, unknown>;
      for (const key of Object.keys(named)) {
        if (!names.includes(key)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Unknown named parameter ${key}`);
      }
      this.values = names.map((n) => named[n]);
    } else {
      throw new RpcError(RpcErrorCode.INVALID_REQUEST, "Params must be an array or object");
    }
    this.names = names;
  }

  private readonly names: readonly string[];

  /** The raw value at `i`, `undefined` when absent or null. */
  opt(i: number): unknown {
    const v = this.values[i];
    return v === null ? undefined : v;
  }

  /** The raw value at `i`; -1 "missing required parameter" when absent. */
  req(i: number): unknown {
    const v = this.opt(i);
    if (v === undefined) throw new RpcError(RpcErrorCode.MISC_ERROR, `missing required parameter ${this.names[i] ?? i}`);
    return v;
  }

  str(i: number): string {
    const v = this.req(i);
    if (typeof v !== "string") throw typeError(v, "string");
    return v;
  }

  /** A 64-hex hash; -8 `<name> must be of length 64` / `must be hexadecimal string`, as Core. */
  hash(i: number): string {
    const v = this.str(i);
    const name = this.names[i] ?? "hash";
    if (v.length !== 64) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `${name} must be of length 64 (not ${v.length}, for '${v}')`);
    if (!/^[0-9a-fA-F]+$/.test(v)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `${name} must be hexadecimal string (not '${v}')`);
    return v.toLowerCase();
  }

  int(i: number, fallback?: number): number {
    const v = fallback === undefined ? this.req(i) : (this.opt(i) ?? fallback);
    if (typeof v !== "number" || !Number.isInteger(v)) throw typeError(v, "number");
    return v;
  }

  bool(i: number, fallback: boolean): boolean {
    const v = this.opt(i) ?? fallback;
    if (typeof v !== "boolean") throw typeError(v, "bool");
    return v;
  }

  /** An integer verbosity that also accepts booleans (Core's `verbose`/`verbosity`). */
  verbosity(i: number, fallback: number): number {
    const v = this.opt(i) ?? fallback;
    if (typeof v === "boolean") return v ? 1 : 0;
    if (typeof v !== "number" || !Number.isInteger(v)) throw typeError(v, "number");
    return v;
  }

  array(i: number): unknown[] {
    const v = this.req(i);
    if (!Array.isArray(v)) throw typeError(v, "array");
    return v;
  }
}

function typeError(v: unknown, expected: string): RpcError {
  const got = v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "boolean" ? "bool" : typeof v;
  return new RpcError(RpcErrorCode.TYPE_ERROR, `JSON value of type ${got} is not of expected type ${expected}`);
}
