import type { RouteDefinition, WalletSession } from "@tender/core";
import type { BalanceContributors } from "../balance/balance-contributors.js";
import { classifyDestination } from "../send/destination-kinds.js";
import type { SendDestinations } from "../send/send-destinations.js";
import { BadRequestErrorSchema, BalanceSchema, InternalServerErrorSchema, SendRequestSchema, SendResponseSchema } from "./schemas.js";

const e400 = { description: "Bad request", schema: BadRequestErrorSchema };
const e500 = { description: "Internal server error", schema: InternalServerErrorSchema };

/**
 * The wallet-wide payment routes every rail extends: `POST /api/v1/wallet/send` (the destination's
 * kind decides the rail) and `GET /api/v1/wallet/balance` (each rail adds its fields).
 */
export function paymentRoutes(send: SendDestinations, balance: BalanceContributors, session: WalletSession): RouteDefinition[] {
  return [
    {
      method: "get", path: "/api/v1/wallet/balance", operationId: "balance", tag: "wallet", requiresWallet: true,
      responses: { 200: { description: "The off-chain balance", schema: BalanceSchema }, 500: e500 },
      handler: async () => {
        const b = await balance.read();
        const out: Record<string, number> = {};
        for (const [field, sat] of Object.entries(b)) if (sat !== undefined) out[field] = Number(sat);
        return out;
      },
    },
    {
      method: "post", path: "/api/v1/wallet/send", scope: "send", operationId: "send", tag: "wallet", requiresWallet: true, body: SendRequestSchema,
      responses: { 200: { description: "Payment sent", schema: SendResponseSchema }, 400: e400, 500: e500 },
      handler: async ({ body }) => {
        const network = session.current?.network ?? "regtest";
        const outcome = await send.pay(classifyDestination(body.destination, body.amount_sat, body.comment, network, (d) => send.recognizeAdded(d)));
        return { message: "Payment sent successfully", ...(outcome.paymentHash ? { payment_hash: outcome.paymentHash } : {}) };
      },
    },
  ];
}
