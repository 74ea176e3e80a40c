import { definePlugin, z } from "@tender/core";
import { toHex } from "@tender/ark-protocol";
import { MailboxHandlersService } from "@tender/plugin-ark";

/** A recovery-ids message as the plugin reports it. */
export interface ClaimedRecoveryIds {
  checkpoint: string;
  vtxo_ids: string[];
}

/**
 * A third-party plugin that claims one mailbox message kind no default plugin handles
 * (`recovery-vtxo-ids`), loaded by the end-to-end tests: it records what it was handed and
 * reports it at `GET /api/v1/mailbox-claim/received`.
 */
export const mailboxClaimPlugin = definePlugin({
  name: "mailbox-claim",
  version: "0.1.0",
  consumes: [MailboxHandlersService],
  register(ctx) {
    const received: ClaimedRecoveryIds[] = [];
    ctx.get(MailboxHandlersService).register("recovery-vtxo-ids", ctx.name, async (m) => {
      received.push({ checkpoint: m.checkpoint.toString(), vtxo_ids: m.vtxoIds.map(toHex) });
    });
    ctx.route({
      method: "get", path: "/api/v1/mailbox-claim/received", operationId: "mailbox_claim_received", tag: "mailbox-claim",
      responses: { 200: { description: "The recovery-ids messages handed to this plugin", schema: z.array(z.object({ checkpoint: z.string(), vtxo_ids: z.array(z.string()) })) } },
      handler: () => received,
    });
  },
});
