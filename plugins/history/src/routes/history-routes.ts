import { BadRequestError, NotFoundError, u32String, withContext, z, type RouteDefinition } from "@tender/core";
import type { MovementStore } from "../movements/movement-store.js";
import { ErrorSchema, MovementSchema } from "./schemas.js";

const list200 = { description: "Movements", schema: z.array(MovementSchema) };
const e400 = { description: "Invalid request", schema: ErrorSchema.openapi("BadRequestError") };
const e500 = { description: "Internal server error", schema: ErrorSchema.openapi("InternalServerError") };

/** The history routes and barkd's two deprecated aliases, `/wallet/movements` and `/wallet/history`. */
export function historyRoutes(store: MovementStore): RouteDefinition[] {
  const all = (operationId: string, path: string): RouteDefinition => ({
    method: "get", path, operationId, tag: "wallet", deprecated: true, requiresWallet: true,
    summary: "Deprecated: use GET /api/v1/history",
    responses: { 200: list200, 500: e500 },
    handler: () => store.list(),
  });
  return [
    {
      method: "get", path: "/api/v1/history", operationId: "list", tag: "history", requiresWallet: true,
      summary: "List the wallet's movements, optionally those of one payment method",
      query: z.object({ type: z.string().optional(), value: z.string().optional() }),
      responses: { 200: list200, 400: e400, 500: e500 },
      handler: ({ query }) => {
        if ((query.type === undefined) !== (query.value === undefined)) {
          throw new BadRequestError("`type` and `value` must be supplied together");
        }
        return query.type !== undefined ? store.listByPaymentMethod(query.type, query.value!) : store.list();
      },
    },
    {
      method: "post", path: "/api/v1/history/{id}/metadata", operationId: "update_metadata", tag: "history", requiresWallet: true,
      summary: "Apply an RFC 7396 merge patch to a movement's metadata",
      params: z.object({ id: u32String() }),
      body: z.unknown().openapi("JsonMergePatch"),
      responses: { 200: { description: "Metadata updated" }, 500: e500 },
      handler: async ({ params, body }) => {
        try {
          await store.patchMetadata(params.id, body);
        } catch (e) {
          if (e instanceof NotFoundError) throw withContext("Failed to update movement metadata", new Error(`movement ${params.id} not found`));
          throw e;
        }
        return undefined;
      },
    },
    all("movements", "/api/v1/wallet/movements"),
    all("history", "/api/v1/wallet/history"),
  ];
}
