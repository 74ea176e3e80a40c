import { BadRequestError, satAmount, z, type RouteDefinition } from "@tender/core";
import { toHex } from "@tender/ark-protocol";
import { decodeBolt11 } from "@tender/plugin-wallet";
import type { LightningReceiver } from "./lightning-receiver.js";
import { MAX_EXPIRY_SECS } from "./receive-action.js";

const MessageError = z.object({ message: z.string() });
/**
 * tender's `expiry_secs` extension of both invoice requests (barkd clients never send it). Taken
 * as any JSON value and checked by the handler, so a wrong value is a 400 with a clear text;
 * documented as the integer it must be.
 */
const ExpirySecs = z.unknown().optional().openapi({
  type: ["integer", "null"], minimum: 1, maximum: MAX_EXPIRY_SECS,
  description: "tender extension (not in barkd): seconds after which the wallet stops taking payment for the invoice, "
    + "at most the Ark server's invoice expiry (above it, or below 1: 400 and nothing is created). The protocol cannot "
    + "pass it to the server, so the BOLT11 invoice still carries the server's expiry; the wallet cancels the hold "
    + "invoice and drops the receive a minute after this expiry if it is unpaid. Absent: the server's expiry, as barkd.",
});
/** barkd's `LightningInvoiceRequest`, plus the `expiry_secs` extension. */
export const LightningInvoiceRequest = z.object({
  amount_sat: satAmount(),
  description: z.string().nullable().optional(),
  token: z.string().nullable().optional(),
  expiry_secs: ExpirySecs,
});
/** barkd's `LightningInvoiceForAddressRequest`, plus the `expiry_secs` extension. */
export const LightningInvoiceForAddressRequest = z.object({
  amount_sat: satAmount(),
  address: z.string(),
  description: z.string().nullable().optional(),
  expiry_secs: ExpirySecs,
});
/** barkd's `InvoiceInfo`. */
export const InvoiceInfo = z.object({ invoice: z.string() });
/** barkd's `LightningReceiveInfo`. */
export const LightningReceiveInfoSchema = z.object({
  payment_hash: z.string(),
  state: z.string(),
  invoice: z.string(),
  payment_preimage: z.string().nullable(),
  amount_sat: z.number().int().nonnegative(),
  htlc_vtxo_ids: z.array(z.string()),
  settled_at: z.string().nullable(),
  preimage_revealed_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  htlc_vtxos: z.array(z.unknown()),
});

export const NOT_A_RECEIVE_IDENTIFIER = "identifier is not a valid payment hash, invoice or preimage";
export const NOT_A_CANCEL_IDENTIFIER = "identifier is not a valid payment hash or invoice";

function invoiceHash(identifier: string): string | undefined {
  try {
    return toHex(decodeBolt11(identifier.replace(/^lightning:/i, "")).paymentHash);
  } catch {
    return undefined;
  }
}

/**
 * The payment hash behind a `receives/{identifier}`: a 64-hex payment hash, else a BOLT11
 * invoice's. barkd also tries a preimage last, but a preimage is 64 hex too and always reads as
 * a payment hash first, so that form never applies; only the refusal text (`preimages`) tells
 * the status route from the cancel route.
 */
export function receiveIdentifierHash(identifier: string, preimages: boolean): string {
  if (/^[0-9a-fA-F]{64}$/.test(identifier)) return identifier.toLowerCase();
  const fromInvoice = invoiceHash(identifier);
  if (fromInvoice !== undefined) return fromInvoice;
  throw new BadRequestError(preimages ? NOT_A_RECEIVE_IDENTIFIER : NOT_A_CANCEL_IDENTIFIER);
}

/** barkd's Lightning receive routes under `/api/v1/lightning/receives`. */
export function receiveRoutes(receiver: LightningReceiver): RouteDefinition[] {
  const receiveErrors = { 500: { description: "Internal error", schema: MessageError } };
  return [
    {
      method: "post", path: "/api/v1/lightning/receives/invoice", scope: "receive", operationId: "generate_invoice", tag: "lightning", requiresWallet: true,
      body: LightningInvoiceRequest, summary: "Create a BOLT11 invoice",
      responses: {
        200: { description: "Returns the created invoice", schema: InvoiceInfo },
        400: { description: "Bad expiry_secs (tender extension)", schema: MessageError },
        ...receiveErrors,
      },
      handler: async ({ body }) => ({
        invoice: await receiver.createInvoice({
          amountSat: body.amount_sat, description: body.description ?? undefined, token: body.token ?? undefined, expirySecs: body.expiry_secs,
        }),
      }),
    },
    {
      method: "post", path: "/api/v1/lightning/receives/invoice/for-address", scope: "receive", operationId: "generate_invoice_for_address", tag: "lightning",
      requiresWallet: true, body: LightningInvoiceForAddressRequest, summary: "Create a BOLT11 invoice whose payment goes to an Ark address",
      responses: {
        200: { description: "Returns the created invoice", schema: InvoiceInfo },
        400: { description: "Bad address, or bad expiry_secs (tender extension)", schema: MessageError },
        ...receiveErrors,
      },
      handler: async ({ body }) => ({
        invoice: await receiver.createInvoice({ amountSat: body.amount_sat, description: body.description ?? undefined, address: body.address, expirySecs: body.expiry_secs }),
      }),
    },
    {
      method: "get", path: "/api/v1/lightning/receives", operationId: "list_receive_statuses", tag: "lightning", requiresWallet: true,
      summary: "List all pending receive statuses",
      responses: { 200: { description: "Returns all pending receive statuses", schema: z.array(LightningReceiveInfoSchema) }, ...receiveErrors },
      handler: () => receiver.list(),
    },
    {
      method: "get", path: "/api/v1/lightning/receives/{identifier}", operationId: "get_receive_status", tag: "lightning", requiresWallet: true,
      params: z.object({ identifier: z.string() }), summary: "Get receive status",
      responses: {
        200: { description: "Returns the Lightning receive status", schema: LightningReceiveInfoSchema },
        400: { description: "Bad identifier", schema: MessageError },
        ...receiveErrors,
      },
      handler: ({ params }) => receiver.status(receiveIdentifierHash(params.identifier, true)),
    },
    {
      method: "delete", path: "/api/v1/lightning/receives/{identifier}", scope: "receive", operationId: "cancel_receive", tag: "lightning", requiresWallet: true,
      params: z.object({ identifier: z.string() }), summary: "Cancel a Lightning receive awaiting payment",
      responses: {
        200: { description: "The receive was canceled" },
        400: { description: "Bad identifier", schema: MessageError },
        ...receiveErrors,
      },
      handler: async ({ params }) => {
        await receiver.cancel(receiveIdentifierHash(params.identifier, false));
        return undefined;
      },
    },
  ];
}
