/**
 * The zod instance every plugin uses for route schemas, extended with `.openapi(...)` so schemas
 * can carry component names and examples into the OpenAPI document.
 */
import { z } from "zod";
import { extendZodWithOpenApi } from "@asteasolutions/zod-to-openapi";

extendZodWithOpenApi(z);

export { z };
/** Re-exported so that the `.openapi()` type augmentation reaches every package importing `z` from core. */
export type { ZodOpenAPIMetadata } from "@asteasolutions/zod-to-openapi";
