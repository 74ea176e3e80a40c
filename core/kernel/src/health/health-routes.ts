import type { RouteDefinition } from "../http/route.js";
import { z } from "../http/zod.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Readiness } from "./readiness.js";

const HealthSchema = z.object({ status: z.literal("ok") }).openapi("Health");
const CheckSchema = z.object({ ok: z.boolean(), detail: z.string().optional() }).openapi("ReadinessCheck");
const ReadySchema = z.object({
  status: z.enum(["ready", "not_ready"]),
  checks: z.record(z.string(), CheckSchema),
}).openapi("Readiness");

/**
 * The supervisor's routes (tender extension): `/healthz` and `/readyz` answer without
 * authentication and say nothing about the wallet (no address, balance or token); `/metrics` is
 * the Prometheus exposition, behind the owner token or a `read` key unless `metricsPublic` is set.
 */
export function healthRoutes(readiness: Readiness, metrics: Metrics, metricsPublic: boolean): RouteDefinition[] {
  return [
    {
      method: "get", path: "/healthz", operationId: "healthz", tag: "health", auth: "none",
      summary: "Liveness: the process answers (tender extension)",
      responses: { 200: { description: "The process is alive", schema: HealthSchema } },
      handler: () => ({ status: "ok" }),
    },
    {
      method: "get", path: "/readyz", operationId: "readyz", tag: "health", auth: "none",
      summary: "Readiness: database, chain source, Ark server, wallet unlocked (tender extension)",
      description: "503 when any check fails; each check says `ok` and, for a failure, a short reason.",
      responses: {
        200: { description: "Every check passed", schema: ReadySchema },
        503: { description: "Some check failed", schema: ReadySchema },
      },
      handler: async ({ res }) => {
        const r = await readiness.report();
        res.status(r.ready ? 200 : 503).json({ status: r.ready ? "ready" : "not_ready", checks: r.checks });
      },
    },
    {
      method: "get", path: "/metrics", operationId: "metrics", tag: "health", auth: metricsPublic ? "none" : "guard", scope: "read",
      summary: "Prometheus metrics (tender extension)",
      description: "Needs the owner token or an API key with the `read` scope, unless the daemon runs with `--metrics-public`.",
      responses: { 200: { description: "Prometheus text exposition format 0.0.4", contentType: "text/plain" } },
      handler: async ({ res }) => {
        const { contentType, text } = await metrics.exposition();
        res.status(200).type(contentType).send(text);
      },
    },
  ];
}
