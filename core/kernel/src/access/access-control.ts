import type { Request, Response } from "express";
import type { IncomingMessage } from "node:http";
import { AsyncLock } from "../concurrency/async-lock.js";
import { presentedBearer } from "../http/auth-guard.js";
import { AuthToken } from "../http/auth-token.js";
import { HttpError, UnauthorizedError } from "../http/errors.js";
import { declaredScope, type RouteDefinition, type RouteScope } from "../http/route.js";
import type { Logger } from "../log/logger.js";
import { scopeAllows, type Principal } from "./api-key.js";
import { looksLikeApiKey, parseApiKey, secretMatches } from "./api-key-secret.js";
import type { ApiKeyStore, AuditEntry } from "./api-key-store.js";

/** 403 `{"message", "required_scope"}`: the credential is valid but may not call this route. */
export class ForbiddenError extends HttpError {
  readonly status = 403;
  constructor(message: string, readonly requiredScope?: string) {
    super(message);
  }
  override body(): Record<string, unknown> {
    return { message: this.message, ...(this.requiredScope ? { required_scope: this.requiredScope } : {}) };
  }
}

/** The scope the access check applies: the declared one, `admin` for a mutation that declared none. */
export function effectiveScope(route: RouteDefinition): RouteScope {
  return declaredScope(route) ?? "admin";
}

/**
 * How long the audit rows of answered requests gather before they are written together: they
 * are written after the answer (never holding it back), and a burst of requests costs one commit
 * per gathering instead of one per request. A crash may lose the rows of that last moment.
 */
export const AUDIT_GATHER_MS = 200;

/**
 * Authenticates a request (the owner token, or a scoped API key), checks the route's scope, and
 * records requests in the audit log: every request made with a key (refused ones too, once the
 * key is known), and every mutating request of the owner token. Never logs a credential.
 */
export class AccessControl {
  private readonly principals = new WeakMap<IncomingMessage, Principal>();
  private readonly pendingAudit = new Set<Promise<void>>();
  /** Audit rows are written one at a time, so their ids follow the order the answers went out. */
  private readonly auditLock = new AsyncLock();
  private readonly auditQueue: Omit<AuditEntry, "id">[] = [];
  private auditTimer: NodeJS.Timeout | undefined;

  constructor(private readonly store: ApiKeyStore, private readonly logger: Logger, private readonly now: () => number = Date.now) {}

  /** The principal an authorized request was made by (`undefined` in no-auth mode). */
  principalOf(req: IncomingMessage): Principal | undefined {
    return this.principals.get(req);
  }

  /** Throws 401 (no valid credential) or 403 (the key lacks the route's scope). */
  async authorize(req: Request, res: Response, route: RouteDefinition, owner: AuthToken): Promise<void> {
    const bearer = presentedBearer(req);
    const scope = effectiveScope(route);
    if (!looksLikeApiKey(bearer)) {
      const token = AuthToken.parse(bearer);
      if (!token || !token.equals(owner)) throw new UnauthorizedError("invalid auth token");
      this.principals.set(req, { kind: "owner" });
      if (req.method !== "GET" && req.method !== "HEAD") this.auditOnFinish(req, res, undefined);
      return;
    }
    const parsed = parseApiKey(bearer);
    if (!parsed) throw new UnauthorizedError("invalid auth token");
    if (!this.store.isOpen) throw new UnauthorizedError("API keys are accepted only while a wallet is loaded");
    const key = await this.store.find(parsed.id);
    if (!key || !secretMatches(parsed.secret, key.secretHash)) throw new UnauthorizedError("invalid auth token");
    this.auditOnFinish(req, res, key.id);
    if (key.revokedAt !== undefined) throw new UnauthorizedError("API key revoked");
    if (key.expiresAt !== undefined && key.expiresAt <= this.now()) throw new UnauthorizedError("API key expired");
    if (scope === "owner") throw new ForbiddenError(`${req.method} ${route.path} needs the owner token; API keys cannot call it`, "owner");
    if (!scopeAllows(key.scopes, scope)) {
      throw new ForbiddenError(`this API key lacks the '${scope}' scope that ${req.method} ${route.path} needs (it has: ${key.scopes.join(", ")})`, scope);
    }
    this.principals.set(req, { kind: "key", key });
  }

  /** Waits for the audit rows of answered requests to be written. */
  async flushAudit(): Promise<void> {
    this.writeQueuedAudit();
    while (this.pendingAudit.size) await Promise.allSettled([...this.pendingAudit]);
  }

  private auditOnFinish(req: Request, res: Response, keyId: string | undefined): void {
    const method = req.method;
    const path = req.originalUrl.split("?")[0]!;
    res.once("finish", () => {
      if (!this.store.isOpen) return;
      this.auditQueue.push({ keyId, method, path, status: res.statusCode, at: this.now() });
      // the rows of answers given within a short while share one statement and one commit
      this.auditTimer ??= setTimeout(() => this.writeQueuedAudit(), AUDIT_GATHER_MS);
    });
  }

  /** Writes every queued audit row (in answer order) with one statement. */
  private writeQueuedAudit(): void {
    if (this.auditTimer) clearTimeout(this.auditTimer);
    this.auditTimer = undefined;
    if (this.auditQueue.length === 0) return;
    const entries = this.auditQueue.splice(0);
    const p = this.auditLock.run(() => (this.store.isOpen ? this.store.auditMany(entries) : undefined))
      .catch((e) => this.logger.warn(`could not write ${entries.length} audit entr${entries.length === 1 ? "y" : "ies"} (${entries[0]!.method} ${entries[0]!.path}…): ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => this.pendingAudit.delete(p));
    this.pendingAudit.add(p);
  }
}
