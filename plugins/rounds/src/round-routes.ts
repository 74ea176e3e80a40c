import { BadRequestError, NotFoundError, z, type RouteDefinition } from "@tender/core";
import { formatOutPoint, parseOutPoint } from "@tender/ark-protocol";
import { BadRequestErrorSchema, InternalServerErrorSchema, NotFoundErrorSchema } from "@tender/plugin-wallet";
import type { RoundsService } from "./rounds-service.js";

const u64 = () => z.number().int().nonnegative();

/** barkd's `RefreshRequest`. */
export const RefreshRequestSchema = z.object({ vtxos: z.array(z.string()) }).openapi("RefreshRequest");
/** barkd's `DelegatedRefreshRequest`. */
export const DelegatedRefreshRequestSchema = z.object({
  vtxos: z.array(z.string()),
  height: z.number().int().min(0).max(0xffff_ffff).nullable().optional(),
}).openapi("DelegatedRefreshRequest");

/** barkd's `RoundStatus` (internally tagged by `status`). */
export const RoundStatusSchema = z.union([
  z.object({ status: z.literal("sync-error"), error: z.string() }),
  z.object({ status: z.literal("confirmed"), funding_txid: z.string() }),
  z.object({ status: z.literal("unconfirmed"), funding_txid: z.string() }),
  z.object({ status: z.literal("pending") }),
  z.object({ status: z.literal("failed"), error: z.string() }),
  z.object({ status: z.literal("canceled") }),
]).openapi("RoundStatus");

/** barkd's `PendingRoundInfo`. */
export const PendingRoundInfoSchema = z.object({
  id: z.number().int().min(0).max(0xffff_ffff),
  status: RoundStatusSchema,
  participation: z.object({
    inputs: z.array(z.string()),
    outputs: z.array(z.object({ amount_sat: u64(), policy_type: z.string(), user_pubkey: z.string() }).openapi("VtxoRequestInfo")),
  }).openapi("RoundParticipationInfo"),
  unlock_hash: z.string().nullable(),
  funding_txid: z.string().nullable(),
  funding_tx_hex: z.string().nullable(),
}).openapi("PendingRoundInfo");

const tag = "wallet";
const ok = { description: "Returns the refresh result", schema: PendingRoundInfoSchema };
const e400 = { description: "No VTXO IDs provided, or one of the provided VTXO IDs is invalid", schema: BadRequestErrorSchema };
const e404 = { description: "One the VTXOs wasn't found", schema: NotFoundErrorSchema };
const e500 = { description: "Internal server error", schema: InternalServerErrorSchema };

/** The ids of a refresh request, as barkd reads them: none is a 400, and so is any that does not parse (before anything else happens). */
export function requestedIds(raw: readonly string[]): string[] {
  if (raw.length === 0) throw new BadRequestError("No VTXO IDs provided");
  return raw.map((s) => {
    try {
      return formatOutPoint(parseOutPoint(s));
    } catch (e) {
      throw new BadRequestError(`bad request: Invalid VTXO id: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
}

const noVtxos = () => new BadRequestError("No VTXOs to refresh");

/** barkd's refresh routes and `GET /wallet/rounds`. */
export function roundRoutes(rounds: () => RoundsService): RouteDefinition[] {
  return [
    {
      method: "post", path: "/api/v1/wallet/refresh/vtxos", scope: "send", operationId: "refresh_vtxos", tag, requiresWallet: true, body: RefreshRequestSchema,
      summary: "Refresh specific VTXOs",
      responses: { 200: ok, 400: e400, 404: e404, 500: e500 },
      handler: async ({ body }) => (await rounds().refresh(requestedIds(body.vtxos))) ?? Promise.reject(noVtxos()),
    },
    {
      method: "post", path: "/api/v1/wallet/refresh/delegated/vtxos", scope: "send", operationId: "refresh_delegated", tag, requiresWallet: true,
      body: DelegatedRefreshRequestSchema, summary: "Refresh VTXOs in delegated mode",
      responses: { 200: ok, 400: e400, 404: e404, 500: e500 },
      handler: async ({ body }) => (await rounds().refreshDelegated(requestedIds(body.vtxos), body.height ?? undefined)) ?? Promise.reject(noVtxos()),
    },
    {
      method: "post", path: "/api/v1/wallet/refresh/all", scope: "send", operationId: "refresh_all", tag, requiresWallet: true,
      summary: "Refresh all VTXOs",
      responses: { 200: ok, 400: e400, 500: e500 },
      handler: async () => (await rounds().refresh(await rounds().spendableIds())) ?? Promise.reject(noVtxos()),
    },
    {
      method: "post", path: "/api/v1/wallet/refresh/counterparty", scope: "send", operationId: "refresh_counterparty", tag, requiresWallet: true,
      summary: "Refresh received VTXOs",
      responses: { 200: ok, 404: { description: "There is no VTXO to refresh", schema: NotFoundErrorSchema }, 500: e500 },
      handler: async () => (await rounds().refresh(await rounds().counterpartyIds())) ?? Promise.reject(new NotFoundError("No VTXO to refresh", [])),
    },
    {
      method: "get", path: "/api/v1/wallet/rounds", operationId: "pending_rounds", tag, requiresWallet: true,
      summary: "List round participations",
      responses: { 200: { description: "Returns the wallet pending rounds", schema: z.array(PendingRoundInfoSchema) }, 500: e500 },
      handler: async () => rounds().list(),
    },
  ];
}
