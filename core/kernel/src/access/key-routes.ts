import { BadRequestError, NotFoundError } from "../http/errors.js";
import { satAmount } from "../http/extract.js";
import type { RouteDefinition } from "../http/route.js";
import { z } from "../http/zod.js";
import type { EventBus } from "../events/event-bus.js";
import { API_SCOPES, ApiKeyRevoked, SPEND_RAILS, type ApiKey, type SpendingCaps } from "./api-key.js";
import type { AccessControl } from "./access-control.js";
import { newApiKeySecret } from "./api-key-secret.js";
import type { ApiKeyStore } from "./api-key-store.js";
import type { SpendingCapService } from "./spending-caps.js";

const message = z.object({ message: z.string() });
const e400 = { description: "Bad request", schema: message };
const e404 = { description: "No such key", schema: z.object({ resources: z.array(z.string()), message: z.string() }) };
const e403 = { description: "The credential is not the owner token", schema: message };
const tag = "api-keys";

const RailCapSchema = z.object({
  per_payment_sat: satAmount().optional().openapi({ description: "Largest single payment, sats" }),
  per_day_sat: satAmount().optional().openapi({ description: "Most spent over any 24 hours, sats" }),
}).strict().openapi("RailCap");

const CapsSchema = z.object(Object.fromEntries(SPEND_RAILS.map((r) => [r, RailCapSchema.optional()])) as Record<(typeof SPEND_RAILS)[number], z.ZodOptional<typeof RailCapSchema>>)
  .strict()
  .openapi("SpendingCaps", { description: "Caps by rail: `ark` (Ark addresses), `lightning` (invoices, offers, Lightning addresses, LNURL), `onchain` (Bitcoin addresses, paid on chain or by offboard). A rail without a cap is unlimited for a `send` key." });

const CreateKeySchema = z.object({
  name: z.string().max(255).optional(),
  scopes: z.array(z.enum(API_SCOPES)).min(1),
  expires_at: z.string().optional().openapi({ description: "RFC 3339 date-time after which the key is refused", format: "date-time" }),
  caps: CapsSchema.optional(),
}).strict().openapi("CreateApiKeyRequest");

const capsOut = z.record(z.string(), z.object({ per_payment_sat: z.number().int().optional(), per_day_sat: z.number().int().optional() }));
const KeySchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  scopes: z.array(z.enum(API_SCOPES)),
  caps: capsOut,
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  spent_last_24h_sat: z.object({ ark: z.number().int(), lightning: z.number().int(), onchain: z.number().int() }),
}).openapi("ApiKey");
const CreatedKeySchema = KeySchema.extend({
  secret: z.string().openapi({ description: "The bearer token of the key: shown only in this answer, never stored" }),
}).openapi("CreatedApiKey");

const AuditEntrySchema = z.object({
  id: z.number().int(),
  key_id: z.string().nullable().openapi({ description: "The API key's id; null for the owner token" }),
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  at: z.string(),
}).openapi("ApiAuditEntry");
const AuditPageSchema = z.object({
  entries: z.array(AuditEntrySchema),
  next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next (older) page; null on the last page" }),
}).openapi("ApiAuditPage");

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

function capsJson(caps: SpendingCaps): z.infer<typeof capsOut> {
  const out: z.infer<typeof capsOut> = {};
  for (const rail of SPEND_RAILS) {
    const c = caps[rail];
    if (!c) continue;
    out[rail] = {
      ...(c.perPaymentSat !== undefined ? { per_payment_sat: Number(c.perPaymentSat) } : {}),
      ...(c.perDaySat !== undefined ? { per_day_sat: Number(c.perDaySat) } : {}),
    };
  }
  return out;
}

/** The routes managing API keys and reading the audit log: the owner token only. */
export function apiKeyRoutes(store: ApiKeyStore, access: AccessControl, caps: SpendingCapService, events: EventBus, now: () => number = Date.now): RouteDefinition[] {
  const keyJson = async (k: ApiKey) => {
    const spent = await caps.spentLastDay(k.id);
    return {
      id: k.id, name: k.name ?? null, scopes: k.scopes, caps: capsJson(k.caps), created_at: new Date(k.createdAt).toISOString(),
      expires_at: iso(k.expiresAt), revoked_at: iso(k.revokedAt),
      spent_last_24h_sat: { ark: Number(spent.ark), lightning: Number(spent.lightning), onchain: Number(spent.onchain) },
    };
  };
  return [
    {
      method: "post", path: "/api/v1/keys", operationId: "create_api_key", tag, scope: "owner", requiresWallet: true, body: CreateKeySchema,
      // the answer holds the key's secret, which must never be stored (not even as an Idempotency-Key answer)
      secretAnswer: true,
      summary: "Create a scoped API key (tender)",
      description: "Creates a key with the given scopes, optional spending caps and expiry. The answer carries the key's secret, shown only once and never stored: an Idempotency-Key is ignored here (a retry makes another key). Owner token only.",
      responses: { 200: { description: "The key and its secret", schema: CreatedKeySchema }, 400: e400, 403: e403 },
      handler: async ({ body }) => {
        let expiresAt: number | undefined;
        if (body.expires_at !== undefined) {
          expiresAt = Date.parse(body.expires_at);
          if (!/^\d{4}-\d{2}-\d{2}T/.test(body.expires_at) || Number.isNaN(expiresAt)) throw new BadRequestError("expires_at must be an RFC 3339 date-time");
          if (expiresAt <= now()) throw new BadRequestError("expires_at is in the past");
        }
        const keyCaps: SpendingCaps = {};
        for (const rail of SPEND_RAILS) {
          const c = body.caps?.[rail];
          if (!c) continue;
          keyCaps[rail] = { ...(c.per_payment_sat !== undefined ? { perPaymentSat: c.per_payment_sat } : {}), ...(c.per_day_sat !== undefined ? { perDaySat: c.per_day_sat } : {}) };
        }
        const secret = newApiKeySecret();
        const key: ApiKey = {
          id: secret.id, name: body.name, scopes: [...new Set(body.scopes as ApiKey["scopes"])], caps: keyCaps, createdAt: now(), expiresAt, revokedAt: undefined, secretHash: secret.secretHash,
        };
        await store.insert(key);
        return { ...(await keyJson(key)), secret: secret.bearer };
      },
    },
    {
      method: "get", path: "/api/v1/keys", operationId: "list_api_keys", tag, scope: "owner", requiresWallet: true,
      summary: "List API keys (tender)", description: "Every key, revoked and expired ones included, without secrets. Owner token only.",
      responses: { 200: { description: "The keys", schema: z.array(KeySchema) }, 403: e403 },
      handler: async () => Promise.all((await store.list()).map(keyJson)),
    },
    {
      method: "get", path: "/api/v1/keys/audit", operationId: "list_api_audit", tag, scope: "owner", requiresWallet: true,
      summary: "Read the API audit log (tender)",
      description: "Requests made with API keys (refused ones too) and mutating requests of the owner token, newest first. Owner token only.",
      query: z.object({
        limit: z.string().optional().openapi({ description: "Page size, 1 to 1000 (default 100)" }),
        cursor: z.string().optional().openapi({ description: "The `next_cursor` of the previous page" }),
        key_id: z.string().optional().openapi({ description: "Only this key's requests (`owner` for the owner token's)" }),
      }),
      responses: { 200: { description: "One page of the log", schema: AuditPageSchema }, 400: e400, 403: e403 },
      handler: async ({ query }) => {
        const limit = query.limit === undefined ? 100 : /^[0-9]{1,4}$/.test(query.limit) ? Number(query.limit) : NaN;
        if (!(limit >= 1 && limit <= 1000)) throw new BadRequestError("invalid limit: must be an integer from 1 to 1000");
        let before: number | undefined;
        if (query.cursor !== undefined) {
          if (!/^[1-9][0-9]{0,14}$/.test(query.cursor)) throw new BadRequestError("invalid cursor: pass the next_cursor of a previous page unchanged");
          before = Number(query.cursor);
        }
        await access.flushAudit();
        const rows = await store.auditPage(limit + 1, before, query.key_id);
        const page = rows.slice(0, limit);
        return {
          entries: page.map((e) => ({ id: e.id, key_id: e.keyId ?? null, method: e.method, path: e.path, status: e.status, at: new Date(e.at).toISOString() })),
          next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null,
        };
      },
    },
    {
      method: "delete", path: "/api/v1/keys/{id}", operationId: "revoke_api_key", tag, scope: "owner", requiresWallet: true,
      params: z.object({ id: z.string() }),
      summary: "Revoke an API key (tender)", description: "The key is refused from now on (401 `API key revoked`); it stays listed. Owner token only.",
      responses: { 200: { description: "The revoked key", schema: KeySchema }, 403: e403, 404: e404 },
      handler: async ({ params }) => {
        const k = await store.revoke(params.id, now());
        if (!k) throw new NotFoundError(`not found [resources=${params.id}]: API key not found`, [params.id]);
        await events.emitAndWait(ApiKeyRevoked, { keyId: k.id });
        return keyJson(k);
      },
    },
  ];
}
