import { z, type ChainSource, type RouteDefinition, type WalletService } from "@tender/core";

/** barkd's `TipResponse`. */
export const TipResponse = z.object({ tip_height: z.number().int().min(0) });

const internal = z.object({ message: z.string() });

/** `GET /api/v1/bitcoin/tip` (`tip`): the best-chain height of the wallet's chain source. */
export function chainRoutes(chain: WalletService<ChainSource>): RouteDefinition[] {
  return [{
    method: "get", path: "/api/v1/bitcoin/tip", operationId: "tip", tag: "bitcoin", requiresWallet: true,
    summary: "Best-chain height reported by the wallet's chain source",
    responses: {
      200: { description: "The tip height", schema: TipResponse },
      500: { description: "The chain source failed", schema: internal },
    },
    handler: async () => ({ tip_height: (await (await chain.get()).getTip()).height }),
  }];
}
