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

/**
 * Establishes the server session while the wallet loads, as barkd connects while it creates or
 * opens a wallet: a wallet that is ready (its creation answered, or the daemon listening after a
 * restart) is connected already when its server answers. Waits for the first connection at most
 * `waitMs`; a server that refuses, fails its checks or answers too slowly leaves the connection
 * unconnected (`connected` false) without an error, and the heartbeat keeps trying (an attempt
 * still running when the wait ends goes on in the background). Never throws; answers whether the
 * session is established.
 */
export async function connectWithin(server: ArkServer, waitMs: number, logger: Logger): Promise<boolean> {
  const attempt = server.connect().then(
    () => true,
    (e: unknown) => {
      logger.warn(`Ark server not reachable while loading the wallet: ${e instanceof Error ? e.message : String(e)}`);
      return false;
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      logger.warn(`Ark server did not answer within ${waitMs} ms while loading the wallet; connecting in the background`);
      resolve(false);
    }, waitMs);
  });
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
