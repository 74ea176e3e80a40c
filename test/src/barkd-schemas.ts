import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { VECTORS_DIR } from "./vectors.js";

/** barkd's own OpenAPI document (test/reference/barkd-openapi.json, from ark-bitcoin/bark 0.6.0). */
export interface OpenApiDoc {
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  components: { schemas: Record<string, unknown> };
}

export const BARKD_OPENAPI: OpenApiDoc = JSON.parse(
  readFileSync(join(VECTORS_DIR, "..", "reference", "barkd-openapi.json"), "utf8"),
) as OpenApiDoc;

/**
 * Where barkd's published document and barkd's behaviour disagree, compatibility means the
 * behaviour (what barkd's handlers and `bark-json` models really do). These patches make the
 * schemas describe what barkd really sends.
 */
function applyDocumentedBehaviour(doc: OpenApiDoc): void {
  const schemas = doc.components.schemas as Record<string, { properties?: Record<string, { type?: unknown }>; required?: string[] }>;
  // "ArkInfo.max_vtxo_amount: always present, null when the server sets no limit"
  const maxVtxo = schemas.ArkInfo?.properties?.max_vtxo_amount;
  if (maxVtxo) maxVtxo.type = ["integer", "null"];
}
applyDocumentedBehaviour(BARKD_OPENAPI);

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(BARKD_OPENAPI, "barkd");

const templates = Object.keys(BARKD_OPENAPI.paths).map((t) => ({
  template: t,
  re: new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`),
}));

/** The barkd path template a concrete path belongs to (static templates first). */
export function barkdTemplate(path: string): string | undefined {
  const exact = templates.find((t) => t.template === path);
  return exact?.template ?? templates.find((t) => t.re.test(path))?.template;
}

const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
const cache = new Map<string, ValidateFunction | null>();

/** How many responses were checked against barkd's schemas so far (tests assert it grows). */
export const schemaChecks = { count: 0 };

/**
 * Validates a JSON response body against barkd's schema for that operation and status. Returns
 * `false` when barkd documents no JSON schema for it; throws with ajv's errors on a mismatch.
 */
export function checkAgainstBarkd(method: string, path: string, status: number, body: unknown): boolean {
  const template = barkdTemplate(path.split("?")[0]!);
  if (!template) return false;
  const key = `${method} ${template} ${status}`;
  let validate = cache.get(key);
  if (validate === undefined) {
    const op = BARKD_OPENAPI.paths[template]?.[method.toLowerCase()];
    const content = op?.responses?.[String(status)]?.content;
    const mt = content?.["application/json"] ? "application/json" : undefined;
    validate = mt
      ? ajv.compile({ $ref: `barkd#/paths/${pointer(template)}/${method.toLowerCase()}/responses/${status}/content/${pointer(mt)}/schema` })
      : null;
    cache.set(key, validate);
  }
  if (!validate) return false;
  if (!validate(body)) {
    throw new Error(`response of ${key} does not match barkd's schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
  }
  schemaChecks.count++;
  return true;
}

/** Validates a value against one of barkd's component schemas (e.g. websocket frames: `WalletNotification`). */
export function checkAgainstBarkdSchema(component: string, value: unknown): void {
  const key = `component ${component}`;
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `barkd#/components/schemas/${component}` });
    cache.set(key, validate);
  }
  if (!validate(value)) throw new Error(`value does not match barkd's ${component}: ${ajv.errorsText(validate.errors)}`);
  schemaChecks.count++;
}
