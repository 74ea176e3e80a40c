import { u64String, z } from "@tender/core";

const sat = z.number().int().min(0);

/** barkd's `FeeEstimateResponse`: what an amount costs on a rail, and what arrives. */
export const FeeEstimateResponse = z.object({ gross_amount_sat: sat, fee_sat: sat, net_amount_sat: sat, vtxos_spent: z.array(z.string()) });

/** The `amount_sat` query parameter of barkd's amount-based estimates: a u64 in decimal (`+5` and `007` included, as barkd reads it). */
export const AmountQuery = z.object({ amount_sat: u64String() });

/** barkd's error body for a failed estimate. */
export const MessageError = z.object({ message: z.string() });
