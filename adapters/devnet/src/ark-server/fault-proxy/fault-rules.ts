/**
 * The faults the devnet's gRPC fault proxy injects, as tests arm them over the control API
 * (`/devnet/ark/faults`), checked whole before one is armed:
 *
 * | kind | fields | effect |
 * |---|---|---|
 * | `drop` | `method`, `vtxo?`, `answer?` | the call is not forwarded: answered `UNAVAILABLE` (default) or, with `answer: "ok"`, an empty success. With `vtxo`, only calls whose request names that VTXO (`GetVtxo`, `GetVtxoStatus`, `RegisterVtxoTransactions`) |
 * | `refuse` | `method`, `vtxo?` | the call is not forwarded and answered `INVALID_ARGUMENT` (a server rejecting the request); `vtxo` as for `drop` |
 * | `delay` | `method`, `ms` | the call is forwarded after `ms` milliseconds |
 * | `inject-recovery-ids` | `mailbox?`, `vtxo_ids?`, `raw_ids_hex?` | every `ReadMailbox` page (of `mailbox` only, when given) gains one recovery-ids message carrying these ids (`<txid>:<vout>`) and raw byte strings (e.g. undecodable ids) |
 * | `invalid-signature` | `vtxo` | `GetVtxo` of that VTXO answers it with its last signature altered (the id stays the same) |
 *
 * `method` is a method name (`PostRecoveryVtxoIds`) or its full path
 * (`/mailbox_server.MailboxService/PostRecoveryVtxoIds`).
 */
import { encodeOutPoint, formatOutPoint, fromHex, parseOutPoint } from "@tender/ark-protocol";

/** A control request the fault set refuses (answered 400). */
export class FaultInputError extends Error {}

/** A fault as armed, in the control API's JSON shape plus its id. */
export type FaultSpec =
  | { kind: "drop"; method: string; vtxo?: string; answer?: "unavailable" | "ok" }
  | { kind: "refuse"; method: string; vtxo?: string }
  | { kind: "delay"; method: string; ms: number }
  | { kind: "inject-recovery-ids"; mailbox?: string; vtxo_ids?: string[]; raw_ids_hex?: string[] }
  | { kind: "invalid-signature"; vtxo: string };

/** An armed fault: its spec, its id and how often it fired. */
export type ArmedFault = FaultSpec & { id: number; hits: number };

/** The methods whose request the proxy reads to match a `vtxo` filter. */
export const VTXO_FILTERED_METHODS = ["GetVtxo", "GetVtxoStatus", "RegisterVtxoTransactions"] as const;

/** Longest delay a fault may ask for (ten minutes). */
const MAX_DELAY_MS = 600_000;

function object(v: unknown): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new FaultInputError("a fault must be a JSON object");
  return v as Record<string, unknown>;
}

function vtxoId(v: unknown, field: string): string {
  if (typeof v !== "string") throw new FaultInputError(`${field} must be a VTXO id <txid>:<vout>`);
  try {
    return formatOutPoint(parseOutPoint(v));
  } catch {
    throw new FaultInputError(`${field} must be a VTXO id <txid>:<vout>, got ${JSON.stringify(v.slice(0, 100))}`);
  }
}

function hexBytes(v: unknown, field: string): string {
  if (typeof v !== "string" || !/^([0-9a-f]{2})*$/i.test(v)) throw new FaultInputError(`${field} must be hex bytes`);
  return v.toLowerCase();
}

function onlyKeys(o: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw new FaultInputError(`unknown field ${JSON.stringify(k)} for a ${String(o.kind)} fault`);
}

/**
 * Checks a fault from the control API; `methods` are the method names the proxy forwards.
 * Answers the normalized spec (full VTXO ids, lower-case hex, method names without their path).
 */
export function parseFault(input: unknown, methods: readonly string[]): FaultSpec {
  const o = object(input);
  const method = (): string => {
    if (typeof o.method !== "string") throw new FaultInputError("method is required: a gRPC method name");
    const name = o.method.includes("/") ? o.method.slice(o.method.lastIndexOf("/") + 1) : o.method;
    if (!methods.includes(name)) throw new FaultInputError(`unknown method ${JSON.stringify(o.method)}: the proxy forwards ${methods.join(", ")}`);
    return name;
  };
  const vtxoFilter = (m: string): { vtxo?: string } => {
    if (o.vtxo === undefined) return {};
    if (!(VTXO_FILTERED_METHODS as readonly string[]).includes(m)) throw new FaultInputError(`vtxo filters only ${VTXO_FILTERED_METHODS.join(", ")}`);
    return { vtxo: vtxoId(o.vtxo, "vtxo") };
  };
  switch (o.kind) {
    case "drop": {
      onlyKeys(o, ["kind", "method", "vtxo", "answer"]);
      const m = method();
      if (o.answer !== undefined && o.answer !== "unavailable" && o.answer !== "ok") throw new FaultInputError('answer must be "unavailable" or "ok"');
      return { kind: "drop", method: m, ...vtxoFilter(m), ...(o.answer !== undefined ? { answer: o.answer } : {}) };
    }
    case "refuse": {
      onlyKeys(o, ["kind", "method", "vtxo"]);
      const m = method();
      return { kind: "refuse", method: m, ...vtxoFilter(m) };
    }
    case "delay": {
      onlyKeys(o, ["kind", "method", "ms"]);
      if (typeof o.ms !== "number" || !Number.isSafeInteger(o.ms) || o.ms < 0 || o.ms > MAX_DELAY_MS) throw new FaultInputError(`ms must be an integer in 0..${MAX_DELAY_MS}`);
      return { kind: "delay", method: method(), ms: o.ms };
    }
    case "inject-recovery-ids": {
      onlyKeys(o, ["kind", "mailbox", "vtxo_ids", "raw_ids_hex"]);
      const list = (v: unknown, field: string): unknown[] => {
        if (v === undefined) return [];
        if (!Array.isArray(v)) throw new FaultInputError(`${field} must be an array`);
        return v;
      };
      const ids = list(o.vtxo_ids, "vtxo_ids").map((v, i) => vtxoId(v, `vtxo_ids[${i}]`));
      const raw = list(o.raw_ids_hex, "raw_ids_hex").map((v, i) => hexBytes(v, `raw_ids_hex[${i}]`));
      if (ids.length + raw.length === 0) throw new FaultInputError("inject-recovery-ids needs vtxo_ids or raw_ids_hex");
      const mailbox = o.mailbox === undefined ? undefined : hexBytes(o.mailbox, "mailbox");
      if (mailbox !== undefined && mailbox.length !== 66) throw new FaultInputError("mailbox must be a 33-byte public key in hex");
      return { kind: "inject-recovery-ids", ...(mailbox !== undefined ? { mailbox } : {}), ...(ids.length ? { vtxo_ids: ids } : {}), ...(raw.length ? { raw_ids_hex: raw } : {}) };
    }
    case "invalid-signature":
      onlyKeys(o, ["kind", "vtxo"]);
      return { kind: "invalid-signature", vtxo: vtxoId(o.vtxo, "vtxo") };
    default:
      throw new FaultInputError("kind must be one of drop, refuse, delay, inject-recovery-ids, invalid-signature");
  }
}

/** The id bytes a recovery-ids injection carries: encoded VTXO ids, then the raw strings. */
export function injectedIdBytes(f: Extract<FaultSpec, { kind: "inject-recovery-ids" }>): Uint8Array[] {
  return [...(f.vtxo_ids ?? []).map((id) => encodeOutPoint(parseOutPoint(id))), ...(f.raw_ids_hex ?? []).map((h) => fromHex(h))];
}

/** The faults armed now; every call of the proxy reads them, so a change applies to the next call. */
export class FaultSet {
  private faults: ArmedFault[] = [];
  private nextId = 1;

  constructor(private readonly methods: readonly string[]) {}

  /** Checks and arms a fault; answers it with its id. */
  arm(input: unknown): ArmedFault {
    const armed: ArmedFault = { ...parseFault(input, this.methods), id: this.nextId++, hits: 0 };
    this.faults.push(armed);
    return armed;
  }

  /** Disarms the fault `id`; false when no such fault is armed. */
  disarm(id: number): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length < before;
  }

  /** Disarms every fault. */
  clear(): void {
    this.faults = [];
  }

  /** Every armed fault, in arming order. */
  list(): readonly ArmedFault[] {
    return this.faults;
  }

  /** The armed faults of `kind`. */
  of<K extends FaultSpec["kind"]>(kind: K): (ArmedFault & { kind: K })[] {
    return this.faults.filter((f): f is ArmedFault & { kind: K } => f.kind === kind);
  }
}
