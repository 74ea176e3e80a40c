import {
  BadRequestError, InternalServerError, NotFoundError, compareKeys, pageQueryFields, pageRequest, queryBool, u32String, wantsPage, withContext, z,
  type PageOrder, type RouteDefinition, type WalletService,
} from "@tender/core";
import { parseOutPoint, encodeVtxo, toHex } from "@tender/ark-protocol";
import type { ArkServer } from "@tender/ark-protocol/server";
import type { ArkRail, ArkRailSource } from "../ark-rail.js";
import { arkInfoJson } from "../connection/ark-info-json.js";
import { arkAddressOf } from "../keys/ark-addresses.js";
import { nextArkAddress } from "../keys/next-ark-address.js";
import { readPinnedKeys } from "../connection/server-pins.js";
import type { MailboxSync } from "../mailbox/mailbox-sync.js";
import { importVtxos } from "../vtxos/vtxo-import.js";
import { walletVtxoInfo } from "../vtxos/vtxo-json.js";
import type { StoredVtxo, VtxoStore } from "../vtxos/vtxo-store.js";
import {
  ArkAddressResponseSchema, ArkInfoSchema, BadRequestErrorSchema, ConnectedResponseSchema, EncodedVtxoResponseSchema,
  ImportVtxoRequestSchema, InternalServerErrorSchema, MailboxSyncResponseSchema, NextRoundStartSchema, NotFoundErrorSchema,
  WalletVtxoInfoSchema,
} from "./schemas.js";

const tag = "wallet";
/** Pages of `/wallet/vtxos`: the whole list's order (oldest first, then id). */
const VTXOS_OLDEST_FIRST: PageOrder<StoredVtxo> = { list: "vtxos", keyOf: (v) => [v.createdAtMs, v.id], compare: (a, b) => compareKeys(a, b) };
const e400 = { description: "Bad request", schema: BadRequestErrorSchema };
const e404 = { description: "Not found", schema: NotFoundErrorSchema };
const e500 = { description: "Internal server error", schema: InternalServerErrorSchema };

/** What the wallet routes drive. */
export interface WalletRouteDeps {
  /** The loaded wallet's rail. */
  rail: ArkRailSource;
  vtxos: VtxoStore;
  /** The loaded wallet's Ark server connection and mailbox consumer (wallet services). */
  connection: WalletService<ArkServer>;
  mailbox: WalletService<MailboxSync>;
  /** `POST /wallet/sync`: everything this plugin syncs (errors only logged). */
  syncAll: () => Promise<void>;
}

function parseVtxoId(raw: string): string {
  try {
    parseOutPoint(raw);
    return raw;
  } catch (e) {
    throw new BadRequestError(`bad request: Invalid VTXO id: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The Ark routes under `/api/v1/wallet` (payments and the balance go through the wallet plugin's extension points). */
export function walletRoutes(d: WalletRouteDeps): RouteDefinition[] {
  // Addresses need only the server's two keys: the pinned ones let them derive while the server is down.
  const addressServerKeys = async (w: ArkRail) => (await readPinnedKeys(w.db)) ?? (await w.server.connect()).arkInfo;
  const stored = async (id: string) => {
    const v = await d.vtxos.get(parseVtxoId(id)).catch((e: unknown) => {
      throw new NotFoundError(`not found [resources=${id}]: VTXO not found: ${e instanceof Error ? e.message : String(e)}`, [id]);
    });
    if (!v) throw new NotFoundError(`not found [resources=${id}]: VTXO not found`, [id]);
    return v;
  };
  return [
    {
      method: "get", path: "/api/v1/wallet/connected", operationId: "connected", tag, requiresWallet: true,
      responses: { 200: { description: "Whether the wallet is connected to its Ark server", schema: ConnectedResponseSchema }, 500: e500 },
      handler: () => ({ connected: d.connection.current?.connected ?? false }),
    },
    {
      method: "get", path: "/api/v1/wallet/ark-info", operationId: "ark_info", tag, requiresWallet: true,
      responses: { 200: { description: "The Ark server's info", schema: ArkInfoSchema }, 404: e404 },
      handler: () => {
        const server = d.connection.current;
        const info = server?.connected ? server.session?.arkInfo : undefined;
        if (!info) throw new NotFoundError("Wallet not connected to an Ark server", ["ark server"]);
        return arkInfoJson(info);
      },
    },
    {
      method: "get", path: "/api/v1/wallet/next-round", operationId: "next_round", tag, requiresWallet: true,
      responses: { 200: { description: "The next round's start time", schema: NextRoundStartSchema }, 500: e500 },
      handler: async () => {
        try {
          const unixSecs = await (await d.connection.get()).nextRoundTime();
          return { start_time: new Date(unixSecs * 1000).toISOString().replace(/\.\d{3}Z$/, "Z") };
        } catch (e) {
          throw withContext("Failed to get next round time", e);
        }
      },
    },
    {
      method: "post", path: "/api/v1/wallet/addresses/next", scope: "receive", operationId: "address", tag, requiresWallet: true,
      responses: { 200: { description: "A new Ark address", schema: ArkAddressResponseSchema }, 500: e500 },
      handler: async () => {
        return { address: await nextArkAddress(await d.rail()) };
      },
    },
    {
      method: "get", path: "/api/v1/wallet/addresses/index/{index}", operationId: "peek_address", tag, requiresWallet: true,
      params: z.object({ index: u32String() }),
      responses: { 200: { description: "The Ark address at that index", schema: ArkAddressResponseSchema }, 500: e500 },
      handler: async ({ params }) => {
        const w = await d.rail();
        const key = await w.keys.peekVtxoKey(params.index);
        if (!key) throw new InternalServerError(`Failed to get address at index ${params.index}: VTXO key at index ${params.index} was never derived`);
        return { address: arkAddressOf(w.keys, key, await addressServerKeys(w), w.settings().network) };
      },
    },
    {
      method: "get", path: "/api/v1/wallet/vtxos", operationId: "vtxos", tag, requiresWallet: true,
      query: z.object({ all: queryBool().optional(), ...pageQueryFields }),
      responses: { 200: { description: "The wallet's VTXOs", schema: z.array(WalletVtxoInfoSchema) }, 400: e400, 500: e500 },
      handler: async ({ query, req, res }) => {
        // limit and cursor are checked before anything is read
        const page = wantsPage(query) ? pageRequest(query, VTXOS_OLDEST_FIRST) : undefined;
        const all = query.all ? await d.vtxos.listAll() : await d.vtxos.list(["spendable", "locked"]);
        return (page ? page.take(all, req, res) : all).map(walletVtxoInfo);
      },
    },
    {
      method: "get", path: "/api/v1/wallet/vtxos/{id}", operationId: "get_vtxo", tag, requiresWallet: true,
      params: z.object({ id: z.string() }),
      responses: { 200: { description: "The VTXO", schema: WalletVtxoInfoSchema }, 400: e400, 404: e404 },
      handler: async ({ params }) => walletVtxoInfo(await stored(params.id)),
    },
    {
      method: "get", path: "/api/v1/wallet/vtxos/{id}/encoded", operationId: "get_vtxo_encoded", tag, requiresWallet: true,
      params: z.object({ id: z.string() }),
      responses: { 200: { description: "The VTXO, hex-encoded", schema: EncodedVtxoResponseSchema }, 400: e400, 404: e404 },
      handler: async ({ params }) => ({ encoded: toHex(encodeVtxo((await stored(params.id)).vtxo)) }),
    },
    {
      method: "post", path: "/api/v1/wallet/import-vtxo", scope: "admin", operationId: "import_vtxo", tag, requiresWallet: true, body: ImportVtxoRequestSchema,
      responses: { 200: { description: "The imported VTXOs", schema: z.array(WalletVtxoInfoSchema) }, 400: e400, 500: e500 },
      handler: async ({ body }) => (await importVtxos(await d.rail(), body.vtxos)).map(walletVtxoInfo),
    },
    {
      method: "post", path: "/api/v1/wallet/sync", scope: "receive", operationId: "sync", tag, requiresWallet: true,
      responses: { 200: { description: "Synced" } },
      handler: async () => {
        await d.syncAll();
        return undefined;
      },
    },
    {
      method: "post", path: "/api/v1/wallet/sync/mailbox", scope: "receive", operationId: "sync_mailbox", tag, requiresWallet: true,
      responses: { 200: { description: "The mailbox checkpoint reached", schema: MailboxSyncResponseSchema }, 500: e500 },
      handler: async ({ res }) => {
        let checkpoint: bigint;
        try {
          checkpoint = await (await d.mailbox.get()).sync();
        } catch (e) {
          throw withContext("failed to sync mailbox", e);
        }
        // the checkpoint is a u64 that may exceed 2^53: written as an exact JSON integer
        res.status(200).type("application/json").send(`{"checkpoint":${checkpoint.toString()}}`);
        return undefined;
      },
    },
  ];
}
