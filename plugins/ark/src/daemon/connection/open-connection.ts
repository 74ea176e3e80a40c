import type { Database, Logger } from "@tender/core";
import type { ArkServer, ArkServerConnector } from "@tender/ark-protocol/server";
import type { WalletKeys } from "@tender/plugin-wallet";
import type { CreationPins } from "./creation-pins.js";
import { readPinnedKeys, writePinnedKeys } from "./server-pins.js";

/** The wallet configuration names no Ark server. */
export class NoArkServerConfiguredError extends Error {
  constructor() {
    super("the wallet configuration names no Ark server (server_address)");
  }
}

/**
 * Opens the loaded wallet's connection to its Ark server (without connecting yet). The keys pinned
 * in `ark_state` are enforced; a new wallet first stores the keys its creation check saw; without
 * either, the first connection pins what the server presents and stores it.
 */
export async function openArkConnection(
  db: Database, connector: ArkServerConnector, pins: CreationPins, wallet: WalletKeys, logger: Logger,
): Promise<ArkServer> {
  const url = wallet.config.server_address;
  if (!url) throw new NoArkServerConfiguredError();
  let pinned = await readPinnedKeys(db);
  const fromCreation = pins.take();
  if (!pinned && fromCreation) {
    await writePinnedKeys(db, fromCreation);
    pinned = fromCreation;
  }
  return connector.open({
    url,
    network: wallet.network,
    ...(pinned ? { pinnedKeys: pinned } : {}),
    onKeysPinned: (keys) => writePinnedKeys(db, keys),
    logger,
  });
}
