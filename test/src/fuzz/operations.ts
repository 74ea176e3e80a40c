/**
 * The operations the fuzzer drives, read from the daemon's served OpenAPI document, each paired
 * with barkd's own description of the same method and path (test/reference/barkd-openapi.json).
 * Requests are generated from the served document; what barkd would answer is judged from
 * barkd's document, the compatibility reference.
 */
import { BARKD_OPENAPI } from "../barkd-schemas.js";

/** A JSON Schema as found in the documents (the subset OpenAPI 3.1 uses). */
export type Schema = Record<string, any>;

/** A path or query parameter. */
export interface ParamSpec {
  readonly name: string;
  readonly required: boolean;
  /** Schema in the served document (generation). */
  readonly served: Schema;
  /** Schema in barkd's document (judgement); the served one when barkd's has none. */
  readonly barkd: Schema;
}

/** Who checks the bearer token: before anything else (`guard`), inside the handler after extraction (`handler`), nobody (`none`). */
export type AuthMode = "guard" | "handler" | "none";

export interface FuzzOperation {
  readonly method: "GET" | "POST" | "DELETE" | "PUT" | "PATCH";
  /** Path template, e.g. `/api/v1/wallet/vtxos/{id}`. */
  readonly path: string;
  readonly operationId: string;
  readonly auth: AuthMode;
  readonly pathParams: readonly ParamSpec[];
  readonly queryParams: readonly ParamSpec[];
  /** The JSON body, when the operation takes one (a body is then required). */
  readonly body?: { readonly served: Schema; readonly barkd: Schema };
  /** Status codes barkd's document or the served one list for the operation. */
  readonly documented: ReadonlySet<number>;
  /** `true` for a route the served document leaves out (barkd's undocumented aliases). */
  readonly undocumented: boolean;
  /** `true` for tender's own operations (barkd has none at that method and path). */
  readonly extension?: boolean;
}

/** A resolver of `$ref`s within one document. */
export class SchemaDoc {
  constructor(private readonly doc: Schema) {}

  /** Follows `$ref`s until a schema without one. */
  resolve(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    for (let i = 0; i < 32 && typeof s.$ref === "string"; i++) {
      const ref: string = s.$ref;
      if (!ref.startsWith("#/")) throw new Error(`unsupported $ref ${ref}`);
      s = ref.slice(2).split("/").reduce((o: Schema, k) => o?.[k.replace(/~1/g, "/").replace(/~0/g, "~")], this.doc) ?? {};
    }
    return s;
  }
}

export const BARKD_DOC = new SchemaDoc(BARKD_OPENAPI as unknown as Schema);

/**
 * The routes barkd's token check runs in the handler, after the path, query and body were
 * extracted (so a malformed query answers 400 before a missing token answers 401).
 */
const HANDLER_AUTH = new Set(["GET /api/v1/notifications/wait", "GET /api/v1/notifications/ws/ticket"]);

/** Routes barkd serves that its document leaves out; the fuzzer drives them like documented ones. */
export const UNDOCUMENTED_ALIASES: readonly { method: "POST"; path: string; operationId: string; like: string }[] = [
  { method: "POST", path: "/api/v1/wallet", operationId: "create_wallet_root_alias", like: "POST /api/v1/wallet/create" },
];

/** Other routed paths (not fuzzed): an unknown method on them answers 405, not the 404 fallback. */
export const OTHER_ROUTES: readonly { method: string; path: string }[] = [
  { method: "GET", path: "/api/v1/notifications/ws" },
  { method: "GET", path: "/api-docs/openapi.json" },
];

const METHODS = ["get", "post", "delete", "put", "patch"] as const;

function params(served: Schema[], barkd: Schema[], where: "path" | "query", servedDoc: SchemaDoc): ParamSpec[] {
  return served
    .map((p) => servedDoc.resolve(p))
    .filter((p) => p.in === where)
    .map((p) => {
      const b = barkd.map((x) => BARKD_DOC.resolve(x)).find((x) => x.in === where && x.name === p.name);
      return {
        name: p.name as string,
        required: p.required === true || where === "path",
        served: servedDoc.resolve(p.schema),
        barkd: b ? BARKD_DOC.resolve(b.schema) : servedDoc.resolve(p.schema),
      };
    });
}

/** Every operation of the served document (plus the undocumented aliases), paired with barkd's. */
export function operationsOf(served: Schema): { operations: FuzzOperation[]; servedDoc: SchemaDoc } {
  const servedDoc = new SchemaDoc(served);
  const barkdPaths = (BARKD_OPENAPI as unknown as Schema).paths as Schema;
  const out: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(served.paths as Schema)) {
    for (const m of METHODS) {
      const op = (item as Schema)[m] as Schema | undefined;
      if (!op) continue;
      const b = barkdPaths[path]?.[m] as Schema | undefined;
      const method = m.toUpperCase() as FuzzOperation["method"];
      const documented = new Set<number>([
        ...Object.keys(op.responses ?? {}).map(Number),
        ...Object.keys(b?.responses ?? {}).map(Number),
      ]);
      const publicRoute = Array.isArray(op.security) && op.security.every((s: Schema) => Object.keys(s).length === 0);
      const key = `${method} ${path}`;
      const servedBody = op.requestBody ? servedDoc.resolve(op.requestBody) : undefined;
      const barkdBody = b?.requestBody ? BARKD_DOC.resolve(b.requestBody) : undefined;
      const firstSchema = (rb: Schema | undefined, doc: SchemaDoc) => rb && doc.resolve((Object.values(rb.content ?? {})[0] as Schema | undefined)?.schema ?? {});
      out.push({
        method, path, operationId: op.operationId ?? key,
        auth: publicRoute ? "none" : HANDLER_AUTH.has(key) ? "handler" : "guard",
        pathParams: params(op.parameters ?? [], b?.parameters ?? [], "path", servedDoc),
        queryParams: params(op.parameters ?? [], b?.parameters ?? [], "query", servedDoc),
        ...(servedBody ? { body: { served: firstSchema(servedBody, servedDoc)!, barkd: firstSchema(barkdBody, BARKD_DOC) ?? firstSchema(servedBody, servedDoc)! } } : {}),
        documented,
        undocumented: false,
        ...(b ? {} : { extension: true }),
      });
    }
  }
  for (const alias of UNDOCUMENTED_ALIASES) {
    const like = out.find((o) => `${o.method} ${o.path}` === alias.like);
    if (like) out.push({ ...like, method: alias.method, path: alias.path, operationId: alias.operationId, undocumented: true });
  }
  return { operations: out, servedDoc };
}
