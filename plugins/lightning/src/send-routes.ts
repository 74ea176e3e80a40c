import { BadRequestError, satAmount, z, type RouteDefinition } from "@tender/core";
import { fromHex, toHex } from "@tender/ark-protocol";
import { classifyDestination, decodeBolt11, SEND_ERRORS, type SendDestinations } from "@tender/plugin-wallet";
import type { LightningSender } from "./lightning-sender.js";

const MessageError = z.object({ message: z.string() });
/** barkd's `LightningPayRequest`. */
export const LightningPayRequest = z.object({
  destination: z.string(),
  amount_sat: satAmount().nullable().optional(),
  comment: z.string().nullable().optional(),
});
/** barkd's `LightningPayResponse`. */
export const LightningPayResponse = z.object({ message: z.string(), payment_hash: z.string().nullable().optional() });
/** barkd's `LightningSendInfo`. */
export const LightningSendInfoSchema = z.object({
  payment_hash: z.string(),
  state: z.string(),
  invoice: z.string().nullable(),
  preimage: z.string().nullable(),
});

export const NOT_A_LIGHTNING_DESTINATION = "argument is not a valid BOLT-11 invoice, BOLT-12 offer, Lightning address or LNURL";
export const NOT_A_SEND_IDENTIFIER = "identifier is not a valid payment hash or invoice";
const LIGHTNING_KINDS = new Set(["bolt11", "bolt12", "lightning-address", "lnurl"]);
/** The request rules of the Lightning kinds: these refusals stand as they are. */
const LIGHTNING_RULES = new Set<string>([SEND_ERRORS.bolt11Comment, SEND_ERRORS.bolt12Comment, SEND_ERRORS.lnAddressAmount, SEND_ERRORS.lnurlAmount]);

/** The payment hash behind a `sends/{identifier}`: 64 hex, else a BOLT11 invoice's. */
export function sendIdentifierHash(identifier: string): string {
  if (/^[0-9a-fA-F]{64}$/.test(identifier)) return toHex(fromHex(identifier.toLowerCase()));
  try {
    return toHex(decodeBolt11(identifier.replace(/^lightning:/i, "")).paymentHash);
  } catch {
    throw new BadRequestError(NOT_A_SEND_IDENTIFIER);
  }
}

/** barkd's `POST /api/v1/lightning/pay` and `GET /api/v1/lightning/sends/{identifier}`. */
export function sendRoutes(sender: LightningSender, send: SendDestinations, network: () => Promise<string>): RouteDefinition[] {
  return [
    {
      method: "post", path: "/api/v1/lightning/pay", scope: "send", operationId: "pay", tag: "lightning", requiresWallet: true, body: LightningPayRequest,
      summary: "Pay a Lightning invoice, offer, Lightning address or LNURL",
      responses: {
        200: { description: "Payment initiated", schema: LightningPayResponse },
        400: { description: "Bad destination", schema: MessageError },
        500: { description: "Payment refused or failed", schema: MessageError },
      },
      handler: async ({ body }) => {
        let dest;
        try {
          dest = classifyDestination(body.destination, body.amount_sat, body.comment, await network());
        } catch (e) {
          if (e instanceof Error && LIGHTNING_RULES.has(e.message)) throw e;
          throw new BadRequestError(NOT_A_LIGHTNING_DESTINATION);
        }
        if (!LIGHTNING_KINDS.has(dest.kind)) throw new BadRequestError(NOT_A_LIGHTNING_DESTINATION);
        const outcome = await send.pay(dest);
        return { message: "Payment initiated successfully", ...(outcome.paymentHash ? { payment_hash: outcome.paymentHash } : {}) };
      },
    },
    {
      method: "get", path: "/api/v1/lightning/sends/{identifier}", operationId: "get_send_status", tag: "lightning", requiresWallet: true,
      params: z.object({ identifier: z.string() }),
      summary: "Status of a Lightning send",
      responses: {
        200: { description: "Returns the send's state", schema: LightningSendInfoSchema },
        400: { description: "Bad identifier", schema: MessageError },
        500: { description: "Internal error", schema: MessageError },
      },
      handler: async ({ params }) => sender.status(sendIdentifierHash(params.identifier)),
    },
  ];
}
