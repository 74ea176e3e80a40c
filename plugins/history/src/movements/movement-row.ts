import type { MovementFields } from "./movement.js";

/**
 * A row of `movement` as the driver returns it: SQLite gives integers as numbers, PostgreSQL
 * gives bigints as strings.
 */
export interface MovementRow {
  id: number | string;
  status: string;
  subsystem_name: string;
  subsystem_kind: string;
  metadata: string;
  intended_balance_sat: number | string | bigint;
  effective_balance_sat: number | string | bigint;
  offchain_fee_sat: number | string | bigint;
  sent_to: string;
  received_on: string;
  input_vtxos: string;
  output_vtxos: string;
  exited_vtxos: string;
  created_at: number | string | bigint;
  updated_at: number | string | bigint;
  completed_at: number | string | bigint | null;
}

/** Every column of `movement`, in {@link MovementRow}'s order. */
export const MOVEMENT_COLUMNS =
  "id, status, subsystem_name, subsystem_kind, metadata, intended_balance_sat, effective_balance_sat, offchain_fee_sat, " +
  "sent_to, received_on, input_vtxos, output_vtxos, exited_vtxos, created_at, updated_at, completed_at";

/** The fields an update may change, with their columns. */
export const MUTABLE_COLUMNS = {
  status: "status",
  metadata: "metadata",
  effectiveBalanceSat: "effective_balance_sat",
  offchainFeeSat: "offchain_fee_sat",
  sentTo: "sent_to",
  receivedOn: "received_on",
  inputVtxos: "input_vtxos",
  outputVtxos: "output_vtxos",
  exitedVtxos: "exited_vtxos",
  updatedAt: "updated_at",
  completedAt: "completed_at",
} as const satisfies Partial<Record<keyof MovementFields, string>>;

/** A stored movement's fields, with every integer as a number. */
export interface MovementValues extends MovementFields {
  id: number;
  intendedBalanceSat: number;
  effectiveBalanceSat: number;
  offchainFeeSat: number;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

/** The fields of a row read from `movement`. */
export function movementValues(r: MovementRow): MovementValues {
  return {
    id: Number(r.id),
    status: r.status,
    subsystemName: r.subsystem_name,
    subsystemKind: r.subsystem_kind,
    metadata: r.metadata,
    intendedBalanceSat: Number(r.intended_balance_sat),
    effectiveBalanceSat: Number(r.effective_balance_sat),
    offchainFeeSat: Number(r.offchain_fee_sat),
    sentTo: r.sent_to,
    receivedOn: r.received_on,
    inputVtxos: r.input_vtxos,
    outputVtxos: r.output_vtxos,
    exitedVtxos: r.exited_vtxos,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    completedAt: r.completed_at === null ? null : Number(r.completed_at),
  };
}

/** A whole number of sats or milliseconds, as stored in a `bigint` column (a fraction is refused, as `BigInt` refuses it). */
export function wholeNumber(v: number, what: string): number {
  if (!Number.isInteger(v)) throw new RangeError(`${what} must be a whole number, got ${v}`);
  return v;
}
