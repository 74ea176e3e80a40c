import { ActionRecord } from "../actions/action-record.js";
import type { Database } from "../persistence/database.js";
import type { WalletSession } from "../wallet/session.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Readiness } from "./readiness.js";

/**
 * The kernel's own readiness checks and gauges: the wallet database answers a query (and can
 * still make its commits durable), the wallet
 * is not locked, and the action engine's queue (unfinished actions by kind).
 */
export function registerKernelHealth(readiness: Readiness, metrics: Metrics, db: Database, session: WalletSession): void {
  readiness.add("database", async () => {
    // the database is the wallet's: without a wallet there is none to reach
    if (!session.isLoaded || !db.isOpen) return { ok: true, detail: "no wallet loaded" };
    if (db.durabilityFailed) return { ok: false, detail: "the disk refused to sync a commit: nothing is written durably until the daemon restarts" };
    await db.em().getConnection().execute("select 1");
    return { ok: true };
  });
  readiness.add("wallet", () => (session.isLocked ? { ok: false, detail: "wallet is locked" } : { ok: true, detail: session.isLoaded ? "loaded" : "no wallet loaded" }));

  metrics.gauge({
    name: "tender_wallet_state", help: "1 for the wallet's current state: none, locked or unlocked",
    labelNames: ["state"],
    collect: () => {
      const now = !session.isLoaded ? "none" : session.isLocked ? "locked" : "unlocked";
      return ["none", "locked", "unlocked"].map((state) => ({ labels: { state }, value: state === now ? 1 : 0 }));
    },
  });
  metrics.gauge({
    name: "tender_action_queue_depth", help: "Unfinished persisted actions (running or waiting to be resumed), by kind",
    labelNames: ["kind"],
    collect: async () => {
      if (!session.isLoaded || !db.isOpen) return [];
      const rows = await db.em().find(ActionRecord, { step: { $nin: ["done", "failed"] } }, { fields: ["id", "kind"] });
      const byKind = new Map<string, number>();
      for (const r of rows) byKind.set(r.kind, (byKind.get(r.kind) ?? 0) + 1);
      return [...byKind].map(([kind, n]) => ({ labels: { kind }, value: n }));
    },
  });
}
