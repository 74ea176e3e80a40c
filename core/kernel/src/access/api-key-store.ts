import type { Database } from "../persistence/database.js";
import { LeanSql } from "../persistence/lean-sql.js";
import { ApiAuditRecord, ApiKeyRecord } from "./access-records.js";
import { API_SCOPES, SPEND_RAILS, type ApiKey, type ApiScope, type SpendingCaps } from "./api-key.js";

function toKey(r: ApiKeyRecord): ApiKey {
  return {
    id: r.id,
    name: r.name ?? undefined,
    scopes: r.scopes.split(",").filter((s): s is ApiScope => (API_SCOPES as readonly string[]).includes(s)),
    caps: r.caps ? parseCaps(r.caps) : {},
    createdAt: Number(r.createdAt),
    expiresAt: r.expiresAt == null ? undefined : Number(r.expiresAt),
    revokedAt: r.revokedAt == null ? undefined : Number(r.revokedAt),
    secretHash: r.secretHash,
  };
}

function parseCaps(json: string): SpendingCaps {
  const raw = JSON.parse(json) as Record<string, { per_payment_sat?: string; per_day_sat?: string }>;
  const out: SpendingCaps = {};
  for (const rail of SPEND_RAILS) {
    const c = raw[rail];
    if (!c) continue;
    out[rail] = {
      ...(c.per_payment_sat !== undefined ? { perPaymentSat: BigInt(c.per_payment_sat) } : {}),
      ...(c.per_day_sat !== undefined ? { perDaySat: BigInt(c.per_day_sat) } : {}),
    };
  }
  return out;
}

function capsJson(caps: SpendingCaps): string | null {
  const out: Record<string, Record<string, string>> = {};
  for (const rail of SPEND_RAILS) {
    const c = caps[rail];
    if (!c) continue;
    out[rail] = {
      ...(c.perPaymentSat !== undefined ? { per_payment_sat: c.perPaymentSat.toString() } : {}),
      ...(c.perDaySat !== undefined ? { per_day_sat: c.perDaySat.toString() } : {}),
    };
  }
  return Object.keys(out).length ? JSON.stringify(out) : null;
}

/** One audit log entry. */
export interface AuditEntry {
  id: number;
  keyId: string | undefined;
  method: string;
  path: string;
  status: number;
  at: number;
}

/** The API key and audit tables of the wallet database. */
export class ApiKeyStore {
  private readonly auditRows: LeanSql;

  constructor(private readonly db: Database) {
    this.auditRows = new LeanSql(db, "kernel_api_audit");
  }

  get isOpen(): boolean {
    return this.db.isOpen;
  }

  async insert(key: ApiKey): Promise<void> {
    const em = this.db.em();
    em.create(ApiKeyRecord, {
      id: key.id, name: key.name ?? null, secretHash: key.secretHash, scopes: key.scopes.join(","), caps: capsJson(key.caps),
      createdAt: BigInt(key.createdAt), expiresAt: key.expiresAt === undefined ? null : BigInt(key.expiresAt), revokedAt: null,
    });
    await em.flush();
  }

  async find(id: string): Promise<ApiKey | undefined> {
    const r = await this.db.em().findOne(ApiKeyRecord, { id });
    return r ? toKey(r) : undefined;
  }

  async list(): Promise<ApiKey[]> {
    return (await this.db.em().find(ApiKeyRecord, {}, { orderBy: { createdAt: "asc", id: "asc" } })).map(toKey);
  }

  /** Marks the key revoked (kept, so the audit log still names it). Returns it, `undefined` when unknown. */
  async revoke(id: string, at: number): Promise<ApiKey | undefined> {
    const em = this.db.em();
    const r = await em.findOne(ApiKeyRecord, { id });
    if (!r) return undefined;
    if (r.revokedAt == null) {
      r.revokedAt = BigInt(at);
      await em.flush();
    }
    return toKey(r);
  }

  async audit(entry: Omit<AuditEntry, "id">): Promise<void> {
    await this.auditMany([entry]);
  }

  /** Appends entries in the given order with one statement (one commit), in plain SQL. */
  async auditMany(entries: readonly Omit<AuditEntry, "id">[]): Promise<void> {
    for (let i = 0; i < entries.length; i += 200) {
      const part = entries.slice(i, i + 200);
      await this.auditRows.run(
        `insert into {t} (key_id, method, path, status, at) values ${part.map(() => "(?, ?, ?, ?, ?)").join(", ")}`,
        part.flatMap((e) => [e.keyId ?? null, e.method, e.path, e.status, e.at]),
      );
    }
  }

  /** Deletes the audit entries recorded before `beforeMs`; answers how many. */
  async pruneAudit(beforeMs: number): Promise<number> {
    return this.db.em().nativeDelete(ApiAuditRecord, { at: { $lt: BigInt(beforeMs) } });
  }

  /** Audit entries newest first, those with an id below `before` (all when undefined), at most `limit`. */
  async auditPage(limit: number, before: number | undefined, keyId: string | undefined): Promise<AuditEntry[]> {
    const where: Record<string, unknown> = {};
    if (before !== undefined) where.id = { $lt: before };
    if (keyId !== undefined) where.keyId = keyId === "owner" ? null : keyId;
    const rows = await this.db.em().find(ApiAuditRecord, where, { orderBy: { id: "desc" }, limit });
    return rows.map((r) => ({ id: Number(r.id), keyId: r.keyId ?? undefined, method: r.method, path: r.path, status: r.status, at: Number(r.at) }));
  }
}
