import { LeanSql, type Database } from "@tender/core";

/**
 * The wallet's mailbox checkpoint (`ark_state.mailbox_checkpoint`, the one row `id = 1`) by plain
 * SQL: no entity manager bookkeeping for a value every received message reads and moves. Inside
 * `Database.transaction` both join the transaction, so the checkpoint can commit together with
 * what its message stored.
 */
export class MailboxCheckpointStore {
  private readonly sql: LeanSql;

  constructor(db: Database) {
    this.sql = new LeanSql(db, "ark_state");
  }

  /** The stored checkpoint (0 before any message). */
  async read(): Promise<bigint> {
    const rows = await this.sql.all<{ mailbox_checkpoint: number | string | bigint }>("select mailbox_checkpoint from {t} where id = 1");
    return rows[0] ? BigInt(rows[0].mailbox_checkpoint) : 0n;
  }

  /** Moves the checkpoint to `checkpoint`, never backwards. */
  async advance(checkpoint: bigint): Promise<void> {
    await this.sql.run("update {t} set mailbox_checkpoint = ? where id = 1 and mailbox_checkpoint < ?", [checkpoint, checkpoint]);
  }
}
