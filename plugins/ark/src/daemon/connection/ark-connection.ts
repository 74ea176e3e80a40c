import type { Database, Logger } from "@tender/core";
import { ArkServerClient, type ArkInfo, type PinnedServerKeys, type ServerSession } from "@tender/ark-grpc";
import { serverNetworkOf } from "./networks.js";
import { readPinnedKeys, writePinnedKeys } from "./server-pins.js";

/** No Ark server connection exists for the wallet (no wallet, or its client is closed). */
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
  readonly accessToken?: string;
}

/**
 * The loaded wallet's connection to its Ark server: the {@link ArkServerClient} (pinned to the
 * keys in `ark_state`; the first connection pins them), the last Ark info it received, and the
 * `connected` flag kept fresh by the heartbeat.
 */
export class ArkConnection {
  private current: ArkServerClient | undefined;
  private pendingPins: PinnedServerKeys | undefined;

  constructor(private readonly db: Database, private readonly logger: Logger) {}

  /** Keys found by the creation check, written to `ark_state` when the new wallet attaches. */
  rememberCreationPins(keys: PinnedServerKeys): void {
    this.pendingPins = keys;
  }

  /** Drops keys remembered by an earlier creation attempt. */
  forgetCreationPins(): void {
    this.pendingPins = undefined;
  }

  /** Creates the client for a loaded wallet (does not connect yet). */
  async attach(target: ArkConnectionTarget): Promise<ArkServerClient> {
    this.detach();
    let pinned = await readPinnedKeys(this.db);
    if (!pinned && this.pendingPins) {
      await writePinnedKeys(this.db, this.pendingPins);
      pinned = this.pendingPins;
    }
    this.pendingPins = undefined;
    const client = new ArkServerClient({
      url: target.serverUrl,
      network: serverNetworkOf(target.walletNetwork),
      ...(pinned ? { pinnedKeys: pinned } : {}),
      onKeysPinned: (keys) => writePinnedKeys(this.db, keys),
      logger: this.logger,
    });
    this.current = client;
    return client;
  }

  /** Closes the client (wallet unloaded or daemon stopping). */
  detach(): void {
    this.current?.close();
    this.current = undefined;
  }

  /** The wallet's Ark server client; throws {@link NoArkConnectionError} without a wallet. */
  get client(): ArkServerClient {
    if (!this.current) throw new NoArkConnectionError();
    return this.current;
  }

  /** Whether a wallet's client exists. */
  get isAttached(): boolean {
    return this.current !== undefined;
  }

  /** Whether the server is reachable and valid right now (as of the last heartbeat or call). */
  get connected(): boolean {
    return this.current?.connected ?? false;
  }

  /** The Ark info of the current session, without connecting; `undefined` when not connected. */
  get info(): ArkInfo | undefined {
    return this.current?.currentSession?.arkInfo;
  }

  /** The current session, connecting first if needed (throws the typed connect failure). */
  session(): Promise<ServerSession> {
    return this.client.connect();
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
