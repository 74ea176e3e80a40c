import { createHash } from "node:crypto";
import type { Database } from "../persistence/database.js";
import { IdempotencyLink, IdempotencyRecord } from "./idempotency-record.js";

const sha256 = (...parts: (string | Buffer)[]) => {
  const h = createHash("sha256");
  for (const p of parts) {
    h.update(typeof p === "string" ? Buffer.from(p, "utf8") : p);
    h.update(Buffer.from([0]));
  }
  return h.digest("hex");
};

/** The row id of `key` used by `scope`. */
export const recordIdOf = (scope: string, key: string) => sha256("idempotency-record", scope, key);

/** The hash a retry must match: method, path with its query, body bytes. */
export const requestHashOf = (method: string, url: string, body: Buffer) => sha256("idempotency-request", method.toUpperCase(), url, body);

/** A stored answer. */
export interface StoredAnswer {
  status: number;
  contentType: string | undefined;
  body: Buffer;
  /** The movements the request created (replayed in `Tender-Movement-Id`). */
  movementIds: readonly number[];
}

/** What a request that takes a key is. */
export interface NewKeyUse {
  id: string;
  scope: string;
  key: string;
  requestHash: string;
  method: string;
  path: string;
  operationId: string;
}

/** Inserting a key that another request just inserted. */
export class KeyTakenError extends Error {}

/** The idempotency tables of the wallet database. */
export class IdempotencyStore {
  constructor(private readonly db: Database, private readonly now: () => number) {}

  get isOpen(): boolean {
    return this.db.isOpen;
  }

  find(id: string): Promise<IdempotencyRecord | null> {
    return this.db.em().findOne(IdempotencyRecord, { id });
  }

  /** Stores the key as `running` (durably, before the handler runs). Throws {@link KeyTakenError} when the row exists. */
  async begin(use: NewKeyUse): Promise<void> {
    const em = this.db.em();
    em.create(IdempotencyRecord, { ...use, state: "running", statusCode: null, contentType: null, body: null, movementIds: null, createdAt: BigInt(this.now()), completedAt: null });
    try {
      await em.flush();
    } catch (e) {
      if (/unique|duplicate|primary key/i.test(e instanceof Error ? e.message : String(e))) throw new KeyTakenError("key taken");
      throw e;
    }
  }

  /** Stores the answer of a `running` key (or of a key first seen once its answer exists: wallet creation). */
  async complete(use: NewKeyUse, answer: StoredAnswer): Promise<void> {
    const em = this.db.em();
    const fields = {
      state: "complete", statusCode: answer.status, contentType: answer.contentType ?? null, body: answer.body.toString("base64"),
      movementIds: answer.movementIds.length ? answer.movementIds.join(",") : null, completedAt: BigInt(this.now()),
    };
    const row = await em.findOne(IdempotencyRecord, { id: use.id });
    if (row) Object.assign(row, fields);
    else em.create(IdempotencyRecord, { ...use, ...fields, createdAt: BigInt(this.now()) });
    await em.flush();
  }

  /** Links `ref` to the record; joins the caller's transaction (an action's insert). */
  async link(recordId: string, kind: "action", ref: string): Promise<void> {
    const em = this.db.em();
    const id = sha256("idempotency-link", recordId, kind, ref);
    if (await em.findOne(IdempotencyLink, { id })) return;
    em.create(IdempotencyLink, { id, recordId, kind, ref, createdAt: BigInt(this.now()) });
    await em.flush();
  }

  async links(recordId: string): Promise<IdempotencyLink[]> {
    return this.db.em().find(IdempotencyLink, { recordId }, { orderBy: { createdAt: "asc", id: "asc" } });
  }

  /** Keys whose request was interrupted (still `running`), oldest first. */
  running(): Promise<IdempotencyRecord[]> {
    return this.db.em().find(IdempotencyRecord, { state: "running" }, { orderBy: { createdAt: "asc" } });
  }

  /** Deletes answered keys completed before `beforeMs`, with their links. Returns how many. */
  async prune(beforeMs: number): Promise<number> {
    return this.db.transaction(async () => {
      const em = this.db.em();
      const old = await em.find(IdempotencyRecord, { state: "complete", completedAt: { $lt: BigInt(beforeMs) } });
      if (old.length === 0) return 0;
      const ids = old.map((r) => r.id);
      await em.nativeDelete(IdempotencyLink, { recordId: { $in: ids } });
      await em.nativeDelete(IdempotencyRecord, { id: { $in: ids } });
      return old.length;
    });
  }
}

/** A stored row's answer. */
export function answerOf(r: IdempotencyRecord): StoredAnswer {
  return {
    status: r.statusCode ?? 500,
    contentType: r.contentType ?? undefined,
    body: Buffer.from(r.body ?? "", "base64"),
    movementIds: r.movementIds ? r.movementIds.split(",").map(Number) : [],
  };
}
