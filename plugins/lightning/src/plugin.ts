import { ActionEngine, ChainSourceService, Database, definePlugin } from "@tender/core";
import { ArkConnectionService, ArkKeysService, MailboxHandlersService, VtxoLocksService, VtxoStoreService } from "@tender/plugin-ark";
import { FeeEstimatorsService } from "@tender/plugin-fees";
import { MovementStoreToken } from "@tender/plugin-history";
import { BalanceContributorsService, SendDestinationsService, WalletKeysService, WalletSettingsService } from "@tender/plugin-wallet";
import type { LightningRailSource } from "./lightning-rail.js";
import { LightningSender } from "./lightning-sender.js";
import { claimSendKinds, lnurlHostOverrides } from "./send-claims.js";
import { LIGHTNING_ENTITIES, LIGHTNING_MIGRATIONS } from "./paid-invoice-row.js";
import { lightningSendAction } from "./send-action.js";
import { sendRoutes } from "./send-routes.js";

/**
 * The lightning plugin, send side: paying BOLT11 invoices, BOLT12 offers, Lightning addresses and LNURL-pay through the Ark server. Contributes
 * barkd's `POST /api/v1/lightning/pay`, `GET /api/v1/lightning/sends/{identifier}` and
 * `GET /api/v1/fees/lightning/pay`; claims the `bolt11`, `bolt12`, `lightning-address` and `lnurl` kinds of `POST /api/v1/wallet/send`; the
 * crash-safe `lightning.send` action (kernel ActionEngine, resumed by the kernel and on every
 * sync); `pending_lightning_send_sat`; the handler of `LightningSendFinished` mailbox messages;
 * the paid invoices with their preimages (`lightning_paid_invoice`).
 */
export const lightningPlugin = definePlugin({
  name: "lightning",
  version: "0.1.0",
  dependencies: ["wallet", "history", "ark"],
  consumes: [
    BalanceContributorsService, SendDestinationsService, ChainSourceService, ArkConnectionService, ArkKeysService, VtxoStoreService, VtxoLocksService,
    MailboxHandlersService, WalletSettingsService, WalletKeysService,
  ],
  optional: [FeeEstimatorsService],
  register(ctx) {
    const c = ctx.container;
    const db = c.resolve(Database);
    const engine = c.resolve(ActionEngine);
    ctx.entities(...LIGHTNING_ENTITIES);
    ctx.migrations(...LIGHTNING_MIGRATIONS);
    const connection = ctx.walletService(ArkConnectionService);
    const keys = ctx.walletService(ArkKeysService);
    const chain = ctx.walletService(ChainSourceService);
    const settings = ctx.walletService(WalletSettingsService);
    const walletKeys = ctx.walletService(WalletKeysService);
    const vtxos = ctx.get(VtxoStoreService);
    const locks = ctx.get(VtxoLocksService);
    const movements = c.resolve(MovementStoreToken);
    const rail: LightningRailSource = async () => ({
      server: await connection.get(), keys: await keys.get(), vtxos, locks, movements, db, logger: ctx.logger,
      settings: await settings.get(), network: (await walletKeys.get()).network,
      tipHeight: async () => (await (await chain.get()).getTip()).height,
    });
    const sender = new LightningSender(rail, engine, lnurlHostOverrides(ctx.pluginConfig));
    engine.define(lightningSendAction(rail));

    const send = ctx.get(SendDestinationsService);
    claimSendKinds(send, sender, ctx.name);
    ctx.get(BalanceContributorsService).contribute("pending_lightning_send_sat", ctx.name, () => sender.pendingSat());
    ctx.get(MailboxHandlersService).register("lightning-send-finished", ctx.name, async (m) => {
      await sender.onFinished(Buffer.from(m.paymentHash).toString("hex"));
    });
    ctx.find(FeeEstimatorsService)?.addAmountEstimate({
      path: "lightning/pay", operationId: "lightning_send_fee", summary: "Estimate Lightning send fee",
      estimate: async (amountSat) => {
        const e = await sender.estimate(amountSat);
        return { grossSat: e.grossAmountSat, feeSat: e.feeSat, netSat: e.netAmountSat, vtxosSpent: e.vtxosSpent };
      },
    });
    for (const r of sendRoutes(sender, send, async () => (await walletKeys.get()).network)) ctx.route(r);
  },
});

export default lightningPlugin;
