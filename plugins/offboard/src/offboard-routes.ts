/**
 * barkd's offboard routes (`/api/v1/wallet/offboard/vtxos`, `/offboard/all`, `/send-onchain`) and
 * the estimates the fees plugin serves (`/api/v1/fees/offboard`, `/offboard-all`, `/send-onchain`),
 * with barkd's checks in barkd's order and its texts.
 */
import { BadRequestError, NotFoundError, satAmount, spendingCap, u64String, withContext, z, type RouteDefinition } from "@tender/core";
import { formatOutPoint, parseOutPoint } from "@tender/ark-protocol";
import type { BodyFeeEstimator, CustomFeeEstimator } from "@tender/plugin-fees";
import { FeeEstimateResponse } from "@tender/plugin-fees";
import { InvalidAddressError, WrongNetworkAddressError, addressNetworkOf, destinationScript } from "@tender/plugin-onchain";
import { BadRequestErrorSchema, InternalServerErrorSchema, NotFoundErrorSchema } from "@tender/plugin-wallet";
import type { OffboardVtxo } from "./offboard-ports.js";
import type { OffboardEstimate } from "./offboard-plan.js";
import type { Destination, OffboardService } from "./offboard-service.js";

/** barkd's `OffboardVtxosRequest`. */
export const OffboardVtxosRequestSchema = z.object({ vtxos: z.array(z.string()), address: z.string().nullable().optional() }).openapi("OffboardVtxosRequest");
/** barkd's `OffboardAllRequest` (a JSON body is required, `{}` allowed). */
export const OffboardAllRequestSchema = z.object({ address: z.string().nullable().optional() }).openapi("OffboardAllRequest");
/** barkd's `SendOnchainRequest`. */
export const SendOnchainRequestSchema = z.object({ destination: z.string(), amount_sat: satAmount() }).openapi("SendOnchainRequest");
/** barkd's `OffboardResult`. */
export const OffboardResultSchema = z.object({ offboard_txid: z.string() }).openapi("OffboardResult");
/** barkd's `OffboardFeeEstimateRequest`. */
export const OffboardFeeEstimateRequestSchema = z.object({ address: z.string(), vtxos: z.array(z.string()) }).openapi("OffboardFeeEstimateRequest");

/** What the routes need besides the service. */
export interface OffboardRouteDeps {
  readonly service: () => OffboardService;
  /** The loaded wallet's network (`regtest`, `signet`, `mainnet`…). */
  readonly network: () => Promise<string>;
  /** A fresh address of the on-chain wallet (the destination when none is given). */
  readonly freshAddress: () => Promise<string>;
  /** A stored VTXO of the wallet (any state). */
  readonly vtxo: (id: string) => Promise<OffboardVtxo | undefined>;
}

/**
 * The destination `addr` on the wallet's network. barkd's wallet routes word the refusals in lower
 * case (`invalid destination address`, `address is not valid for configured network`), its fee
 * estimates capitalized.
 */
export async function parseDestination(addr: string, network: string, wording: "wallet" | "estimate"): Promise<Destination> {
  try {
    return { address: addr, script: destinationScript(addr, addressNetworkOf(network), network) };
  } catch (e) {
    if (wording === "wallet" && (e instanceof InvalidAddressError || e instanceof WrongNetworkAddressError)) {
      throw new BadRequestError(e.message.replace(/^bad request: (\w)/, (_m, c: string) => `bad request: ${c.toLowerCase()}`));
    }
    throw e;
  }
}

/** Parses the ids in order: none is a 400, an unparseable one a 400, an unknown one a 404 (barkd's texts). */
async function requestedVtxos(raw: readonly string[], lookup: (id: string) => Promise<OffboardVtxo | undefined>): Promise<OffboardVtxo[]> {
  const out: OffboardVtxo[] = [];
  for (const s of raw) {
    let id: string;
    try {
      id = formatOutPoint(parseOutPoint(s));
    } catch (e) {
      throw new BadRequestError(`bad request: Invalid VTXO id: ${e instanceof Error ? e.message : String(e)}`);
    }
    const v = await lookup(id);
    if (!v) throw new NotFoundError(`not found [resources=${id}]: VTXO not found`, [id]);
    out.push(v);
  }
  return out;
}

const tag = "wallet";
const ok = { description: "Returns the offboard transaction id", schema: OffboardResultSchema };
const e400 = { description: "Bad request", schema: BadRequestErrorSchema };
const e404 = { description: "One of the VTXOs wasn't found", schema: NotFoundErrorSchema };
const e500 = { description: "Internal server error", schema: InternalServerErrorSchema };

/** barkd's three offboard routes under `/api/v1/wallet`. */
export function offboardRoutes(d: OffboardRouteDeps): RouteDefinition[] {
  const destinationOrFresh = async (address: string | null | undefined): Promise<Destination> =>
    parseDestination(address ?? (await d.freshAddress()), await d.network(), "wallet");
  return [
    {
      method: "post", path: "/api/v1/wallet/offboard/vtxos", scope: "send", operationId: "offboard_vtxos", tag, requiresWallet: true, body: OffboardVtxosRequestSchema,
      summary: "Offboard specific VTXOs", responses: { 200: ok, 400: e400, 404: e404, 500: e500 },
      handler: async ({ body }) => {
        if (body.vtxos.length === 0) throw new BadRequestError("No VTXO IDs provided");
        const to = await destinationOrFresh(body.address);
        const vtxos = await requestedVtxos(body.vtxos, d.vtxo);
        // to a given address it is a payment; to a fresh address of this wallet, the wallet's own money
        if (body.address) await spendingCap("onchain", vtxos.reduce((s, v) => s + v.amountSat, 0n), "the offboard");
        return { offboard_txid: await d.service().offboard(vtxos.map((v) => v.id), to) };
      },
    },
    {
      method: "post", path: "/api/v1/wallet/offboard/all", scope: "send", operationId: "offboard_all", tag, requiresWallet: true, body: OffboardAllRequestSchema,
      summary: "Offboard all VTXOs", responses: { 200: ok, 400: e400, 500: e500 },
      handler: async ({ body }) => {
        // the amount is known only once the offboard is built: a key with an on-chain cap cannot offboard everything to an address
        if (body.address) await spendingCap("onchain", undefined, "an offboard of every VTXO to an address");
        return { offboard_txid: await d.service().offboard("all", await destinationOrFresh(body.address)) };
      },
    },
    {
      method: "post", path: "/api/v1/wallet/send-onchain", scope: "send", operationId: "send_onchain", tag, requiresWallet: true, body: SendOnchainRequestSchema,
      summary: "Send on-chain from Ark balance", responses: { 200: ok, 400: e400, 500: e500 },
      handler: async ({ body }) => {
        const to = await parseDestination(body.destination, await d.network(), "wallet");
        await spendingCap("onchain", body.amount_sat, "the on-chain send");
        return { offboard_txid: await d.service().sendOnchain(to, body.amount_sat) };
      },
    },
  ];
}

const estimateJson = (e: OffboardEstimate) => ({
  gross_amount_sat: Number(e.grossSat), fee_sat: Number(e.feeSat), net_amount_sat: Number(e.netSat), vtxos_spent: [...e.vtxosSpent],
});

/** Runs an estimate, giving a failure barkd's context. */
async function estimating(context: string, run: () => Promise<OffboardEstimate>) {
  try {
    return estimateJson(await run());
  } catch (e) {
    throw withContext(context, e);
  }
}

const est400 = { description: "Invalid address", schema: BadRequestErrorSchema };

/** The three offboard estimates, for the fees plugin's extension point. */
export function offboardEstimators(d: OffboardRouteDeps): { offboard: BodyFeeEstimator<z.infer<typeof OffboardFeeEstimateRequestSchema>>; offboardAll: CustomFeeEstimator<{ address: string }>; sendOnchain: CustomFeeEstimator<{ amount_sat: bigint; address: string }> } {
  return {
    offboard: {
      path: "offboard", operationId: "offboard_fee", summary: "Estimate offboard fee", body: OffboardFeeEstimateRequestSchema, response: FeeEstimateResponse,
      errors: { 400: { description: "No VTXO IDs provided, or an invalid VTXO id or address", schema: BadRequestErrorSchema }, 404: e404 },
      estimate: async (body) => {
        if (body.vtxos.length === 0) throw new BadRequestError("No VTXO IDs provided");
        const to = await parseDestination(body.address, await d.network(), "estimate");
        const vtxos = await requestedVtxos(body.vtxos, d.vtxo);
        return estimating("Failed to estimate offboard fee", () => d.service().estimateOffboard(vtxos, to));
      },
    },
    offboardAll: {
      path: "offboard-all", operationId: "offboard_all_fee", summary: "Estimate offboard-all fee", query: z.object({ address: z.string() }),
      response: FeeEstimateResponse, errors: { 400: est400 },
      estimate: async (q) => {
        const to = await parseDestination(q.address, await d.network(), "estimate");
        return estimating("Failed to estimate offboard-all fee", () => d.service().estimateOffboardAll(to));
      },
    },
    sendOnchain: {
      path: "send-onchain", operationId: "send_onchain_fee", summary: "Estimate send-onchain fee", query: z.object({ amount_sat: u64String(), address: z.string() }),
      response: FeeEstimateResponse, errors: { 400: est400 },
      estimate: async (q) => {
        const to = await parseDestination(q.address, await d.network(), "estimate");
        return estimating("Failed to estimate send-onchain fee", () => d.service().estimateSendOnchain(to, q.amount_sat));
      },
    },
  };
}
