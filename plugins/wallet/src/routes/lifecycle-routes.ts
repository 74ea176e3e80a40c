import type { RouteDefinition, WalletSession } from "@tender/core";
import type { WalletLifecycle } from "../lifecycle/wallet-lifecycle.js";
import {
  BadRequestErrorSchema, CreateWalletRequestSchema, CreateWalletResponseSchema, InternalServerErrorSchema,
  MnemonicResponseSchema, NotFoundErrorSchema, SeedLockStateSchema, UnlockRequestSchema, WalletDeleteRequestSchema, WalletDeleteResponseSchema, WalletExistsResponseSchema,
} from "./schemas.js";

const e400 = { description: "Invalid request", schema: BadRequestErrorSchema };
const e500 = { description: "Internal server error", schema: InternalServerErrorSchema };

/** The wallet lifecycle routes: create, exists, delete (dangerous, fingerprint-checked), mnemonic (opt-in). */
export function lifecycleRoutes(lifecycle: WalletLifecycle, session: WalletSession): RouteDefinition[] {
  const create = (operationId: string, undocumented: boolean): RouteDefinition => ({
    method: "post",
    scope: "admin",
    path: operationId === "create_wallet" ? "/api/v1/wallet/create" : "/api/v1/wallet",
    operationId,
    tag: "wallet",
    summary: "Create a wallet",
    undocumented,
    whileLocked: true,
    // a passphrase must never be hashed into an Idempotency-Key record (a fast hash of it could be guessed offline)
    secretBody: (b) => typeof (b as { passphrase?: unknown } | undefined)?.passphrase === "string",
    body: CreateWalletRequestSchema,
    responses: { 200: { description: "Wallet created", schema: CreateWalletResponseSchema }, 400: e400, 500: e500 },
    handler: ({ body }) => lifecycle.create(body),
  });
  return [
    {
      method: "get", path: "/api/v1/wallet", operationId: "wallet_exists", tag: "wallet",
      summary: "Whether a wallet is loaded",
      responses: { 200: { description: "Wallet existence status", schema: WalletExistsResponseSchema }, 500: e500 },
      handler: () => ({ fingerprint: session.current?.fingerprint ?? null }),
    },
    create("create_wallet", false),
    create("create_wallet_root_alias", true),
    {
      method: "delete", path: "/api/v1/wallet", scope: "admin", operationId: "wallet_delete", tag: "wallet", whileLocked: true,
      summary: "Delete the wallet",
      body: WalletDeleteRequestSchema,
      responses: { 200: { description: "Wallet deletion status", schema: WalletDeleteResponseSchema }, 400: e400, 500: e500 },
      handler: ({ body }) => lifecycle.delete(body),
    },
    {
      method: "get", path: "/api/v1/wallet/mnemonic", scope: "owner", operationId: "mnemonic", tag: "wallet",
      summary: "The wallet's mnemonic (only with --expose-mnemonic)",
      responses: {
        200: { description: "The mnemonic", schema: MnemonicResponseSchema },
        404: { description: "Mnemonic endpoint disabled", schema: NotFoundErrorSchema },
        500: e500,
      },
      handler: () => lifecycle.mnemonic(),
    },
    ...seedLockRoutes(lifecycle),
  ];
}

const lockError = { description: "Wallet is locked", schema: BadRequestErrorSchema };

/** tender's routes for an encrypted seed: its lock state, unlock with the passphrase, lock again. */
function seedLockRoutes(lifecycle: WalletLifecycle): RouteDefinition[] {
  return [
    {
      method: "get", path: "/api/v1/wallet/lock", operationId: "wallet_lock_state", tag: "wallet", requiresWallet: true,
      summary: "Whether the seed is encrypted and locked (tender extension)",
      responses: { 200: { description: "The seed's lock state", schema: SeedLockStateSchema }, 500: e500 },
      handler: () => lifecycle.lockState(),
    },
    {
      method: "post", path: "/api/v1/wallet/unlock", operationId: "wallet_unlock", tag: "wallet", scope: "admin",
      requiresWallet: true, whileLocked: true, secretBody: true,
      summary: "Unlock the encrypted seed with its passphrase (tender extension)",
      description: "Wrong passphrase: 403. After 3 wrong passphrases in a row each attempt must wait twice as long as the last (429 until then). Never stored under an Idempotency-Key.",
      body: UnlockRequestSchema,
      responses: {
        200: { description: "Unlocked (or already unlocked)", schema: SeedLockStateSchema },
        400: e400,
        403: { description: "Wrong passphrase", schema: BadRequestErrorSchema },
        429: { description: "Too many wrong passphrases: retry later", schema: BadRequestErrorSchema },
        500: e500,
      },
      handler: ({ body }) => lifecycle.unlock(body.passphrase),
    },
    {
      method: "post", path: "/api/v1/wallet/lock", operationId: "wallet_lock", tag: "wallet", scope: "admin",
      requiresWallet: true, whileLocked: true,
      summary: "Lock the encrypted seed again (tender extension)",
      description: "The wallet's background work stops and its keys are forgotten; reads keep working, everything else answers 423 until it is unlocked.",
      responses: { 200: { description: "Locked", schema: SeedLockStateSchema }, 400: e400, 423: lockError, 500: e500 },
      handler: () => lifecycle.lockWallet(),
    },
  ];
}
