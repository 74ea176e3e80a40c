import { BadRequestError, NotFoundError, z, type RouteDefinition } from "@tender/core";
import type { DeliveryWorker } from "../webhooks/delivery-worker.js";
import { deliveryJson, webhookJson } from "../webhooks/webhook-json.js";
import type { WebhookStore } from "../webhooks/webhook-store.js";
import {
  pageLimit, CreateWebhookSchema, CreatedWebhookSchema, DeliveriesQuerySchema, DeliveryParams, DeliverySchema, WebhookIdParams, WebhookSchema, e400, e404, e500,
} from "./schemas.js";

const notFound = (what: string, id: string) => new NotFoundError(`not found [resources=${id}]: ${what} not found`, [id]);

/** Checks a webhook URL: absolute http or https. */
export function checkWebhookUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new BadRequestError("url must be an absolute http or https URL");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new BadRequestError("url must be an absolute http or https URL");
  return u.toString();
}

/** The webhook routes (tender extension). */
export function webhookRoutes(store: WebhookStore, worker: DeliveryWorker): RouteDefinition[] {
  const hook = async (id: string) => {
    const w = await store.get(id);
    if (!w) throw notFound("webhook", id);
    return w;
  };
  // the owner token only: API keys, whatever their scopes, never see or change webhooks
  const base = { tag: "webhooks", requiresWallet: true, scope: "owner" } as const;
  return [
    {
      ...base, method: "post", path: "/api/v1/webhooks", operationId: "create_webhook",
      summary: "Register a webhook; the answer shows its signing secret, once (tender extension)",
      body: CreateWebhookSchema,
      // the signing secret is kept in the webhook's row only, never as a replayable Idempotency-Key answer
      secretAnswer: true,
      responses: { 200: { description: "The webhook with its secret", schema: CreatedWebhookSchema }, 400: e400, 500: e500 },
      handler: async ({ body }) => {
        const url = checkWebhookUrl(body.url);
        if ((body.description ?? "").length > 500) throw new BadRequestError("description must be at most 500 characters");
        const w = await store.create(url, [...new Set((body.event_types ?? []) as string[])], body.description ?? "");
        return { ...webhookJson(w), secret: w.secret };
      },
    },
    {
      ...base, method: "get", path: "/api/v1/webhooks", operationId: "list_webhooks",
      summary: "List the webhooks (tender extension)",
      responses: { 200: { description: "Webhooks, oldest first", schema: z.array(WebhookSchema) }, 500: e500 },
      handler: async () => (await store.list()).map(webhookJson),
    },
    {
      ...base, method: "get", path: "/api/v1/webhooks/{id}", operationId: "get_webhook",
      summary: "One webhook (tender extension)",
      params: WebhookIdParams,
      responses: { 200: { description: "The webhook", schema: WebhookSchema }, 404: e404, 500: e500 },
      handler: async ({ params }) => webhookJson(await hook(params.id)),
    },
    {
      ...base, method: "delete", path: "/api/v1/webhooks/{id}", operationId: "delete_webhook",
      summary: "Delete a webhook and its delivery log (tender extension)",
      params: WebhookIdParams,
      responses: { 200: { description: "Deleted", schema: z.object({ deleted: z.boolean() }) }, 404: e404, 500: e500 },
      handler: async ({ params }) => {
        if (!(await store.delete(params.id))) throw notFound("webhook", params.id);
        return { deleted: true };
      },
    },
    {
      ...base, method: "post", path: "/api/v1/webhooks/{id}/enable", operationId: "enable_webhook",
      summary: "Enable a disabled webhook again; its pending deliveries resume (tender extension)",
      params: WebhookIdParams,
      responses: { 200: { description: "The webhook", schema: WebhookSchema }, 404: e404, 500: e500 },
      handler: async ({ params }) => {
        const w = await store.enable(params.id);
        if (!w) throw notFound("webhook", params.id);
        void worker.kick();
        return webhookJson(w);
      },
    },
    {
      ...base, method: "get", path: "/api/v1/webhooks/{id}/deliveries", operationId: "list_webhook_deliveries",
      summary: "A webhook's delivery log, newest first (tender extension)",
      params: WebhookIdParams,
      query: DeliveriesQuerySchema,
      responses: { 200: { description: "Deliveries", schema: z.array(DeliverySchema) }, 400: e400, 404: e404, 500: e500 },
      handler: async ({ params, query }) => {
        await hook(params.id);
        return (await store.deliveries(params.id, pageLimit(query.limit), query.status)).map(deliveryJson);
      },
    },
    {
      ...base, method: "post", path: "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver", operationId: "redeliver_webhook_delivery",
      summary: "Attempt a delivery again now, whatever its status or the webhook's (tender extension)",
      params: DeliveryParams,
      responses: {
        200: { description: "The delivery after the attempt", schema: DeliverySchema }, 404: e404,
        409: { description: "The delivery is being attempted", schema: z.object({ message: z.string() }) }, 500: e500,
      },
      handler: async ({ params }) => {
        await hook(params.id);
        const d = await store.delivery(params.id, params.delivery_id);
        if (!d) throw notFound("delivery", String(params.delivery_id));
        const after = await worker.attempt(d, true);
        if (!after) throw notFound("delivery", String(params.delivery_id));
        return deliveryJson(after);
      },
    },
  ];
}
