import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import type { ZodType } from "zod";
import "./zod.js";
import type { RouteDefinition } from "./route.js";

/** Document metadata. */
export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

/**
 * Generates the OpenAPI 3.1 document from the registered routes: one `bearer` HTTP security
 * scheme applied globally, public routes overriding it with `[{}]` (as barkd does for `/ping`).
 */
export function generateOpenApi(routes: readonly RouteDefinition[], info: OpenApiInfo): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer", bearerFormat: "AuthToken" });
  for (const r of routes) {
    if (r.undocumented) continue;
    const responses: Record<string, unknown> = {};
    for (const [status, resp] of Object.entries(r.responses)) {
      responses[status] = {
        description: resp.description,
        ...(resp.schema || resp.contentType
          ? { content: { [resp.contentType ?? "application/json"]: { schema: resp.schema ?? { type: "string" } } } }
          : {}),
      };
    }
    const publicRoute = (r.auth ?? (r.path.startsWith("/api/v1") ? "guard" : "none")) === "none";
    registry.registerPath({
      method: r.method,
      path: r.path,
      operationId: r.operationId,
      ...(r.tag ? { tags: [r.tag] } : {}),
      ...(r.summary ? { summary: r.summary } : {}),
      ...(r.description ? { description: r.description } : {}),
      ...(r.deprecated ? { deprecated: true } : {}),
      ...(publicRoute ? { security: [{}] } : {}),
      request: {
        ...(r.params ? { params: r.params as never } : {}),
        ...(r.query ? { query: r.query as never } : {}),
        ...(r.body ? { body: { required: true, content: { "application/json": { schema: r.body as ZodType } } } } : {}),
      },
      responses: responses as never,
    });
  }
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: { ...info },
    security: [{ bearer: [] }],
  });
  return doc as unknown as Record<string, unknown>;
}
