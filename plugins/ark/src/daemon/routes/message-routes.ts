import { z, type RouteDefinition } from "@tender/core";
import type { ArkKeys } from "../keys/ark-keys.js";
import { signWithAddress, verifySigned } from "../message/message-signing.js";
import { BadRequestErrorSchema, InternalServerErrorSchema } from "./schemas.js";

const tag = "message";
const e400 = { description: "Bad request", schema: BadRequestErrorSchema };
const e500 = { description: "Internal server error", schema: InternalServerErrorSchema };

const SignMessageRequest = z.object({ message: z.string(), address: z.string() }).openapi("SignMessageRequest");
const SignedMessage = z.object({ signature: z.string() }).openapi("SignedMessage");
const VerifyMessageRequest = z.object({
  message: z.string(), signature: z.string(), pubkey: z.string().nullable().optional(), address: z.string().nullable().optional(),
}).openapi("VerifyMessageRequest");
const MessageVerification = z.object({ valid: z.boolean() }).openapi("MessageVerification");

/** barkd's `/api/v1/message` routes: sign with one of the wallet's Ark addresses, verify without a wallet. */
export function messageRoutes(keys: () => Promise<ArkKeys>): RouteDefinition[] {
  return [
    {
      method: "post", path: "/api/v1/message/sign", scope: "admin", operationId: "sign_message", tag, requiresWallet: true, body: SignMessageRequest,
      responses: { 200: { description: "Returns the signature over the message", schema: SignedMessage }, 400: e400, 500: e500 },
      handler: async ({ body }) => signWithAddress(await keys(), body.message, body.address),
    },
    {
      method: "post", path: "/api/v1/message/verify", scope: "receive", operationId: "verify_message", tag, body: VerifyMessageRequest,
      responses: { 200: { description: "Returns whether the signature is valid", schema: MessageVerification }, 400: e400, 500: e500 },
      handler: ({ body }) => verifySigned(body),
    },
  ];
}
