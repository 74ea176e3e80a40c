import type { ArkServerConnector } from "@tender/ark-protocol/server";
import type { WalletCreationCheck } from "@tender/plugin-wallet";
import type { CreationPins } from "./creation-pins.js";

/**
 * The wallet creation check of the Ark plugin: connects once to the configured Ark server
 * (handshake, Ark info for the wallet's network) and keeps its `server_pubkey` and
 * `mailbox_pubkey` to pin them in the new wallet. With `force` an unreachable server is allowed
 * (the keys are then pinned at the first connection), as barkd does.
 */
export function arkServerCreationCheck(pins: CreationPins, connector: ArkServerConnector): WalletCreationCheck {
  return async (ctx) => {
    pins.forget(); // never pin what an earlier, failed attempt saw
    const url = ctx.config.server_address;
    if (!url) return;
    const server = connector.open({ url, network: ctx.network });
    try {
      const session = await server.connect();
      pins.remember({ serverPubkey: session.arkInfo.serverPubkey, mailboxPubkey: session.arkInfo.mailboxPubkey });
    } catch (e) {
      if (!ctx.force) throw new Error(`failed to connect to Ark server ${url}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    } finally {
      server.close();
    }
  };
}
