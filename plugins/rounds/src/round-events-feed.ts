import type { ArkServer, RoundEvent, RoundSubscription } from "@tender/ark-protocol/server";
import type { Logger } from "@tender/core";

/**
 * The daemon's round-event subscription: one subscription on the loaded wallet's Ark connection
 * while it is wanted (a wallet loaded, not in manual-sync mode), handing each event to the rail.
 * The connection's subscription resubscribes after drops by itself; a new connection (another
 * wallet) gets a new subscription.
 */
export class RoundEventsFeed {
  private current: { server: ArkServer; subscription: RoundSubscription; ended: boolean } | undefined;

  constructor(private readonly onEvent: (event: RoundEvent) => Promise<void>, private readonly logger: Logger) {}

  /** Whether a subscription is running. */
  get subscribed(): boolean {
    return this.current !== undefined && !this.current.ended;
  }

  /** Keeps one subscription on `server` while `wanted` (called periodically). */
  async keep(server: ArkServer | undefined, wanted: boolean): Promise<void> {
    const c = this.current;
    if (c && (c.ended || !wanted || c.server !== server)) await this.stop();
    if (this.current || !wanted || !server?.connected) return;
    const entry = {
      server,
      ended: false,
      subscription: server.subscribeRounds({
        onEvent: async (event) => {
          await this.onEvent(event).catch((e: unknown) => this.logger.warn(`round event ${event.kind}: ${e instanceof Error ? e.message : String(e)}`));
          return true;
        },
      }),
    };
    this.current = entry;
    void entry.subscription.done.then((end) => {
      entry.ended = true;
      this.logger.debug(`round event subscription ended: ${JSON.stringify(end)}`);
    }, () => {
      entry.ended = true;
    });
  }

  async stop(): Promise<void> {
    const c = this.current;
    this.current = undefined;
    if (c && !c.ended) await c.subscription.stop().catch(() => undefined);
  }
}
