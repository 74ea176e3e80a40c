/**
 * barkd's `/api/v1/exits` routes, with its rules, texts and codes: the status listings (and the
 * deprecated `/status` redirect and `/status/{vtxo_id}` alias), start, progress, claim, cancel
 * and the emergency exit fee estimate.
 */
import { BadRequestError, NotFoundError, queryBool, satAmount, spendingCap, u64String, z, type RouteDefinition } from "@tender/core";
import { parseOutPoint } from "@tender/ark-protocol";
import { claimExits } from "./exit-claim.js";
import { estimateExitFee } from "./exit-fee.js";
import type { ExitPorts } from "./exit-ports.js";
import { FINISHED_KINDS, LIVE_KINDS, type ExitService } from "./exit-service.js";

const tag = "exits";
const Message = z.object({ message: z.string() });
const NotFound = z.object({ resources: z.array(z.string()), message: z.string() });
const e400 = { description: "Bad request", schema: Message };
const e404 = { description: "Not found", schema: NotFound };
const e500 = { description: "Internal server error", schema: Message };
const Json = z.record(z.string(), z.unknown());

const StatusQuery = z.object({ history: queryBool().optional(), transactions: queryBool().optional() });
const VtxoParam = z.object({ vtxo_id: z.string() });

/** Parses a VTXO id as barkd's exit routes do (400 `bad request: Invalid VTXO ID: …`). */
export function parseVtxoId(raw: string): string {
  try {
    parseOutPoint(raw);
    return raw;
  } catch (e) {
    throw new BadRequestError(`bad request: Invalid VTXO ID: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The routes over the loaded wallet's exits. */
export function exitRoutes(exits: () => ExitService, ports: ExitPorts): RouteDefinition[] {
  /** A VTXO the wallet knows (404 `VTXO not found` otherwise). */
  const known = async (id: string): Promise<string> => {
    if (!(await ports.vtxos.get(id))) throw new NotFoundError(`not found [resources=${id}]: VTXO not found`, [id]);
    return id;
  };
  const destination = (address: string) => ports.wallet.destinationScript(address);
  const listing = (path: string, operationId: string, kinds: readonly string[], summary: string): RouteDefinition => ({
    method: "get", path, operationId, tag, requiresWallet: true, query: StatusQuery, summary,
    responses: { 200: { description: "Exit statuses", schema: z.array(Json) }, 500: e500 },
    handler: async ({ query }) => exits().statuses(kinds as never, query.history ?? false, query.transactions ?? false),
  });
  const byVtxo = (path: string, operationId: string, deprecated: boolean): RouteDefinition => ({
    method: "get", path, operationId, tag, requiresWallet: true, deprecated, params: VtxoParam, query: StatusQuery,
    summary: deprecated ? "Get exit status (deprecated)" : "Get VTXO exit status",
    responses: { 200: { description: "The exit status", schema: Json }, 400: e400, 404: e404, 500: e500 },
    handler: async ({ params, query }) => {
      const id = parseVtxoId(params.vtxo_id);
      const status = await exits().status(id, query.history ?? false, query.transactions ?? false);
      if (!status) throw new NotFoundError("VTXO not found", [id]);
      return status;
    },
  });
  return [
    {
      method: "get", path: "/api/v1/exits/status", operationId: "get_all_exit_status_deprecated", tag, deprecated: true,
      summary: "List all exit statuses (deprecated)",
      responses: { 308: { description: "Permanent redirect to `/exits/status/all`" } },
      handler: ({ res }) => {
        res.status(308).location("/api/v1/exits/status/all").end();
      },
    },
    listing("/api/v1/exits/status/all", "get_all_exit_status", [...LIVE_KINDS, ...FINISHED_KINDS], "List all exit statuses"),
    listing("/api/v1/exits/status/live", "get_live_exit_status", LIVE_KINDS, "List live exit statuses"),
    listing("/api/v1/exits/status/finished", "get_finished_exits", FINISHED_KINDS, "List finished exits"),
    byVtxo("/api/v1/exits/status/vtxo/{vtxo_id}", "get_exit_status_by_vtxo_id", false),
    byVtxo("/api/v1/exits/status/{vtxo_id}", "get_exit_status_by_vtxo_id_deprecated", true),
    {
      method: "post", path: "/api/v1/exits/start/vtxos", scope: "admin", operationId: "exit_start_vtxos", tag, requiresWallet: true,
      body: z.object({ vtxos: z.array(z.string()) }), summary: "Start exit for specific VTXOs",
      responses: { 200: { description: "Exit started successfully", schema: Message }, 400: e400, 404: e404, 500: e500 },
      handler: async ({ body }) => {
        if (body.vtxos.length === 0) throw new BadRequestError("No VTXO IDs provided");
        const ids: string[] = [];
        for (const raw of body.vtxos) ids.push(await known(parseVtxoId(raw)));
        await exits().start(ids);
        return { message: "Exit started successfully" };
      },
    },
    {
      method: "post", path: "/api/v1/exits/start/all", scope: "admin", operationId: "exit_start_all", tag, requiresWallet: true, summary: "Start exit for all VTXOs",
      responses: { 200: { description: "Exit started successfully", schema: Message }, 500: e500 },
      handler: async () => {
        await exits().start("all");
        return { message: "Exit started successfully" };
      },
    },
    {
      method: "post", path: "/api/v1/exits/progress", scope: "admin", operationId: "exit_progress", tag, requiresWallet: true, summary: "Progress exits",
      body: z.object({ wait: z.boolean().nullish(), fee_rate: satAmount().nullish() }),
      responses: { 200: { description: "The exit progress", schema: Json }, 500: e500 },
      handler: async ({ body }) => exits().progress({ syncWallet: true, detectForeign: true, ...(body.fee_rate != null ? { satPerKvb: body.fee_rate } : {}) }),
    },
    {
      method: "post", path: "/api/v1/exits/claim/vtxos", scope: "admin", operationId: "exit_claim_vtxos", tag, requiresWallet: true, summary: "Claim specific exited VTXOs",
      body: z.object({ destination: z.string(), vtxos: z.array(z.string()), fee_rate: satAmount().nullish() }),
      responses: { 200: { description: "Exit claimed successfully", schema: Message }, 400: e400, 404: e404, 500: e500 },
      handler: async ({ body }) => {
        const script = await destination(body.destination);
        const service = exits();
        const claimable = new Set((await service.statuses(["claimable"], false, false)).map((s) => s.vtxo_id as string));
        const ids = new Set<string>();
        for (const raw of body.vtxos) ids.add(await known(parseVtxoId(raw)));
        for (const id of ids) if (!claimable.has(id)) throw new BadRequestError(`Unspendable VTXO provided: ${id}`);
        // a claim pays to any address: a key capped on chain may not make it (its amount is known only once built)
        await spendingCap("onchain", undefined, "an exit claim");
        await claimExits(service, [...ids], script, body.fee_rate ?? undefined);
        return { message: "Exit claimed successfully" };
      },
    },
    {
      method: "post", path: "/api/v1/exits/claim/all", scope: "admin", operationId: "exit_claim_all", tag, requiresWallet: true, summary: "Claim all exited VTXOs",
      body: z.object({ destination: z.string(), fee_rate: satAmount().nullish() }),
      responses: { 200: { description: "Exit claimed successfully", schema: Message }, 400: e400, 500: e500 },
      handler: async ({ body }) => {
        const script = await destination(body.destination);
        await spendingCap("onchain", undefined, "an exit claim");
        await claimExits(exits(), "all", script, body.fee_rate ?? undefined);
        return { message: "Exit claimed successfully" };
      },
    },
    {
      method: "post", path: "/api/v1/exits/cancel/{vtxo_id}", scope: "admin", operationId: "exit_cancel", tag, requiresWallet: true, params: VtxoParam, summary: "Cancel an exit",
      responses: { 200: { description: "Exit canceled successfully", schema: Message }, 400: e400, 404: e404, 500: e500 },
      handler: async ({ params }) => {
        await exits().cancel(parseVtxoId(params.vtxo_id));
        return { message: "Exit canceled successfully" };
      },
    },
    {
      method: "get", path: "/api/v1/exits/fee", operationId: "emergency_exit_fee", tag, requiresWallet: true, summary: "Estimate emergency exit fee",
      query: z.object({ vtxo_ids: z.string().optional(), fee_rate_sat_per_vb: u64String().optional(), destination: z.string().optional() }),
      responses: { 200: { description: "The emergency exit fee breakdown", schema: Json }, 400: e400, 500: e500 },
      handler: async ({ query }) => {
        const ids = query.vtxo_ids === undefined ? undefined : (query.vtxo_ids as string).split(",").map((s: string) => s.trim()).filter((s: string) => s !== "").map(parseVtxoId);
        const rate = query.fee_rate_sat_per_vb;
        if (rate !== undefined && rate * 250n > 2n ** 64n - 1n) throw new BadRequestError("bad request: Fee rate too large");
        const script = query.destination === undefined ? undefined : await destination(query.destination);
        return estimateExitFee(exits(), ids, rate, script);
      },
    },
  ];
}
