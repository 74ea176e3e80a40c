import { formatLocalRfc3339 } from "./timestamps.js";

/** Movement statuses. */
export const MOVEMENT_STATUSES = ["pending", "successful", "failed", "canceled"] as const;
export type MovementStatus = (typeof MOVEMENT_STATUSES)[number];

/** Payment method type tags (`PaymentMethod.type`). */
export const PAYMENT_METHOD_TYPES = ["ark", "bitcoin", "output-script", "invoice", "offer", "lightning-address", "lnurl", "custom"] as const;
export type PaymentMethodType = (typeof PAYMENT_METHOD_TYPES)[number];

export interface PaymentMethod {
  type: PaymentMethodType;
  value: string;
}

export interface MovementDestination {
  destination: PaymentMethod;
  amount_sat: number;
}

/** barkd's `Movement` JSON (the `bark-json` model barkd's history routes answer with). */
export interface Movement {
  id: number;
  status: MovementStatus;
  subsystem: { name: string; kind: string };
  metadata?: Record<string, unknown>;
  intended_balance_sat: number;
  effective_balance_sat: number;
  offchain_fee_sat: number;
  sent_to: MovementDestination[];
  received_on: MovementDestination[];
  input_vtxos: string[];
  output_vtxos: string[];
  exited_vtxos: string[];
  time: { created_at: string; updated_at: string; completed_at?: string };
}

/**
 * A stored movement's fields (a `MovementRecord`, or a row read in plain SQL): JSON columns as
 * text, integers in any of the forms the drivers give them.
 */
export interface MovementFields {
  id: number;
  status: string;
  subsystemName: string;
  subsystemKind: string;
  metadata: string;
  intendedBalanceSat: number | bigint;
  effectiveBalanceSat: number | bigint;
  offchainFeeSat: number | bigint;
  sentTo: string;
  receivedOn: string;
  inputVtxos: string;
  outputVtxos: string;
  exitedVtxos: string;
  createdAt: number | bigint;
  updatedAt: number | bigint;
  completedAt?: number | bigint | null;
}

/** The JSON view of a stored movement. */
export function movementJson(r: MovementFields): Movement {
  const metadata = JSON.parse(r.metadata) as Record<string, unknown>;
  return {
    id: r.id,
    status: r.status as MovementStatus,
    subsystem: { name: r.subsystemName, kind: r.subsystemKind },
    ...(Object.keys(metadata).length ? { metadata } : {}),
    intended_balance_sat: Number(r.intendedBalanceSat),
    effective_balance_sat: Number(r.effectiveBalanceSat),
    offchain_fee_sat: Number(r.offchainFeeSat),
    sent_to: JSON.parse(r.sentTo) as MovementDestination[],
    received_on: JSON.parse(r.receivedOn) as MovementDestination[],
    input_vtxos: JSON.parse(r.inputVtxos) as string[],
    output_vtxos: JSON.parse(r.outputVtxos) as string[],
    exited_vtxos: JSON.parse(r.exitedVtxos) as string[],
    time: {
      created_at: formatLocalRfc3339(Number(r.createdAt)),
      updated_at: formatLocalRfc3339(Number(r.updatedAt)),
      ...(r.completedAt != null ? { completed_at: formatLocalRfc3339(Number(r.completedAt)) } : {}),
    },
  };
}
