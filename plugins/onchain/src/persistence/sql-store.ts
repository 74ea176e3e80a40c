import type { Database } from "@tender/core";
import { OnchainStateRow, OnchainTxRow } from "./entities.js";
import type { OnchainStateRecord, OnchainStore, StoredTx, WalletTxOrigin, WalletTxState } from "./stored-tx.js";

function toStored(r: OnchainTxRow): StoredTx {
  return {
    txid: r.txid, hex: r.hex, origin: r.origin as WalletTxOrigin, state: r.state as WalletTxState,
    block: r.blockHeight !== null && r.blockHash !== null ? { height: r.blockHeight, hash: r.blockHash, time: Number(r.blockTime ?? 0n) } : null,
    feeSat: r.feeSat === null ? null : BigInt(r.feeSat), isCpfp: !!r.isCpfp,
    firstSeenMs: Number(r.firstSeenMs), lastBroadcastMs: r.lastBroadcastMs === null ? null : Number(r.lastBroadcastMs),
    held: !!r.held,
  };
}

function fill(r: OnchainTxRow, t: StoredTx): void {
  r.hex = t.hex;
  r.origin = t.origin;
  r.state = t.state;
  r.blockHeight = t.block?.height ?? null;
  r.blockHash = t.block?.hash ?? null;
  r.blockTime = t.block ? BigInt(t.block.time) : null;
  r.feeSat = t.feeSat;
  r.isCpfp = t.isCpfp;
  r.firstSeenMs = BigInt(t.firstSeenMs);
  r.lastBroadcastMs = t.lastBroadcastMs === null ? null : BigInt(t.lastBroadcastMs);
  r.held = t.held;
}

/** The {@link OnchainStore} in the wallet database (`onchain_tx`, `onchain_state`). */
export class SqlOnchainStore implements OnchainStore {
  constructor(private readonly db: Database) {}

  async loadTxs(): Promise<StoredTx[]> {
    return (await this.db.em().find(OnchainTxRow, {})).map(toStored);
  }

  async saveTxs(txs: readonly StoredTx[]): Promise<void> {
    if (txs.length === 0) return;
    const em = this.db.em();
    const existing = new Map<string, OnchainTxRow>();
    for (let i = 0; i < txs.length; i += 500) {
      const ids = txs.slice(i, i + 500).map((t) => t.txid);
      for (const r of await em.find(OnchainTxRow, { txid: { $in: ids } })) existing.set(r.txid, r);
    }
    for (const t of txs) {
      let row = existing.get(t.txid);
      if (!row) {
        row = new OnchainTxRow();
        row.txid = t.txid;
        fill(row, t);
        em.persist(row);
      } else {
        fill(row, t);
      }
    }
    await em.flush();
  }

  async deleteTx(txid: string): Promise<void> {
    await this.db.em().nativeDelete(OnchainTxRow, { txid });
  }

  async loadState(): Promise<OnchainStateRecord> {
    const row = await this.db.em().findOne(OnchainStateRow, { id: 1 });
    return { nextIndex: row?.nextIndex ?? 0 };
  }

  async saveState(state: OnchainStateRecord): Promise<void> {
    const em = this.db.em();
    const row = await em.findOne(OnchainStateRow, { id: 1 });
    if (row) row.nextIndex = state.nextIndex;
    else em.persist(Object.assign(new OnchainStateRow(), { id: 1, nextIndex: state.nextIndex }));
    await em.flush();
  }
}
