import { z } from "@tender/core";
import { MOVEMENT_STATUSES, PAYMENT_METHOD_TYPES } from "../movements/movement.js";

export const PaymentMethodSchema = z.object({ type: z.enum(PAYMENT_METHOD_TYPES), value: z.string() }).openapi("PaymentMethod");
export const MovementDestinationSchema = z.object({ destination: PaymentMethodSchema, amount_sat: z.number().int() }).openapi("MovementDestination");
export const MovementSchema = z
  .object({
    id: z.number().int(),
    status: z.enum(MOVEMENT_STATUSES).openapi("MovementStatus"),
    subsystem: z.object({ name: z.string(), kind: z.string() }).openapi("MovementSubsystem"),
    metadata: z.record(z.string(), z.unknown()).optional(),
    intended_balance_sat: z.number().int(),
    effective_balance_sat: z.number().int(),
    offchain_fee_sat: z.number().int(),
    sent_to: z.array(MovementDestinationSchema),
    received_on: z.array(MovementDestinationSchema),
    input_vtxos: z.array(z.string()),
    output_vtxos: z.array(z.string()),
    exited_vtxos: z.array(z.string()),
    time: z.object({ created_at: z.string(), updated_at: z.string(), completed_at: z.string().optional() }).openapi("MovementTimestamp"),
  })
  .openapi("Movement");
export const ErrorSchema = z.object({ message: z.string() });
