import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration, type Database } from "@tender/core";

/**
 * One row of `lightning_paid_invoice`: an invoice this wallet paid, with the preimage the server
 * handed over. Kept forever: it is the proof of payment, and it refuses paying the invoice again.
 */
@Entity({ tableName: "lightning_paid_invoice" })
export class PaidInvoiceRow {
  /** The payment hash (hex). */
  @PrimaryKey({ type: "string", length: 64, fieldName: "payment_hash" })
  paymentHash!: string;

  @Property({ type: "text" })
  invoice!: string;

  /** The preimage (hex), hashing to {@link paymentHash}. */
  @Property({ type: "string", length: 64 })
  preimage!: string;

  @Property({ type: "bigint", fieldName: "paid_at_ms" })
  paidAtMs!: bigint;
}

/** Records `invoice` paid with `preimage` (kept when already recorded); joins the caller's transaction. */
export async function recordPaidInvoice(db: Database, paid: { paymentHash: string; invoice: string; preimage: string }): Promise<void> {
  const em = db.em();
  if (await em.findOne(PaidInvoiceRow, { paymentHash: paid.paymentHash })) return;
  em.create(PaidInvoiceRow, { ...paid, paidAtMs: BigInt(Date.now()) });
  await em.flush();
}

/** Creates `lightning_paid_invoice` (SQLite and PostgreSQL). */
export const lightningPaidInvoiceMigration = defineMigration({
  name: "lightning_0001_paid_invoices",
  up: () => [
    `create table lightning_paid_invoice (
      payment_hash varchar(64) primary key,
      invoice text not null,
      preimage varchar(64) not null,
      paid_at_ms bigint not null
    )`,
  ],
});

export const LIGHTNING_ENTITIES = [PaidInvoiceRow];
export const LIGHTNING_MIGRATIONS = [lightningPaidInvoiceMigration];
