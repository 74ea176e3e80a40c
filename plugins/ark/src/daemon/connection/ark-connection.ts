import type { Database, Logger } from "@tender/core";
import type { ArkInfo, ArkServer, ArkServerConnector, ArkSession, PinnedServerKeys } from "@tender/ark-protocol/server";
import { readPinnedKeys, writePinnedKeys } from "./server-pins.js";

/** No Ark server connection exists for the wallet (no wallet, or its connection is closed). */
export class NoArkConnectionError extends Error {
  constructor() {
    super("No wallet set");
  }
}

/** What the connection needs from the loaded wallet. */
export interface ArkConnectionTarget {
  readonly serverUrl: string;
  /** The wallet's network (`mainnet`, `signet`, `mutinynet`, `regtest`). */
  readonly walletNetwork: string;
}

/**
 * The loaded wallet's connection to its Ark server: the {@link ArkServer} the connector opened
 * (pinned to the keys in `ark_state`; the first connection pins them), the last Ark info it
 * received, and the `connected` flag kept fresh by the heartbeat.
 */
export class ArkConnection {
  private current: ArkServer | undefined;
  private pendingPins: PinnedServerKeys | undefined;

  constructor(private readonly db: Database, private readonly logger: Logger, private readonly connector: ArkServerConnector) {}

  /** Keys found by the creation check, written to `ark_state` when the new wallet attaches. */
  rememberCreationPins(keys: PinnedServerKeys): void {
    this.pendingPins = keys;
  }

  /** Drops keys remembered by an earlier creation attempt. */
  forgetCreationPins(): void {
    this.pendingPins = undefined;
  }

  /** Opens the connection for a loaded wallet (does not connect yet). */
  async attach(target: ArkConnectionTarget): Promise<ArkServer> {
    this.detach();
    let pinned = await readPinnedKeys(this.db);
    if (!pinned && this.pendingPins) {
      await writePinnedKeys(this.db, this.pendingPins);
      pinned = this.pendingPins;
    }
    this.pendingPins = undefined;
    const server = this.connector.open({
      url: target.serverUrl,
      network: target.walletNetwork,
      ...(pinned ? { pinnedKeys: pinned } : {}),
      onKeysPinned: (keys) => writePinnedKeys(this.db, keys),
      logger: this.logger,
    });
    this.current = server;
    return server;
  }

  /** Closes the connection (wallet unloaded or daemon stopping). */
  detach(): void {
    this.current?.close();
    this.current = undefined;
  }

  /** The wallet's Ark server; throws {@link NoArkConnectionError} without a wallet. */
  get server(): ArkServer {
    if (!this.current) throw new NoArkConnectionError();
    return this.current;
  }

  /** Whether a wallet's connection exists. */
  get isAttached(): boolean {
    return this.current !== undefined;
  }

  /** Whether the server is reachable and valid right now (as of the last heartbeat or call). */
  get connected(): boolean {
    return this.current?.connected ?? false;
  }

  /** The Ark info of the current session, without connecting; `undefined` when not connected. */
  get info(): ArkInfo | undefined {
    return this.current?.session?.arkInfo;
  }

  /** The current session, connecting first if needed (throws the typed connect failure). */
  session(): Promise<ArkSession> {
    return this.server.connect();
  }

  /** The Ark info, connecting first if needed. */
  async arkInfo(): Promise<ArkInfo> {
    return (await this.session()).arkInfo;
  }

  /** One heartbeat (bark's `check_connection`); never throws. */
  async heartbeat(): Promise<boolean> {
    return this.current ? this.current.heartbeat() : false;
  }
}
