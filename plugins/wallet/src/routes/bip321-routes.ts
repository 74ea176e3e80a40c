import { queryBool, satAmount, z, type RouteDefinition, type WalletSession } from "@tender/core";
import type { Network } from "../config/wallet-config.js";
import type { Bip321Contributors } from "../bip321/bip321-contributors.js";
import { buildBip321 } from "../bip321/bip321-builder.js";
import { QR_FORMATS, qrDataUri } from "../bip321/bip321-qr.js";
import { BadRequestErrorSchema, InternalServerErrorSchema } from "./schemas.js";

/** barkd's `Bip321UriRequest` (every field optional; the body itself is required). */
export const Bip321UriRequestSchema = z.object({
  amount_sat: satAmount().nullish(),
  label: z.string().nullish(),
  message: z.string().nullish(),
  onchain: z.boolean().nullish(),
}).openapi("Bip321UriRequest");

/** barkd's `Bip321UriResponse` (absent destinations omitted). */
export const Bip321UriResponseSchema = z.object({
  bip321: z.string(), ark: z.string().nullish(), bolt11: z.string().nullish(), onchain: z.string().nullish(),
}).openapi("Bip321UriResponse");

/** tender's QR answer: barkd's response plus the QR image of `bip321` as a data URI. */
export const Bip321QrResponseSchema = z.object({
  bip321: z.string(), ark: z.string().optional(), bolt11: z.string().optional(), onchain: z.string().optional(),
  qr: z.string().openapi({ description: "QR image of `bip321`: `data:image/png;base64,…` or `data:image/svg+xml;base64,…`" }),
}).openapi("Bip321QrResponse");

const e400 = { description: "Requested an upper-case URI that carries case-sensitive data", schema: BadRequestErrorSchema };
const e500 = { description: "Internal server error", schema: InternalServerErrorSchema };

type Body = z.infer<typeof Bip321UriRequestSchema>;
const ask = (body: Body, uppercase: boolean | undefined) => ({
  ...(body.amount_sat != null ? { amountSat: body.amount_sat } : {}),
  ...(body.onchain != null ? { onchain: body.onchain } : {}),
  ...(body.label != null ? { label: body.label } : {}),
  ...(body.message != null ? { message: body.message } : {}),
  ...(uppercase !== undefined ? { uppercase } : {}),
});

/**
 * `POST /api/v1/wallet/bip321` as barkd, and tender's `POST /api/v1/wallet/bip321/qr` (same query
 * and body, plus `format=png|svg`): the same URI with its QR image, so a point-of-sale page shows
 * it without a QR library of its own.
 */
export function bip321Routes(contributors: Bip321Contributors, session: WalletSession): RouteDefinition[] {
  const network = () => (session.current?.network ?? "regtest") as Network;
  return [
    {
      method: "post", path: "/api/v1/wallet/bip321", scope: "receive", operationId: "bip321_uri", tag: "wallet", requiresWallet: true,
      summary: "Build a BIP 321 payment URI",
      query: z.object({ uppercase: queryBool().optional() }), body: Bip321UriRequestSchema,
      responses: { 200: { description: "Returns the BIP 321 URI and its destinations", schema: Bip321UriResponseSchema }, 400: e400, 500: e500 },
      handler: async ({ query, body }) => buildBip321(contributors, network(), ask(body, query.uppercase)),
    },
    {
      method: "post", path: "/api/v1/wallet/bip321/qr", scope: "receive", operationId: "bip321_qr", tag: "wallet", requiresWallet: true,
      // a tender extension, documented in the served OpenAPI document (barkd has no such operation)
      summary: "Build a BIP 321 payment URI with its QR image (tender extension)",
      description:
        "tender's extension of `POST /api/v1/wallet/bip321`: the same query (`uppercase`) and body, the same URI and destinations, " +
        "plus `qr`, the QR image of the URI as a data URI (`format=png`, the default, or `format=svg`), so a point-of-sale page can " +
        "show it without a QR library of its own. An upper-cased URI is encoded in the QR alphanumeric mode (a smaller symbol). " +
        "The same 400 and 500 answers as `bip321`; an unknown `format` is a 400.",
      query: z.object({
        uppercase: queryBool().optional(),
        format: z.enum(QR_FORMATS).optional().openapi({ description: "Image format of `qr`: `png` (default) or `svg`" }),
      }),
      body: Bip321UriRequestSchema,
      responses: { 200: { description: "The BIP 321 URI, its destinations and its QR image", schema: Bip321QrResponseSchema }, 400: e400, 500: e500 },
      handler: async ({ query, body }) => {
        const answer = await buildBip321(contributors, network(), ask(body, query.uppercase));
        return { ...answer, qr: await qrDataUri(answer.bip321, query.format ?? "png") };
      },
    },
  ];
}
