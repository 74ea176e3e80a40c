/**
 * Offboard sessions between `PrepareOffboard` and `FinishOffboard`, in memory, keyed by the
 * offboard txid. A session holds its input VTXOs (flux locks) and its wallet coins until it
 * expires (`offboard_session_timeout`). It is signed at most once: `FinishOffboard` turns it
 * into a tombstone before signing, and a signed session keeps the signed tx so a retried finish
 * gets the same answer until the session expires.
 */
import type { MusigNonce, OffboardRequest, Transaction, Vtxo } from "@tender/ark-protocol";
import type { WalletCoin } from "../rounds/round-funding.js";

/** One session. */
export interface OffboardSession {
  readonly txid: string;
  /** Request and inputs, canonically encoded: an identical prepare has the same key. */
  readonly requestKey: string;
  readonly request: OffboardRequest;
  readonly inputIds: readonly string[];
  readonly vtxos: readonly Vtxo[];
  readonly unsignedTx: Transaction;
  readonly coins: readonly WalletCoin[];
  readonly connectorSecret: Uint8Array;
  readonly nonces: readonly MusigNonce[];
  readonly expiresAtMs: number;
  /** `prepared` → `signing` (tombstone: never signed twice) → `finished` (replayable) */
  state: "prepared" | "signing" | "finished";
  signedTx?: Uint8Array;
  /** Whether the input VTXOs' flux locks are still held by this session. */
  holdsInputs: boolean;
}

/** The live sessions. */
export class OffboardSessions {
  private readonly byTxid = new Map<string, OffboardSession>();

  add(s: OffboardSession): void {
    this.byTxid.set(s.txid, s);
  }

  get(txid: string): OffboardSession | undefined {
    return this.byTxid.get(txid);
  }

  /** The pending (not yet signed) session of an identical request, if any. */
  pendingFor(requestKey: string): OffboardSession | undefined {
    for (const s of this.byTxid.values()) if (s.state === "prepared" && s.requestKey === requestKey) return s;
    return undefined;
  }

  /** Wallet coins (`txid:vout`) held by live sessions. */
  heldCoins(): Set<string> {
    const out = new Set<string>();
    for (const s of this.byTxid.values()) for (const c of s.coins) out.add(`${c.txid}:${c.vout}`);
    return out;
  }

  /** Removes and returns the sessions expired at `nowMs`. */
  takeExpired(nowMs: number): OffboardSession[] {
    const out: OffboardSession[] = [];
    for (const [txid, s] of this.byTxid) {
      if (s.expiresAtMs > nowMs) continue;
      this.byTxid.delete(txid);
      out.push(s);
    }
    return out;
  }

  /** Removes every session (at shutdown). */
  clear(): OffboardSession[] {
    const all = [...this.byTxid.values()];
    this.byTxid.clear();
    return all;
  }
}
