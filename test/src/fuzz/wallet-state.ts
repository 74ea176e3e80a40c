/**
 * The wallet's observable state, read through the API: Ark balance and every VTXO, on-chain
 * balance, coins and transactions, the history, pending boards, the next Ark address index
 * (a peek at the index after the highest derived one answers 500 until it is derived), the fingerprint, and notifications
 * raised since the last look (the long-poll, with the daemon's short wait). A refused request
 * must leave all of it unchanged.
 */
import type { HttpClient } from "./http-client.js";

export interface WalletState {
  readonly parts: Readonly<Record<string, string>>;
  /** Movement ids in the history. */
  readonly movementIds: ReadonlySet<number>;
  /** Ids of every VTXO (`?all=true`). */
  readonly vtxoIds: ReadonlySet<string>;
}

const sortBy = <T>(xs: T[], key: (x: T) => string) => [...xs].sort((a, b) => key(a).localeCompare(key(b)));

export class WalletStateReader {
  /** `last_pushed_at` of the newest notification seen so far. */
  private cursor: string | null = null;
  /** Highest Ark address index known to be derived. */
  private index = 0;

  constructor(private readonly http: HttpClient, private readonly token: string) {}

  private async get(path: string, expect = 200): Promise<unknown> {
    const r = await this.http.getJson(path, this.token);
    if (r.status !== expect) throw new Error(`state read GET ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    return r.json;
  }

  /** Notifications newer than the cursor (returns at once when there are some, else after the daemon's short wait). */
  private async newNotifications(advance: boolean): Promise<number> {
    const path = this.cursor === null ? "/api/v1/notifications/wait" : `/api/v1/notifications/wait?since=${encodeURIComponent(this.cursor)}`;
    const r = (await this.get(path)) as { notifications: unknown[]; last_pushed_at: string | null };
    if (advance && r.notifications.length && r.last_pushed_at) this.cursor = r.last_pushed_at;
    return r.notifications.length;
  }

  /**
   * Reads the state. `baseline`: also move the notification cursor past everything raised so far
   * and find the highest derived address index (a baseline is taken after accepted requests).
   */
  async read(baseline: boolean): Promise<WalletState> {
    if (baseline) {
      while (this.index < 10_000) {
        const r = await this.http.getJson(`/api/v1/wallet/addresses/index/${this.index + 1}`, this.token);
        if (r.status !== 200) break;
        this.index++;
      }
    }
    const [balance, vtxos, onchainBalance, utxos, txs, history, pending, peekNext, wallet, notifications] = await Promise.all([
      this.get("/api/v1/wallet/balance"),
      this.get("/api/v1/wallet/vtxos?all=true"),
      this.get("/api/v1/onchain/balance"),
      this.get("/api/v1/onchain/utxos"),
      this.get("/api/v1/onchain/transactions"),
      this.get("/api/v1/history"),
      this.get("/api/v1/boards/pending"),
      this.http.getJson(`/api/v1/wallet/addresses/index/${this.index + 1}`, this.token).then((r) => r.status),
      this.get("/api/v1/wallet"),
      this.newNotifications(baseline),
    ]);
    const vtxoList = vtxos as { id: string }[];
    const movements = history as { id: number }[];
    const parts: Record<string, string> = {
      "GET /wallet/balance": JSON.stringify(balance),
      "GET /wallet/vtxos?all=true": JSON.stringify(sortBy(vtxoList, (v) => v.id)),
      "GET /onchain/balance": JSON.stringify(onchainBalance),
      "GET /onchain/utxos": JSON.stringify(sortBy(utxos as { outpoint: string }[], (u) => u.outpoint)),
      "GET /onchain/transactions": JSON.stringify(sortBy(txs as { txid: string }[], (t) => t.txid)),
      "GET /history": JSON.stringify(movements),
      "GET /boards/pending": JSON.stringify(pending),
      [`peek address ${this.index + 1} (the next index)`]: String(peekNext),
      "GET /wallet": JSON.stringify(wallet),
      "notifications raised": baseline ? "0" : String(notifications),
    };
    return { parts, movementIds: new Set(movements.map((m) => m.id)), vtxoIds: new Set(vtxoList.map((v) => v.id)) };
  }

  /** The parts that differ, each with its before and after (shortened). */
  static diff(before: WalletState, after: WalletState): string[] {
    const out: string[] = [];
    for (const k of new Set([...Object.keys(before.parts), ...Object.keys(after.parts)])) {
      const a = before.parts[k];
      const b = after.parts[k];
      if (a !== b) out.push(`${k}:\n      before ${(a ?? "(absent)").slice(0, 400)}\n      after  ${(b ?? "(absent)").slice(0, 400)}`);
    }
    return out;
  }
}
