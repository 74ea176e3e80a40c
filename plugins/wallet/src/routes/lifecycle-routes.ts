import type { RouteDefinition, WalletSession } from "@tender/core";
import type { WalletLifecycle } from "../lifecycle/wallet-lifecycle.js";
import {
  BadRequestErrorSchema, CreateWalletRequestSchema, CreateWalletResponseSchema, InternalServerErrorSchema,
  MnemonicResponseSchema, NotFoundErrorSchema, WalletDeleteRequestSchema, WalletDeleteResponseSchema, WalletExistsResponseSchema,
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
      method: "delete", path: "/api/v1/wallet", scope: "admin", operationId: "wallet_delete", tag: "wallet",
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
  ];
}
