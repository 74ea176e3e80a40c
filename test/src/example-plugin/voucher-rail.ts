import { BadRequestError, z, type PluginContext } from "@tender/core";
import { BalanceContributorsService, SendDestinationsService } from "@tender/plugin-wallet";

/** What the voucher rail was asked to pay. */
interface VoucherPayment {
  code: string;
  amount_sat: number;
}

/**
 * A toy rail, to show the wallet's extension points from a third-party plugin: it adds a send
 * destination kind of its own (`voucher:<code>`), pays it (by remembering it), and contributes the
 * vouchers' sats to `pending_in_round_sat` of `GET /wallet/balance` (a stand-in for a rail whose
 * funds are on their way). Nothing in the other plugins knows about it.
 */
export function registerVoucherRail(ctx: PluginContext): void {
  const paid: VoucherPayment[] = [];
  const send = ctx.get(SendDestinationsService);
  send.addKind("example-voucher", ctx.name, (d) => /^voucher:[a-z0-9]{4,32}$/.test(d));
  send.claim("example-voucher", ctx.name, async (d) => {
    if (d.amountSat === undefined) throw new BadRequestError("a voucher needs an amount");
    paid.push({ code: d.value.slice("voucher:".length), amount_sat: Number(d.amountSat) });
    return {};
  });
  ctx.get(BalanceContributorsService).contribute("pending_in_round_sat", ctx.name, async () => BigInt(paid.reduce((s, p) => s + p.amount_sat, 0)));
  ctx.route({
    method: "get", path: "/api/v1/example/vouchers", operationId: "example_vouchers", tag: "example", requiresWallet: true,
    responses: { 200: { description: "Vouchers paid through POST /api/v1/wallet/send", schema: z.array(z.object({ code: z.string(), amount_sat: z.number() })) } },
    handler: () => paid,
  });
}
