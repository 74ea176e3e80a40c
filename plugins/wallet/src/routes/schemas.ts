import { satAmount, z } from "@tender/core";
import { NETWORKS } from "../config/wallet-config.js";

/** barkd's error bodies, shared by the wallet routes. */
export const BadRequestErrorSchema = z.object({ message: z.string() }).openapi("BadRequestError");
export const NotFoundErrorSchema = z.object({ resources: z.array(z.string()), message: z.string() }).openapi("NotFoundError");
export const InternalServerErrorSchema = z.object({ message: z.string() }).openapi("InternalServerError");

export const BarkNetworkSchema = z.enum(NETWORKS).openapi("BarkNetwork");

export const BitcoindAuthSchema = z
  .union([
    z.object({ cookie: z.object({ cookie: z.string() }) }),
    z.object({ "user-pass": z.object({ user: z.string(), pass: z.string() }) }),
  ])
  .openapi("BitcoindAuth");

export const ChainSourceConfigSchema = z
  .union([
    z.object({ bitcoind: z.object({ bitcoind: z.string(), bitcoind_auth: BitcoindAuthSchema }) }),
    z.object({ esplora: z.object({ url: z.string() }) }),
  ])
  .openapi("ChainSourceConfig");

export const CreateWalletRequestSchema = z
  .object({
    network: BarkNetworkSchema,
    ark_server: z.string().nullish(),
    ark_server_access_token: z.string().nullish(),
    birthday_height: z.number().int().min(0).max(0xffffffff).nullish(),
    chain_source: ChainSourceConfigSchema.nullish(),
    force: z.boolean().nullish(),
    mnemonic: z.string().nullish(),
    passphrase: z.string().nullish().openapi({
      description: "tender extension: encrypt the seed at rest with this passphrase (at least 8 characters); the daemon then starts locked. Required when the daemon runs with --encrypt-seed.",
    }),
  })
  .openapi("CreateWalletRequest");
export type CreateWalletRequest = z.infer<typeof CreateWalletRequestSchema>;

export const CreateWalletResponseSchema = z.object({ fingerprint: z.string() }).openapi("CreateWalletResponse");
export const WalletExistsResponseSchema = z.object({ fingerprint: z.string().nullable() }).openapi("WalletExistsResponse");
export const WalletDeleteRequestSchema = z.object({ dangerous: z.boolean(), fingerprint: z.string() }).openapi("WalletDeleteRequest");
export const WalletDeleteResponseSchema = z.object({ deleted: z.boolean(), message: z.string() }).openapi("WalletDeleteResponse");
/** tender's seed lock routes. */
export const UnlockRequestSchema = z.object({ passphrase: z.string() }).openapi("WalletUnlockRequest");
export const SeedLockStateSchema = z.object({
  encrypted: z.boolean().openapi({ description: "Whether the seed is stored encrypted" }),
  locked: z.boolean().openapi({ description: "Whether the seed is encrypted and not unlocked: only reads that need no key work" }),
}).openapi("WalletLockState");
export const MnemonicResponseSchema = z.object({ mnemonic: z.string() }).openapi("MnemonicResponse");

const u64 = () => z.number().int().nonnegative();

/** barkd's `SendRequest`. */
export const SendRequestSchema = z.object({
  destination: z.string(), amount_sat: satAmount().nullable().optional(), comment: z.string().nullable().optional(),
}).openapi("SendRequest");
/** barkd's `SendResponse` (`payment_hash` only for Lightning). */
export const SendResponseSchema = z.object({ message: z.string(), payment_hash: z.string().nullable().optional() }).openapi("SendResponse");
/** barkd's `Balance` (`pending_exit_sat` omitted when unknown). */
export const BalanceSchema = z.object({
  spendable_sat: u64(), pending_lightning_send_sat: u64(), claimable_lightning_receive_sat: u64(), pending_in_round_sat: u64(),
  pending_board_sat: u64(), pending_exit_sat: u64().optional(),
}).openapi("Balance");
