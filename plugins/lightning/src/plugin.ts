import { ActionEngine, ChainSourceService, Database, definePlugin } from "@tender/core";
import { ArkConnectionService, ArkKeysService, HeldVtxoExitsService, MailboxHandlersService, VtxoLocksService, VtxoStoreService } from "@tender/plugin-ark";
import { FeeEstimatorsService } from "@tender/plugin-fees";
import { MovementStoreToken, PaymentMethodParsersToken } from "@tender/plugin-history";
import { BalanceContributorsService, Bip321ContributorsService, SendDestinationsService, WalletKeysService, WalletSettingsService } from "@tender/plugin-wallet";
import type { LightningRailSource } from "./lightning-rail.js";
import { LightningSender } from "./lightning-sender.js";
import { claimSendKinds, lnurlSettings } from "./send-claims.js";
import { LIGHTNING_ENTITIES, LIGHTNING_MIGRATIONS } from "./paid-invoice-row.js";
import { lightningSendAction } from "./send-action.js";
import { sendRoutes } from "./send-routes.js";
import { LightningReceiver } from "./lightning-receiver.js";
import { lightningReceiveAction } from "./receive-action.js";
import { RECEIVE_ENTITIES, RECEIVE_MIGRATIONS } from "./receive-cancel-row.js";
import type { LightningReceiveRailSource } from "./receive-rail.js";
import { receiveRoutes } from "./receive-routes.js";
import { registerLightningPaymentMethods } from "./payment-method-parsers.js";

/**
 * The lightning plugin, send side: paying BOLT11 invoices, BOLT12 offers, Lightning addresses and LNURL-pay through the Ark server. Contributes
 * barkd's `POST /api/v1/lightning/pay`, `GET /api/v1/lightning/sends/{identifier}` and
 * `GET /api/v1/fees/lightning/pay`; claims the `bolt11`, `bolt12`, `lightning-address` and `lnurl` kinds of `POST /api/v1/wallet/send`; the
 * crash-safe `lightning.send` action (kernel ActionEngine, resumed by the kernel and on every
 * sync); `pending_lightning_send_sat`; the handler of `LightningSendFinished` mailbox messages;
 * the paid invoices with their preimages (`lightning_paid_invoice`). Receive side (`registerReceive`):
 * `POST /api/v1/lightning/receives/invoice` and `/invoice/for-address`, `GET /lightning/receives`,
 * `GET`/`DELETE /lightning/receives/{identifier}`, `GET /api/v1/fees/lightning/receive`, the
 * crash-safe `lightning.receive` action, `claimable_lightning_receive_sat`, the handler of
 * `IncomingLightningPayment` messages and the `lightning=` part of BIP-321 URIs with an amount.
 * HTLC VTXOs the server refuses to revoke or claim near their expiry are handed to the exits rail
 * through `HeldVtxoExitsService` (`htlc-exit-handover.ts`).
 */
export const lightningPlugin = definePlugin({
  name: "lightning",
  version: "0.1.0",
  dependencies: ["wallet", "history", "ark"],
  consumes: [
    BalanceContributorsService, SendDestinationsService, ChainSourceService, ArkConnectionService, ArkKeysService, VtxoStoreService, VtxoLocksService,
    MailboxHandlersService, WalletSettingsService, WalletKeysService, HeldVtxoExitsService,
  ],
  optional: [FeeEstimatorsService, Bip321ContributorsService],
  register(ctx) {
    const c = ctx.container;
    const db = c.resolve(Database);
    const engine = c.resolve(ActionEngine);
    ctx.entities(...LIGHTNING_ENTITIES);
    ctx.migrations(...LIGHTNING_MIGRATIONS);
    ctx.entities(...RECEIVE_ENTITIES);
    ctx.migrations(...RECEIVE_MIGRATIONS);
    registerLightningPaymentMethods(c.resolve(PaymentMethodParsersToken));
    const connection = ctx.walletService(ArkConnectionService);
    const keys = ctx.walletService(ArkKeysService);
    const chain = ctx.walletService(ChainSourceService);
    const settings = ctx.walletService(WalletSettingsService);
    const walletKeys = ctx.walletService(WalletKeysService);
    const vtxos = ctx.get(VtxoStoreService);
    const locks = ctx.get(VtxoLocksService);
    const movements = c.resolve(MovementStoreToken);
    const heldExits = ctx.get(HeldVtxoExitsService);
    const rail: LightningRailSource = async () => ({
      server: await connection.get(), keys: await keys.get(), vtxos, locks, movements, db, logger: ctx.logger, heldExits,
      settings: await settings.get(), network: (await walletKeys.get()).network,
      tipHeight: async () => (await (await chain.get()).getTip()).height,
    });
    const sender = new LightningSender(rail, engine, lnurlSettings(ctx.pluginConfig));
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
    registerReceive();

    /** The receive side: BOLT11 invoices through the Ark server, claimed into HTLC-recv VTXOs and then the wallet's own. */
    function registerReceive(): void {
      const receiveRail: LightningReceiveRailSource = async () => {
        const base = await rail();
        const source = await chain.get();
        return { ...base, getTxHex: async (txid: string) => (await source.getTx(txid))?.hex ?? undefined };
      };
      const receiver = new LightningReceiver(receiveRail, engine);
      engine.define(lightningReceiveAction(receiveRail));
      ctx.get(BalanceContributorsService).contribute("claimable_lightning_receive_sat", ctx.name, () => receiver.claimableSat());
      ctx.get(MailboxHandlersService).register("incoming-lightning-payment", ctx.name, async (m) => {
        // a hint only: the receive is persisted and also polled, so a failed drive is logged, not retried here
        await receiver.onIncoming(Buffer.from(m.paymentHash).toString("hex")).catch((e: unknown) => {
          ctx.logger.warn(`lightning receive: progressing after an incoming payment: ${e instanceof Error ? e.message : String(e)}`);
        });
      });
      ctx.find(FeeEstimatorsService)?.addAmountEstimate({
        path: "lightning/receive", operationId: "lightning_receive_fee", summary: "Estimate Lightning receive fee",
        estimate: async (amountSat) => {
          const e = await receiver.estimate(amountSat);
          return { grossSat: e.grossAmountSat, feeSat: e.feeSat, netSat: e.netAmountSat, vtxosSpent: e.vtxosSpent };
        },
      });
      ctx.find(Bip321ContributorsService)?.contribute("lightning", ctx.name, async ({ amountSat }) => {
        if (amountSat === undefined) throw new Error("a Lightning invoice needs an amount");
        return receiver.createInvoice({ amountSat });
      });
      for (const r of receiveRoutes(receiver)) ctx.route(r);
    }
  },
});

export default lightningPlugin;
