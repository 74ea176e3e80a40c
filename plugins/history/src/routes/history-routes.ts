import {
  BadRequestError, NotFoundError, compareKeys, pageQueryFields, pageRequest, u32String, wantsPage, withContext, z, type PageOrder, type RouteDefinition,
} from "@tender/core";
import type { Movement } from "../movements/movement.js";
import type { MovementStore } from "../movements/movement-store.js";
import { ErrorSchema, MovementSchema } from "./schemas.js";

const list200 = { description: "Movements", schema: z.array(MovementSchema) };
const e400 = { description: "Invalid request", schema: ErrorSchema.openapi("BadRequestError") };
const e500 = { description: "Internal server error", schema: ErrorSchema.openapi("InternalServerError") };

/** Pages of `/history`: newest first (creation time, then id), as the whole list. */
const NEWEST_FIRST: PageOrder<Movement> = {
  list: "history", keyOf: (m) => [Date.parse(m.time.created_at), m.id], compare: (a, b) => compareKeys(a, b, true),
};
/** Pages of `/history?type=…&value=…`: oldest first (id), as barkd lists one payment method's movements. */
const BY_ID: PageOrder<Movement> = { list: "history-by-method", keyOf: (m) => [m.id], compare: (a, b) => compareKeys(a, b) };

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
      query: z.object({ type: z.string().optional(), value: z.string().optional(), ...pageQueryFields }),
      responses: { 200: list200, 400: e400, 500: e500 },
      handler: async ({ query, req, res }) => {
        if ((query.type === undefined) !== (query.value === undefined)) {
          throw new BadRequestError("`type` and `value` must be supplied together");
        }
        const byMethod = query.type !== undefined;
        // limit and cursor are checked before anything is read
        const page = wantsPage(query) ? pageRequest(query, byMethod ? BY_ID : NEWEST_FIRST) : undefined;
        const all = byMethod ? await store.listByPaymentMethod(query.type!, query.value!) : await store.list();
        return page ? page.take(all, req, res) : all;
      },
    },
    {
      method: "post", path: "/api/v1/history/{id}/metadata", scope: "receive", operationId: "update_metadata", tag: "history", requiresWallet: true,
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
