import { z } from "@tender/core";
import { BadRequestErrorSchema, InternalServerErrorSchema, NotFoundErrorSchema } from "@tender/plugin-wallet";

/** Error bodies (shared names with the wallet plugin's OpenAPI components). */
export { BadRequestErrorSchema, InternalServerErrorSchema, NotFoundErrorSchema };

const u64 = () => z.number().int().nonnegative();
const PpmEntry = z.object({ expiry_blocks_threshold: u64(), ppm: u64() }).openapi("PpmExpiryFeeEntry");

export const FeeScheduleSchema = z.object({
  board: z.object({ min_fee_sat: u64(), base_fee_sat: u64(), ppm: u64() }).openapi("BoardFees"),
  offboard: z.object({ base_fee_sat: u64(), fixed_additional_vb: u64(), ppm_expiry_table: z.array(PpmEntry) }).openapi("OffboardFees"),
  refresh: z.object({ base_fee_sat: u64(), ppm_expiry_table: z.array(PpmEntry) }).openapi("RefreshFees"),
  lightning_receive: z.object({ base_fee_sat: u64(), ppm: u64() }).openapi("LightningReceiveFees"),
  lightning_send: z.object({ min_fee_sat: u64(), base_fee_sat: u64(), ppm_expiry_table: z.array(PpmEntry) }).openapi("LightningSendFees"),
}).openapi("FeeSchedule");

export const ArkInfoSchema = z.object({
  network: z.string(), server_pubkey: z.string(), mailbox_pubkey: z.string(), round_interval: z.string(), nb_round_nonces: u64(),
  vtxo_exit_delta: u64(), vtxo_lifetime: u64(), htlc_send_expiry_delta: u64(), htlc_expiry_delta: u64(), max_vtxo_amount: u64().nullable(),
  required_board_confirmations: u64(), max_user_invoice_cltv_delta: u64(), min_board_amount_sat: u64(), offboard_feerate_sat_per_kvb: u64(),
  ln_receive_anti_dos_required: z.boolean(), fees: FeeScheduleSchema, max_vtxo_exit_depth: u64(), tos_link: z.string().nullable(),
  max_offboard_inputs: u64(), vtxo_expiry_delta: u64(),
}).openapi("ArkInfo");

export const ConnectedResponseSchema = z.object({ connected: z.boolean() }).openapi("ConnectedResponse");
export const NextRoundStartSchema = z.object({ start_time: z.string() }).openapi("NextRoundStart");
export const ArkAddressResponseSchema = z.object({ address: z.string() }).openapi("ArkAddressResponse");

const VtxoState = z.union([
  z.object({ type: z.enum(["spendable", "spent", "exited"]) }),
  z.object({ type: z.literal("locked"), movement_id: u64().optional(), action_id: z.string().optional() }),
]).openapi("VtxoStateInfo");

export const WalletVtxoInfoSchema = z.object({
  id: z.string(), amount_sat: u64(), policy_type: z.string(), user_pubkey: z.string(), server_pubkey: z.string(), expiry_height: u64(),
  exit_delta: u64(), chain_anchor: z.string(), exit_depth: u64().nullable(), state: VtxoState,
}).openapi("WalletVtxoInfo");

export const EncodedVtxoResponseSchema = z.object({ encoded: z.string() }).openapi("EncodedVtxoResponse");
export const ImportVtxoRequestSchema = z.object({ vtxos: z.array(z.string()) }).openapi("ImportVtxoRequest");
export const MailboxSyncResponseSchema = z.object({ checkpoint: u64() }).openapi("MailboxSyncResponse");
