import { randomBytes } from "node:crypto";
import { AsyncLock } from "../concurrency/async-lock.js";
import type { Database } from "../persistence/database.js";
import { ApiSpendRecord } from "./access-records.js";
import { SPEND_RAILS, type SpendRail } from "./api-key.js";
import { currentAccessContext, type AccessContext } from "./access-context.js";
import { ForbiddenError } from "./access-control.js";

/** The window of a daily cap: the last 24 hours. */
export const CAP_WINDOW_MS = 24 * 3600_000;

/**
 * The spending caps of API keys. A payment route asks {@link spendingCap} before any money moves;
 * for a key with a cap on the rail, the amount is checked against the per-payment cap and, with
 * what the key spent over the last 24 hours, against the daily cap, then recorded in the same
 * database transaction — one key's checks run one at a time, so two concurrent payments cannot
 * both pass on the same headroom, and the record survives restarts. A request refused afterwards
 * with a 4xx (nothing sent) gives its amount back; any other outcome keeps it counted.
 */
export class SpendingCapService {
  private readonly locks = new Map<string, AsyncLock>();

  constructor(private readonly db: Database, private readonly now: () => number = Date.now) {}

  async reserve(ctx: AccessContext, rail: string, amountSat: bigint | undefined, what: string): Promise<void> {
    if (ctx.principal.kind !== "key") return;
    const key = ctx.principal.key;
    if (!(SPEND_RAILS as readonly string[]).includes(rail)) {
      if (Object.keys(key.caps).length === 0) return;
      throw new ForbiddenError(`this API key has spending caps, and ${what} goes over no rail a cap is set for (ark, lightning, onchain); a capped key cannot make it`);
    }
    const cap = key.caps[rail as SpendRail];
    if (!cap || (cap.perPaymentSat === undefined && cap.perDaySat === undefined)) return;
    if (amountSat === undefined) {
      throw new ForbiddenError(`this API key has a spending cap on ${rail} and the amount of ${what} is not known before paying; a capped key cannot make it`);
    }
    if (cap.perPaymentSat !== undefined && amountSat > cap.perPaymentSat) {
      throw new ForbiddenError(`${what} of ${amountSat} sat is over this API key's ${rail} cap of ${cap.perPaymentSat} sat per payment; nothing was sent`);
    }
    let lock = this.locks.get(key.id);
    if (!lock) this.locks.set(key.id, (lock = new AsyncLock()));
    await lock.run(() => this.db.transaction(async () => {
      const em = this.db.em();
      const now = this.now();
      if (cap.perDaySat !== undefined) {
        const rows = await em.find(ApiSpendRecord, { keyId: key.id, rail, at: { $gt: BigInt(now - CAP_WINDOW_MS) } });
        const spent = rows.reduce((s, r) => s + BigInt(r.amountSat), 0n);
        if (spent + amountSat > cap.perDaySat) {
          throw new ForbiddenError(
            `${what} of ${amountSat} sat would take this API key over its ${rail} cap of ${cap.perDaySat} sat per 24 hours (${spent} sat spent); nothing was sent`,
          );
        }
      }
      const id = randomBytes(16).toString("hex");
      em.create(ApiSpendRecord, { id, keyId: key.id, rail, amountSat, at: BigInt(now) });
      await em.flush();
      ctx.reservations.push(id);
    }));
  }

  /** Gives back what a refused request reserved. */
  async release(ids: readonly string[]): Promise<void> {
    if (ids.length === 0 || !this.db.isOpen) return;
    await this.db.em().nativeDelete(ApiSpendRecord, { id: { $in: [...ids] } });
  }

  /** Deletes spend records no daily cap looks at any more (older than twice the window); answers how many. */
  async prune(): Promise<number> {
    if (!this.db.isOpen) return 0;
    return this.db.em().nativeDelete(ApiSpendRecord, { at: { $lt: BigInt(this.now() - 2 * CAP_WINDOW_MS) } });
  }

  /** What a key spent on each rail over the last 24 hours. */
  async spentLastDay(keyId: string): Promise<Record<SpendRail, bigint>> {
    const rows = await this.db.em().find(ApiSpendRecord, { keyId, at: { $gt: BigInt(this.now() - CAP_WINDOW_MS) } });
    const out = { ark: 0n, lightning: 0n, onchain: 0n } as Record<SpendRail, bigint>;
    for (const r of rows) if ((SPEND_RAILS as readonly string[]).includes(r.rail)) out[r.rail as SpendRail] += BigInt(r.amountSat);
    return out;
  }
}

/**
 * Asks the spending caps of the request being served before a payment of `amountSat` on `rail`
 (`other`: a kind of payment no cap is set for, refused to a key with any cap)
 * (`undefined` when the amount is not known yet): throws a 403 when the key's cap refuses it.
 * A no-op outside a request, for the owner token and in no-auth mode. `what` names the payment
 * in the refusal (`the payment`, `the offboard`).
 */
export async function spendingCap(rail: SpendRail | "other", amountSat: bigint | undefined, what = "the payment"): Promise<void> {
  const ctx = currentAccessContext();
  if (!ctx) return;
  await ctx.caps.reserve(ctx, rail, amountSat, what);
}
