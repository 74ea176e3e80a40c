import { satAmount, z } from "@tender/core";

/** barkd's request and response models of the on-chain wallet (its OpenAPI document's schemas of the same names). */
export const OnchainSendRequest = z.object({ destination: z.string(), amount_sat: satAmount() });
export const OnchainSendManyRequest = z.object({ destinations: z.array(z.string()), immediate: z.boolean().nullable().optional() });
export const OnchainDrainRequest = z.object({ destination: z.string() });

const sat = z.number().int().min(0);
export const OnchainBalance = z.object({
  total_sat: sat, trusted_spendable_sat: sat, immature_sat: sat, trusted_pending_sat: sat, untrusted_pending_sat: sat, confirmed_sat: sat,
});
export const Address = z.object({ address: z.string() });
export const Send = z.object({ txid: z.string() });
export const UtxoInfo = z.object({ outpoint: z.string(), amount_sat: sat, confirmation_height: z.number().int().min(0).nullable() });
export const BlockRef = z.object({ height: z.number().int().min(0), hash: z.string() });
export const WalletTxInfo = z.object({
  txid: z.string(), tx: z.string(), onchain_fee_sat: sat.optional(), balance_change_sat: z.number().int(),
  confirmation: BlockRef.nullable(), is_cpfp: z.boolean(),
});
export const OnchainFeeRatesResponse = z.object({ fast_sat_per_vb: sat, regular_sat_per_vb: sat, slow_sat_per_vb: sat });
export const MessageError = z.object({ message: z.string() });
