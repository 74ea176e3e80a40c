import { ArkServerClient } from "@tender/ark-grpc";
import type { WalletCreationCheck } from "@tender/plugin-wallet";
import type { ArkConnection } from "./ark-connection.js";
import { serverNetworkOf } from "./networks.js";

/**
 * The wallet creation check of the Ark plugin (flows §4.1): connects once to the configured Ark
 * server (handshake, Ark info for the wallet's network) and keeps its `server_pubkey` and
 * `mailbox_pubkey` to pin them in the new wallet. With `force` an unreachable server is allowed
 * (the keys are then pinned at the first connection), as barkd does.
 */
export function arkServerCreationCheck(connection: ArkConnection): WalletCreationCheck {
  return async (ctx) => {
    connection.forgetCreationPins(); // never pin what an earlier, failed attempt saw
    const url = ctx.config.server_address;
    if (!url) return;
    const client = new ArkServerClient({ url, network: serverNetworkOf(ctx.network) });
    try {
      const session = await client.connect();
      connection.rememberCreationPins({ serverPubkey: session.arkInfo.serverPubkey, mailboxPubkey: session.arkInfo.mailboxPubkey });
    } catch (e) {
      if (!ctx.force) throw new Error(`failed to connect to Ark server ${url}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    } finally {
      client.close();
    }
  };
}
