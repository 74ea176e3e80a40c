import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import type { ActionEngine } from "../actions/action-engine.js";
import { faultPoint } from "../daemon/fault-injection.js";
import type { EventBus } from "../events/event-bus.js";
import { BadRequestError, HttpError, UnprocessableEntityError } from "../http/errors.js";
import type { RouteDefinition } from "../http/route.js";
import type { Logger } from "../log/logger.js";
import type { Database } from "../persistence/database.js";
import { WalletNotificationRaised } from "../wallet/session.js";
import { IdempotencyStore, KeyTakenError, answerOf, recordIdOf, requestHashOf, type NewKeyUse, type StoredAnswer } from "./idempotency-store.js";
import { resolveInterrupted } from "./interrupted-requests.js";
import { MutationContext, currentMutationContext, runInMutationContext } from "./request-context.js";

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const REPLAYED_HEADER = "Idempotent-Replayed";
export const MOVEMENT_ID_HEADER = "Tender-Movement-Id";
/** Longest key accepted (Stripe's limit). */
export const MAX_KEY_LENGTH = 255;

/** Fault points of the layer (`TENDER_FAULT_INJECT`): the key stored, the handler not run yet; the handler done, its answer not stored yet. */
export const IDEMPOTENCY_FAULT_POINTS = ["idempotency:after-begin", "idempotency:before-store"] as const;

/** 409 `{"message"}`: the key's first request is still running (or its payment still resolving). */
export class ConflictError extends HttpError {
  readonly status = 409;
}

const MUTATING = new Set(["post", "put", "patch", "delete"]);

/**
 * barkd's payment operations: their JSON answers also carry `movement_id` (barkd's schemas allow
 * extra fields) when the request created one movement. Every other mutating answer names its
 * movements in the `Tender-Movement-Id` header only (barkd's board answer has its own field).
 */
export const PAYMENT_OPERATIONS: ReadonlySet<string> = new Set([
  "send", "pay", "onchain_send", "onchain_send_many", "onchain_drain", "send_onchain", "offboard_vtxos", "offboard_all",
]);

/** The `Idempotency-Key` of a request: absent, or one value of 1 to 255 visible ASCII characters. */
export function readIdempotencyKey(req: Request): string | undefined {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === "idempotency-key") values.push(req.rawHeaders[i + 1]!);
  }
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new BadRequestError("invalid Idempotency-Key: send the header once");
  const key = values[0]!;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new BadRequestError(`invalid Idempotency-Key: it must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters`);
  }
  return key;
}

/**
 * Who sent a request, as far as keys are concerned: a hash of the bearer credential it presented
 * (so each API key, and the owner token, has its own key space), or `no-auth`.
 */
export function callerScope(req: Request): string {
  const auth = req.headers.authorization;
  if (!auth) return "no-auth";
  return createHash("sha256").update("idempotency-scope\0").update(auth, "utf8").digest("hex");
}

/** Options of the layer (tests shorten the clock). */
export interface IdempotencyOptions {
  now?: () => number;
  /** How long an answered key is kept (default and minimum in the daemon: 24 h). */
  retentionMs?: number;
}

/** Keys are kept at least this long after their answer. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600_000;

/**
 * The request pipeline's idempotency layer (Stripe's semantics for `Idempotency-Key`) and the
 * movement id of mutating answers:
 * - every mutating request runs in a {@link MutationContext}; the movements it creates are
 *   answered in `Tender-Movement-Id` and, for a payment's JSON object answer, as `movement_id`;
 * - with a key, the key is stored as `running` before the handler runs; the answer (status, type,
 *   body) is stored before it is sent, and replayed (`Idempotent-Replayed: true`) to a retry with the
 *   same method, path and body; another request under the same key is a 422; a retry while the
 *   first runs is a 409; actions the handler starts are linked to the key in their own transaction,
 *   so after a crash a retry gets the outcome of the started payment, never a second payment.
 */
export class IdempotencyLayer {
  readonly store: IdempotencyStore;
  /** Record ids of keyed requests this process is running. */
  private readonly inFlight = new Set<string>();
  private readonly now: () => number;
  private readonly retentionMs: number;

  constructor(
    db: Database,
    private readonly actions: ActionEngine,
    events: EventBus,
    private readonly logger: Logger,
    opts: IdempotencyOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.retentionMs = opts.retentionMs ?? IDEMPOTENCY_RETENTION_MS;
    this.store = new IdempotencyStore(db, this.now);
    // a movement created while a request's handler runs belongs to that request
    events.on(WalletNotificationRaised, (n) => {
      const ctx = currentMutationContext();
      if (!ctx || n.type !== "movement-created") return;
      const id = Number((n.movement as { id?: unknown }).id);
      if (!Number.isInteger(id)) return;
      ctx.movementIds.push(id);
    });
    // an action started by a keyed request is linked to its key in the transaction that stores the action
    actions.onPersist(async (actionId) => {
      const ctx = currentMutationContext();
      if (ctx?.recordId) await this.store.link(ctx.recordId, "action", actionId);
    });
  }

  /** Whether `route` goes through the layer: every mutating method. */
  applies(route: RouteDefinition): boolean {
    return MUTATING.has(route.method);
  }

  /**
   * Runs `run` (the route's handler) for a request that passed auth, extraction and the wallet
   * check. Answers by itself (replay, conflicts) or returns the handler's value for the caller to send.
   */
  async intercept(route: RouteDefinition, req: Request, res: Response, run: () => Promise<unknown>): Promise<unknown> {
    if (!this.applies(route)) return run();
    const key = readIdempotencyKey(req);
    const ctx = new MutationContext();
    if (key === undefined) {
      this.captureAnswer(res, ctx, undefined, route.operationId);
      return runInMutationContext(ctx, run);
    }
    const scope = callerScope(req);
    const use: NewKeyUse = {
      id: recordIdOf(scope, key), scope, key, method: req.method.toUpperCase(), path: req.originalUrl, operationId: route.operationId,
      requestHash: requestHashOf(req.method, req.originalUrl, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)),
    };
    if (this.inFlight.has(use.id)) throw this.stillRunning();
    this.inFlight.add(use.id);
    let handedOver = false;
    try {
      if (this.store.isOpen) {
        const existing = await this.store.find(use.id);
        if (existing) {
          if (existing.requestHash !== use.requestHash) throw this.misused(existing.method, existing.path);
          if (existing.state === "complete") return this.replay(res, answerOf(existing));
          const outcome = await resolveInterrupted(existing, this.store, this.actions);
          if (outcome.pending) {
            throw new ConflictError(`the payment started by the first request with this Idempotency-Key is still being resolved (action ${outcome.actionIds.join(", ")}); retry later`);
          }
          await this.store.complete(use, outcome.answer);
          return this.replay(res, outcome.answer);
        }
        try {
          await this.store.begin(use);
        } catch (e) {
          if (e instanceof KeyTakenError) throw this.stillRunning();
          throw e;
        }
        ctx.recordId = use.id;
        faultPoint("idempotency:after-begin");
      }
      handedOver = true;
      this.captureAnswer(res, ctx, use, route.operationId);
      return await runInMutationContext(ctx, run);
    } finally {
      if (!handedOver) this.inFlight.delete(use.id);
    }
  }

  /**
   * The background upkeep: keys whose request was interrupted get their answer once the payment
   * they started has ended; answered keys older than the retention are deleted. Keys still
   * `running` are never deleted (a retry must find them).
   */
  async upkeep(): Promise<{ settled: number; pruned: number }> {
    if (!this.store.isOpen) return { settled: 0, pruned: 0 };
    let settled = 0;
    for (const r of await this.store.running()) {
      if (this.inFlight.has(r.id)) continue;
      const outcome = await resolveInterrupted(r, this.store, this.actions);
      if (outcome.pending || this.inFlight.has(r.id)) continue;
      await this.store.complete({ id: r.id, scope: r.scope, key: r.key, requestHash: r.requestHash, method: r.method, path: r.path, operationId: r.operationId }, outcome.answer);
      settled++;
    }
    const pruned = await this.store.prune(this.now() - this.retentionMs);
    return { settled, pruned };
  }

  private stillRunning(): ConflictError {
    return new ConflictError("a request with this Idempotency-Key is still running; retry once it has answered");
  }

  private misused(method: string, path: string): UnprocessableEntityError {
    return new UnprocessableEntityError(
      `this Idempotency-Key was already used for another request (${method} ${path.split("?")[0]} with other parameters or body); use a new key for a new request`,
    );
  }

  /** Sends a stored answer as it was first sent, marked as a replay. */
  private replay(res: Response, a: StoredAnswer): undefined {
    res.status(a.status);
    res.setHeader(REPLAYED_HEADER, "true");
    if (a.movementIds.length > 0) res.setHeader(MOVEMENT_ID_HEADER, a.movementIds.join(", "));
    if (a.contentType) res.setHeader("Content-Type", a.contentType);
    res.end(a.body);
    return undefined;
  }

  /**
   * Holds the answer back until it is complete: adds the movement id, stores it under the key
   * (when there is one), and only then lets it out — a client never sees an answer that a retry
   * would not get again.
   */
  private captureAnswer(res: Response, ctx: MutationContext, use: NewKeyUse | undefined, operationId: string): void {
    const chunks: Buffer[] = [];
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    const toBuffer = (c: unknown, enc?: unknown) =>
      Buffer.isBuffer(c) ? c : typeof c === "string" ? Buffer.from(c, (typeof enc === "string" ? enc : "utf8") as BufferEncoding) : Buffer.from(c as Uint8Array);
    res.write = ((chunk: unknown, enc?: unknown, cb?: unknown) => {
      if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, enc));
      if (typeof enc === "function") (enc as () => void)();
      else if (typeof cb === "function") (cb as () => void)();
      return true;
    }) as typeof res.write;
    let ended = false;
    res.end = ((chunk?: unknown, enc?: unknown, cb?: unknown) => {
      if (ended) return res;
      ended = true;
      if (chunk !== undefined && chunk !== null && typeof chunk !== "function") chunks.push(toBuffer(chunk, enc));
      const done = typeof chunk === "function" ? chunk : typeof enc === "function" ? enc : cb;
      void this.finish(res, ctx, use, Buffer.concat(chunks), operationId).then((body) => {
        res.write = write;
        res.end = end;
        end(body, done as () => void);
      });
      return res;
    }) as typeof res.end;
  }

  private async finish(res: Response, ctx: MutationContext, use: NewKeyUse | undefined, raw: Buffer, operationId: string): Promise<Buffer> {
    try {
      const movementId = ctx.movementIds[0];
      let body = raw;
      if (movementId !== undefined) {
        res.setHeader(MOVEMENT_ID_HEADER, ctx.movementIds.join(", "));
        if (ctx.movementIds.length === 1 && PAYMENT_OPERATIONS.has(operationId)) body = withMovementId(res, raw, movementId);
      }
      if (use) {
        faultPoint("idempotency:before-store");
        const answer: StoredAnswer = { status: res.statusCode, contentType: headerText(res.getHeader("Content-Type")), body, movementIds: ctx.movementIds };
        try {
          if (this.store.isOpen) await this.store.complete(use, answer);
        } catch (e) {
          // the wallet was deleted by this very request, or the database failed: the key stays
          // `running`, so a retry resolves it as interrupted instead of running it again
          this.logger.warn(`could not store the answer of an idempotent ${use.method} ${use.path.split("?")[0]}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      return body;
    } finally {
      if (use) this.inFlight.delete(use.id);
    }
  }
}

function headerText(v: string | number | string[] | undefined): string | undefined {
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(", ") : String(v);
}

/** A 200 JSON object answer gains `movement_id` (unless it has one, as barkd's board answer does). */
function withMovementId(res: Response, raw: Buffer, movementId: number): Buffer {
  if (res.statusCode !== 200 || !/^application\/json/i.test(headerText(res.getHeader("Content-Type")) ?? "")) return raw;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString("utf8"));
  } catch {
    return raw;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed) || "movement_id" in parsed) return raw;
  const out = Buffer.from(JSON.stringify({ ...parsed, movement_id: movementId }), "utf8");
  res.setHeader("Content-Length", String(out.length));
  return out;
}
