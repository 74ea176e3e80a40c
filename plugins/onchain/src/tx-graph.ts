import { Transaction } from "bitcoinjs-lib";
import type { Bip86Keychain } from "./keychain.js";
import type { StoredTx } from "./persistence/stored-tx.js";
import { P2A_SCRIPT_HEX } from "./tx-size.js";

/** Coinbase outputs can be spent after this many confirmations. */
export const COINBASE_MATURITY = 100;
/** Bitcoin Core's default ancestor limit (25 including the new transaction). */
export const MAX_UNCONFIRMED_ANCESTRY = 24;

/** A transaction of the wallet with its decoded form. */
export interface GraphTx {
  stored: StoredTx;
  readonly tx: Transaction;
  readonly isCoinbase: boolean;
}

/** An output the wallet owns and has not spent. */
export interface WalletUtxo {
  readonly txid: string;
  readonly vout: number;
  readonly valueSat: bigint;
  readonly keyIndex: number;
  readonly script: Uint8Array;
  /** `null` while unconfirmed. */
  readonly confirmationHeight: number | null;
  /** Created by a transaction this wallet signed (its change), so no one else can cancel it. */
  readonly trusted: boolean;
  readonly isCoinbase: boolean;
}

/** barkd's `OnchainBalance` buckets, in sats. */
export interface OnchainBalanceSat {
  readonly confirmed: bigint;
  readonly immature: bigint;
  readonly trustedPending: bigint;
  readonly untrustedPending: bigint;
}

/** One wallet transaction as `GET …/transactions` reports it. */
export interface WalletTxSummary {
  readonly txid: string;
  readonly hex: string;
  readonly feeSat: bigint | null;
  /** Received minus sent over wallet-owned outputs. */
  readonly balanceChangeSat: bigint;
  readonly block: { height: number; hash: string } | null;
  readonly isCpfp: boolean;
}

/** Display-order txid of an input's previous output. */
export function prevTxid(input: { hash: Uint8Array }): string {
  return Buffer.from(input.hash).reverse().toString("hex");
}

/**
 * The wallet's transactions in memory, decoded once, with what follows from them: which outputs
 * the wallet owns, which are spent, balances and per-transaction summaries. Conflicted
 * transactions are kept but count for nothing.
 */
export class WalletTxGraph {
  private readonly txs = new Map<string, GraphTx>();

  constructor(private readonly keychain: Bip86Keychain) {}

  /** Adds or updates a transaction (decoding it only the first time). */
  put(stored: StoredTx): GraphTx {
    const known = this.txs.get(stored.txid);
    if (known && known.stored.hex === stored.hex) {
      known.stored = stored;
      return known;
    }
    const tx = Transaction.fromHex(stored.hex);
    const g: GraphTx = { stored, tx, isCoinbase: tx.isCoinbase() };
    this.txs.set(stored.txid, g);
    return g;
  }

  remove(txid: string): void {
    this.txs.delete(txid);
  }

  get(txid: string): GraphTx | undefined {
    return this.txs.get(txid);
  }

  has(txid: string): boolean {
    return this.txs.has(txid);
  }

  get size(): number {
    return this.txs.size;
  }

  all(): GraphTx[] {
    return [...this.txs.values()];
  }

  /** The value and script of output `vout` of a stored transaction, if the wallet has it. */
  prevout(txid: string, vout: number): { valueSat: bigint; script: Uint8Array } | undefined {
    const out = this.txs.get(txid)?.tx.outs[vout];
    return out ? { valueSat: out.value, script: out.script } : undefined;
  }

  /** The wallet key index paying `script`, if any. */
  ownIndex(script: Uint8Array): number | undefined {
    return this.keychain.indexOfScript(Buffer.from(script).toString("hex"));
  }

  /** Whether a transaction spends a pay-to-anchor output (known prevouts only). */
  spendsAnchor(tx: Transaction, prevouts: (txid: string, vout: number) => Uint8Array | undefined): boolean {
    return tx.ins.some((i) => {
      const s = prevouts(prevTxid(i), i.index);
      return s !== undefined && Buffer.from(s).toString("hex") === P2A_SCRIPT_HEX;
    });
  }

  /** Outpoints (`txid:vout`) spent by transactions that are not conflicted (`held`: by held ones only). */
  private spentOutpoints(held = false): Set<string> {
    const spent = new Set<string>();
    for (const g of this.txs.values()) {
      if (g.stored.state === "conflicted" || g.isCoinbase || g.stored.held !== held) continue;
      for (const i of g.tx.ins) spent.add(`${prevTxid(i)}:${i.index}`);
    }
    return spent;
  }

  /** The wallet's unspent outputs (of transactions that are neither conflicted nor held). */
  utxos(): WalletUtxo[] {
    const spent = this.spentOutpoints();
    const out: WalletUtxo[] = [];
    for (const g of this.txs.values()) {
      if (g.stored.state === "conflicted" || g.stored.held) continue;
      g.tx.outs.forEach((o, vout) => {
        const keyIndex = this.ownIndex(o.script);
        if (keyIndex === undefined || spent.has(`${g.stored.txid}:${vout}`)) return;
        out.push({
          txid: g.stored.txid, vout, valueSat: o.value, keyIndex, script: o.script,
          confirmationHeight: g.stored.state === "confirmed" ? (g.stored.block?.height ?? null) : null,
          trusted: g.stored.origin === "wallet", isCoinbase: g.isCoinbase,
        });
      });
    }
    return out;
  }

  /** Whether a coinbase output confirmed at `height` is still immature at `tipHeight`. */
  static immature(u: WalletUtxo, tipHeight: number): boolean {
    return u.isCoinbase && (u.confirmationHeight === null || tipHeight - u.confirmationHeight + 1 < COINBASE_MATURITY);
  }

  /** The balance buckets at `tipHeight`. */
  balance(tipHeight: number): OnchainBalanceSat {
    let confirmed = 0n, immature = 0n, trustedPending = 0n, untrustedPending = 0n;
    for (const u of this.utxos()) {
      if (WalletTxGraph.immature(u, tipHeight)) immature += u.valueSat;
      else if (u.confirmationHeight !== null) confirmed += u.valueSat;
      else if (u.trusted) trustedPending += u.valueSat;
      else untrustedPending += u.valueSat;
    }
    return { confirmed, immature, trustedPending, untrustedPending };
  }

  /**
   * Outputs the wallet may spend now: confirmed mature ones and, unless `confirmedOnly`, unconfirmed
   * change of its own transactions — except change of a v3 (TRUC) transaction, whose child would
   * have to be v3 too, and change whose unconfirmed ancestry is already at the mempool's chain
   * limit.
   */
  spendable(tipHeight: number, confirmedOnly = false): WalletUtxo[] {
    const reserved = this.spentOutpoints(true);
    return this.utxos().filter((u) => {
      if (WalletTxGraph.immature(u, tipHeight) || reserved.has(`${u.txid}:${u.vout}`)) return false;
      if (u.confirmationHeight !== null) return true;
      if (confirmedOnly || !u.trusted) return false;
      const g = this.txs.get(u.txid);
      return g !== undefined && g.tx.version !== 3 && this.unconfirmedAncestry(u.txid) < MAX_UNCONFIRMED_ANCESTRY;
    });
  }

  /** How many unconfirmed wallet transactions `txid` is plus its unconfirmed ancestors (0 when confirmed). */
  unconfirmedAncestry(txid: string): number {
    const seen = new Set<string>();
    const stack = [txid];
    while (stack.length) {
      const id = stack.pop()!;
      const g = this.txs.get(id);
      if (!g || seen.has(id) || g.stored.state !== "pending") continue;
      seen.add(id);
      for (const i of g.tx.ins) stack.push(prevTxid(i));
    }
    return seen.size;
  }

  /** Every transaction that is not conflicted, oldest first: confirmed by height, then unconfirmed by first sight. */
  summaries(): WalletTxSummary[] {
    const live = [...this.txs.values()].filter((g) => g.stored.state !== "conflicted" && !g.stored.held);
    live.sort((a, b) => {
      const ha = a.stored.state === "confirmed" ? (a.stored.block?.height ?? 0) : Number.MAX_SAFE_INTEGER;
      const hb = b.stored.state === "confirmed" ? (b.stored.block?.height ?? 0) : Number.MAX_SAFE_INTEGER;
      return ha - hb || a.stored.firstSeenMs - b.stored.firstSeenMs || (a.stored.txid < b.stored.txid ? -1 : 1);
    });
    return live.map((g) => {
      let change = 0n;
      for (const o of g.tx.outs) if (this.ownIndex(o.script) !== undefined) change += o.value;
      if (!g.isCoinbase) {
        for (const i of g.tx.ins) {
          const prev = this.prevout(prevTxid(i), i.index);
          if (prev && this.ownIndex(prev.script) !== undefined) change -= prev.valueSat;
        }
      }
      return {
        txid: g.stored.txid, hex: g.stored.hex, feeSat: g.stored.feeSat, balanceChangeSat: change,
        block: g.stored.state === "confirmed" && g.stored.block ? { height: g.stored.block.height, hash: g.stored.block.hash } : null,
        isCpfp: g.stored.isCpfp,
      };
    });
  }
}
