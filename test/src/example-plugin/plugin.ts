import { Database, WalletNotificationRaised, definePlugin, z } from "@tender/core";
import { MovementStoreToken } from "@tender/plugin-history";
import { BalanceContributorsService, SendDestinationsService } from "@tender/plugin-wallet";
import { ExampleNote, exampleNoteMigration } from "./example-note.js";
import { registerVoucherRail } from "./voucher-rail.js";

/** A sample barkd `Movement` announced by the example plugin; real ones come from the rails. */
export function sampleMovement(id: number): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    id, status: "successful", subsystem: { name: "example", kind: "demo" },
    intended_balance_sat: 1000, effective_balance_sat: 1000, offchain_fee_sat: 0,
    sent_to: [], received_on: [{ destination: { type: "custom", value: "example" }, amount_sat: 1000 }],
    input_vtxos: [], output_vtxos: [], exited_vtxos: [],
    time: { created_at: now, updated_at: now, completed_at: now },
  };
}

/**
 * The example plugin of `docs/plugins.md`, loaded by the end-to-end tests. It shows every kind of
 * contribution: routes with schemas, an entity with its migration, a background task, events, and
 * a rail on the wallet's extension points (a send destination kind of its own and a balance field).
 */
export const examplePlugin = definePlugin({
  name: "example",
  version: "0.1.0",
  dependencies: ["wallet", "notifications", "history"],
  consumes: [SendDestinationsService, BalanceContributorsService],
  register(ctx) {
    registerVoucherRail(ctx);
    const db = ctx.container.resolve(Database);
    let ticks = 0;
    let nextMovementId = 1;

    ctx.entities(ExampleNote);
    ctx.migrations(exampleNoteMigration);
    ctx.task({ name: "example.tick", intervalMs: 50, run: () => { ticks++; } });

    ctx.route({
      method: "get", path: "/api/v1/example/ticks", operationId: "example_ticks", tag: "example",
      responses: { 200: { description: "How often the example task ran", schema: z.object({ ticks: z.number() }) } },
      handler: () => ({ ticks }),
    });
    ctx.route({
      method: "post", path: "/api/v1/example/notes", scope: "receive", operationId: "example_add_note", tag: "example", requiresWallet: true,
      body: z.object({ text: z.string().min(1).max(255) }),
      responses: { 200: { description: "The stored note", schema: z.object({ id: z.number(), text: z.string() }) } },
      handler: async ({ body }) => {
        const em = db.em();
        const note = em.create(ExampleNote, { text: body.text });
        await em.flush();
        return { id: note.id, text: note.text };
      },
    });
    ctx.route({
      method: "get", path: "/api/v1/example/notes", operationId: "example_notes", tag: "example", requiresWallet: true,
      responses: { 200: { description: "All notes", schema: z.array(z.object({ id: z.number(), text: z.string() })) } },
      handler: async () => (await db.em().find(ExampleNote, {}, { orderBy: { id: "asc" } })).map((n) => ({ id: n.id, text: n.text })),
    });
    ctx.route({
      method: "post", path: "/api/v1/example/movements", scope: "receive", operationId: "example_add_movement", tag: "example", requiresWallet: true,
      body: z.object({
        kind: z.enum(["send", "receive"]), amount_sat: z.number().int().positive(),
        method: z.object({ type: z.enum(["ark", "bitcoin", "output-script", "invoice", "offer", "lightning-address", "lnurl", "custom"]), value: z.string() }),
        status: z.enum(["pending", "successful", "failed", "canceled"]).default("successful"),
      }),
      responses: { 200: { description: "The movement recorded through the history plugin's store" } },
      handler: ({ body }) => {
        const dest = [{ destination: body.method, amount_sat: body.amount_sat }];
        const sign = body.kind === "send" ? -1 : 1;
        return ctx.container.resolve(MovementStoreToken).create({
          status: body.status, subsystem: { name: "example", kind: body.kind },
          intendedBalanceSat: sign * body.amount_sat, effectiveBalanceSat: sign * body.amount_sat,
          ...(body.kind === "send" ? { sentTo: dest } : { receivedOn: dest }),
        });
      },
    });
    ctx.route({
      method: "post", path: "/api/v1/example/notify", scope: "receive", operationId: "example_notify", tag: "example", requiresWallet: true,
      body: z.object({ count: z.number().int().min(1).max(1000), kind: z.enum(["created", "updated"]).default("created") }),
      responses: { 200: { description: "Ids of the movements announced", schema: z.array(z.number()) } },
      handler: ({ body }) => {
        const ids: number[] = [];
        for (let i = 0; i < body.count; i++) {
          const id = nextMovementId++;
          ids.push(id);
          ctx.events.emit(WalletNotificationRaised, { type: body.kind === "created" ? "movement-created" : "movement-updated", movement: sampleMovement(id) });
        }
        return ids;
      },
    });
  },
});

export default examplePlugin;
