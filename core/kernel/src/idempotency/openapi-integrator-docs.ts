import { IDEMPOTENCY_KEY_HEADER, MAX_KEY_LENGTH, MOVEMENT_ID_HEADER, PAYMENT_OPERATIONS, REPLAYED_HEADER } from "./idempotency-layer.js";
import { LINK_HEADER, NEXT_CURSOR_HEADER } from "../http/pagination.js";

type Json = Record<string, any>;

const MUTATING = ["post", "put", "patch", "delete"];
const message = { type: "object", required: ["message"], properties: { message: { type: "string" } } };

/** The schema a `$ref` points to inside `doc`, or the schema itself. */
function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return schema;
  return ref.slice(2).split("/").reduce<Json | undefined>((node, part) => node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

/**
 * Adds what tender offers integrators beyond barkd to the generated document, leaving barkd's
 * operations, parameters and schemas as they are otherwise: the optional `Idempotency-Key`
 * header on every mutating operation (with its 409 and 422 answers and the replay header), the
 * movement ids of mutating answers (`Tender-Movement-Id`; `movement_id` in payment answers), and the next-page
 * headers of cursor-paginated lists.
 */
export function documentIntegratorFeatures(doc: Json): Json {
  for (const ops of Object.values((doc.paths ?? {}) as Json)) {
    for (const [method, op] of Object.entries(ops as Json)) {
      if (!op || typeof op !== "object") continue;
      const responses = (op.responses ??= {}) as Json;
      if (MUTATING.includes(method)) documentIdempotency(doc, op, responses);
      const params = (op.parameters ?? []) as Json[];
      if (method === "get" && params.some((p) => p.in === "query" && p.name === "cursor") && responses["200"]) {
        responses["200"].headers = {
          ...(responses["200"].headers ?? {}),
          [NEXT_CURSOR_HEADER]: { description: "The cursor of the next page; absent on the last page (sent only when `limit` or `cursor` is given).", schema: { type: "string" } },
          [LINK_HEADER]: { description: "RFC 8288 link to the next page (`rel=\"next\"`), when there is one.", schema: { type: "string" } },
        };
      }
    }
  }
  return doc;
}

function documentIdempotency(doc: Json, op: Json, responses: Json): void {
  op.parameters = [
    ...((op.parameters ?? []) as Json[]),
    {
      name: IDEMPOTENCY_KEY_HEADER, in: "header", required: false,
      description: "tender: makes the request safe to retry. The first answer is stored with the key (for 24 hours at least) and " +
        "replayed to a retry with the same method, path and body; another request under the same key is answered 422, a retry " +
        "while the first request still runs 409. Scoped to the wallet and the credential used.",
      schema: { type: "string", minLength: 1, maxLength: MAX_KEY_LENGTH },
    },
  ];
  const ok = responses["200"];
  if (ok) {
    ok.headers = {
      ...(ok.headers ?? {}),
      [REPLAYED_HEADER]: { description: "tender: `true` when this answer is the stored answer of an earlier request with the same Idempotency-Key.", schema: { type: "string", enum: ["true"] } },
      [MOVEMENT_ID_HEADER]: { description: "tender: the ids of the movements this request created (comma-separated), when it created any.", schema: { type: "string" } },
    };
    const schema = PAYMENT_OPERATIONS.has(op.operationId) ? resolve(doc, ok.content?.["application/json"]?.schema) : undefined;
    if (schema && schema.type === "object" && schema.properties && !schema.properties.movement_id) {
      schema.properties.movement_id = { type: "integer", format: "int32", description: "tender: the id of the movement this request created, when it created one (as in `Tender-Movement-Id`)." };
    }
  }
  responses["409"] ??= {
    description: "tender: a request with this Idempotency-Key is still running, or the payment it started is still being resolved",
    content: { "application/json": { schema: message } },
  };
  const reuse = "tender: this Idempotency-Key was already used for another request (method, path or body differ)";
  if (responses["422"]) responses["422"].description = `${responses["422"].description}; or ${reuse}`;
  else responses["422"] = { description: reuse, content: { "application/json": { schema: message } } };
}
