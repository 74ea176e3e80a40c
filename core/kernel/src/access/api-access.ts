import type { Request, Response } from "express";
import type { EventBus } from "../events/event-bus.js";
import type { AuthToken } from "../http/auth-token.js";
import { HttpError } from "../http/errors.js";
import type { RouteDefinition } from "../http/route.js";
import type { Logger } from "../log/logger.js";
import type { Database } from "../persistence/database.js";
import type { MigrationDefinition } from "../persistence/migration.js";
import { runInAccessContext, type AccessContext } from "./access-context.js";
import { AccessControl } from "./access-control.js";
import { ApiAuditRecord, ApiKeyRecord, ApiSpendRecord, apiKeysMigration } from "./access-records.js";
import { ApiKeyStore } from "./api-key-store.js";
import { apiKeyRoutes } from "./key-routes.js";
import { SpendingCapService } from "./spending-caps.js";

/**
 * Scoped API keys as the kernel wires them: the tables (in the wallet database: keys belong to
 * the wallet and go with it), the access check the HTTP layer calls, the key routes, and the
 * context the spending caps read while a handler runs.
 */
export class ApiAccess {
  static readonly entities: Function[] = [ApiKeyRecord, ApiAuditRecord, ApiSpendRecord];
  static readonly migrations: MigrationDefinition[] = [apiKeysMigration];

  readonly store: ApiKeyStore;
  readonly control: AccessControl;
  readonly caps: SpendingCapService;

  constructor(db: Database, private readonly logger: Logger, private readonly events: EventBus, private readonly now: () => number = Date.now) {
    this.store = new ApiKeyStore(db);
    this.control = new AccessControl(this.store, logger, now);
    this.caps = new SpendingCapService(db, now);
    // audit rows are written after their answers: a wallet delete or a shutdown waits for them
    db.addDrain(() => this.control.flushAudit());
  }

  /**
   * The background upkeep: audit entries older than `auditRetentionMs` (0: kept for ever) and
   * spend records past the daily caps' window are deleted.
   */
  async upkeep(auditRetentionMs: number): Promise<{ audit: number; spends: number }> {
    if (!this.store.isOpen) return { audit: 0, spends: 0 };
    const audit = auditRetentionMs > 0 ? await this.store.pruneAudit(this.now() - auditRetentionMs) : 0;
    return { audit, spends: await this.caps.prune() };
  }

  routes(): RouteDefinition[] {
    return apiKeyRoutes(this.store, this.control, this.caps, this.events, this.now);
  }

  authorize(route: RouteDefinition, req: Request, res: Response, owner: AuthToken): Promise<void> {
    return this.control.authorize(req, res, route, owner);
  }

  /** Runs a route's handler with the request's principal, for the spending caps. */
  async run<T>(req: Request, fn: () => Promise<T>): Promise<T> {
    const ctx: AccessContext = { principal: this.control.principalOf(req) ?? { kind: "owner" }, reservations: [], caps: this.caps };
    try {
      return await runInAccessContext(ctx, fn);
    } catch (e) {
      if (e instanceof HttpError && e.status < 500 && ctx.reservations.length) {
        await this.caps.release(ctx.reservations).catch((err) => this.logger.warn(`could not release a refused payment's cap reservation: ${err instanceof Error ? err.message : String(err)}`));
      }
      throw e;
    }
  }
}
