import type { Psbt } from "bitcoinjs-lib";
import { AsyncLock, ChainSourceRejectedError, InternalServerError, certainlyNotProcessed, type ChainSource, type Logger } from "@tender/core";
import { ADDRESS_GAP, REBROADCAST_GRACE_MS, markConflicted, refreshUnspentStatus, syncWallet, type SyncReport } from "./chain-sync.js";
import { selectCoins, spendWeight, type SpendTarget } from "./coin-selection.js";
import { destinationScript } from "./destination.js";
import { MAX_MONEY_SAT } from "./amount.js";
import { CpfpChildTooLargeError, DustOutputError, InsufficientFundsError, InvalidAmountError, NoDestinationsError } from "./errors.js";
import { fallbackRates, fetchFeeRates, type OnchainFeeRates } from "./fee-rates.js";
import type { Bip86Keychain } from "./keychain.js";
import type { OnchainStore, StoredTx } from "./persistence/stored-tx.js";
import { signSpend, type AnchorInput, type SignedSpend } from "./tx-builder.js";
import { WalletTxGraph, prevTxid, type OnchainBalanceSat, type WalletTxSummary, type WalletUtxo } from "./tx-graph.js";
import { P2A_INPUT_WEIGHT, dustLimitSat, feeFor, vsizeOf } from "./tx-size.js";

/** BIP-431: a child of an unconfirmed TRUC (v3) transaction may be at most 1000 vB. */
export const TRUC_CHILD_MAX_VSIZE = 1_000;

/** Settings of an {@link OnchainWallet}. */
export interface OnchainWalletOptions {
  readonly rebroadcastGraceMs?: number;
  /** sat/vB used when the chain source has no estimate. Default 1. */
  readonly fallbackFeeRateSatPerVb?: number;
  readonly now?: () => number;
}

/** One payment of a send. */
export interface Payment {
  readonly address: string;
  readonly amountSat: bigint;
}

/** A request to fund a CPFP child for a parent with a pay-to-anchor output (exits). */
export interface CpfpRequest {
  /** The parent's P2A output. */
  readonly anchor: AnchorInput;
  /** Virtual size and fee of the parent (or of all unconfirmed ancestors together). */
  readonly parentVsize: number;
  readonly parentFeeSat: bigint;
  /** Target package fee rate, sat/vB. */
  readonly satPerVb: number;
  /** Transaction version of the child: 3 (TRUC) for v3 parents. Default 3. */
  readonly version?: number;
  /**
   * Txid of this wallet's child being replaced (RBF): the confirmed wallet coins it spends may be
   * spent again by the new child. The caller calls {@link OnchainWallet.markReplaced} once the
   * replacement is accepted.
   */
  readonly replaces?: string;
  /** The least fee the child must pay (a replacement pays more than what it replaces). */
  readonly minFeeSat?: bigint;
}

/**
 * The daemon's BIP-86 on-chain wallet for the loaded wallet: addresses, balance, coins and
 * history from its stored transactions, sends (persisted before broadcast), sync with the chain
 * source, cached fee rates, and CPFP funding for other plugins. Every operation that changes state
 * runs alone.
 */
export class OnchainWallet {
  private readonly lock = new AsyncLock();
  readonly graph: WalletTxGraph;
  private nextIndex = 0;
  private tipHeight = 0;
  private rates: OnchainFeeRates;
  private readonly graceMs: number;
  private readonly fallbackSatPerVb: number;
  private readonly now: () => number;

  private constructor(
    readonly keychain: Bip86Keychain,
    private readonly source: ChainSource,
    private readonly store: OnchainStore,
    private readonly logger: Logger,
    options: OnchainWalletOptions,
  ) {
    this.graph = new WalletTxGraph(keychain);
    this.graceMs = options.rebroadcastGraceMs ?? REBROADCAST_GRACE_MS;
    this.fallbackSatPerVb = options.fallbackFeeRateSatPerVb ?? 1;
    this.now = options.now ?? Date.now;
    this.rates = fallbackRates(this.fallbackSatPerVb);
  }

  /** Loads the wallet's stored state (no network call). */
  static async open(keychain: Bip86Keychain, source: ChainSource, store: OnchainStore, logger: Logger, options: OnchainWalletOptions = {}): Promise<OnchainWallet> {
    const w = new OnchainWallet(keychain, source, store, logger, options);
    w.nextIndex = (await store.loadState()).nextIndex;
    keychain.deriveUpTo(w.nextIndex + ADDRESS_GAP);
    for (const t of await store.loadTxs()) {
      w.graph.put(t);
      if (t.block) w.tipHeight = Math.max(w.tipHeight, t.block.height);
    }
    return w;
  }

  /** Reveals and persists the next external address. */
  nextAddress(): Promise<string> {
    return this.lock.run(async () => {
      const key = this.keychain.key(this.nextIndex);
      await this.store.saveState({ nextIndex: this.nextIndex + 1 });
      this.nextIndex++;
      this.keychain.deriveUpTo(this.nextIndex + ADDRESS_GAP);
      return key.address;
    });
  }

  /** Balance buckets from memory (never fails). */
  balance(): OnchainBalanceSat {
    return this.graph.balance(this.tipHeight);
  }

  utxos(): WalletUtxo[] {
    return this.graph.utxos();
  }

  transactions(): WalletTxSummary[] {
    return this.graph.summaries();
  }

  /** The cached rates (refreshed by sync and before sends). */
  feeRates(): OnchainFeeRates {
    return this.rates;
  }

  /**
   * Coins that may be spent now, by the stored state (`confirmedOnly` for TRUC children, whose
   * other inputs must be confirmed); a spend selects from {@link freshSpendableUtxos} instead.
   */
  spendableUtxos(confirmedOnly = false): WalletUtxo[] {
    return this.graph.spendable(this.tipHeight, confirmedOnly);
  }

  /**
   * The coins a spend may choose from, after bringing their state up to date with the chain
   * source (a coin mined since the last sync is spendable, as the balance shows it; see
   * `refreshUnspentStatus`). Every spend of this wallet selects from this list; other plugins that
   * build transactions from its coins (boards) call it too. With the source unreachable the stored
   * state is used (a warning is logged): the broadcast will tell.
   */
  freshSpendableUtxos(confirmedOnly = false): Promise<WalletUtxo[]> {
    return this.lock.run(() => this.refreshedSpendable(confirmedOnly));
  }

  /** {@link freshSpendableUtxos} for callers that hold the lock. */
  private async refreshedSpendable(confirmedOnly = false): Promise<WalletUtxo[]> {
    try {
      this.tipHeight = await refreshUnspentStatus({ source: this.source, graph: this.graph, store: this.store });
    } catch (e) {
      this.logger.warn(`could not refresh the coins' state before a spend, using the stored state: ${e instanceof Error ? e.message : String(e)}`);
    }
    return this.spendableUtxos(confirmedOnly);
  }

  /** Refreshes the cached fee rates; keeps the old ones when the source fails. */
  async refreshFeeRates(): Promise<OnchainFeeRates> {
    try {
      this.rates = await fetchFeeRates(this.source, this.fallbackSatPerVb);
    } catch (e) {
      this.logger.warn(`fee estimates unavailable, keeping cached rates: ${e instanceof Error ? e.message : String(e)}`);
    }
    return this.rates;
  }

  /** Full sync with the chain source, re-broadcast of stale unconfirmed transactions, fee rates. */
  sync(): Promise<SyncReport> {
    return this.lock.run(async () => {
      const report = await syncWallet({
        source: this.source, keychain: this.keychain, graph: this.graph, store: this.store, logger: this.logger,
        revealed: this.nextIndex, now: this.now, rebroadcastGraceMs: this.graceMs,
      });
      this.tipHeight = report.tipHeight;
      if (report.usedIndexes > this.nextIndex) {
        this.nextIndex = report.usedIndexes;
        await this.store.saveState({ nextIndex: this.nextIndex });
      }
      this.rates = await fetchFeeRates(this.source, this.fallbackSatPerVb);
      return report;
    });
  }

  private parsePayments(payments: readonly Payment[]): { script: Uint8Array; valueSat: bigint }[] {
    if (payments.length === 0) throw new NoDestinationsError();
    return payments.map((p) => {
      const script = destinationScript(p.address, this.keychain.network, this.keychain.walletNetwork);
      // as send-many's amount parser refuses it: no such amount exists
      if (p.amountSat > MAX_MONEY_SAT) throw new InvalidAmountError(`${p.amountSat} sat is more than 21 million BTC`);
      const dust = dustLimitSat(script);
      if (p.amountSat < dust) throw new DustOutputError(p.amountSat, dust);
      return { script, valueSat: p.amountSat };
    });
  }

  /** Pays `payments` in one transaction at the regular (3-block) rate; returns its txid. */
  async send(payments: readonly Payment[]): Promise<string> {
    const outputs = this.parsePayments(payments);
    return this.lock.run(async () => {
      const rate = (await this.refreshFeeRates()).regularSatPerVb;
      const change = this.keychain.key(this.nextIndex);
      const sel = selectCoins(await this.refreshedSpendable(), { outputs, satPerVb: rate, changeScript: change.script });
      const outs = sel.changeSat > 0n ? [...outputs, { script: change.script, valueSat: sel.changeSat }] : outputs;
      if (sel.changeSat > 0n) await this.revealChange();
      const signed = signSpend({ inputs: sel.inputs, outputs: outs }, this.keychain, this.keychain.network);
      return this.persistAndBroadcast(signed, false);
    });
  }

  /** Sends every spendable coin, minus the fee, to `address`. */
  async drain(address: string): Promise<string> {
    const script = destinationScript(address, this.keychain.network, this.keychain.walletNetwork);
    return this.lock.run(async () => {
      const rate = (await this.refreshFeeRates()).regularSatPerVb;
      const inputs = await this.refreshedSpendable();
      const total = inputs.reduce((s, u) => s + u.valueSat, 0n);
      const target: SpendTarget = { outputs: [{ script, valueSat: 0n }], satPerVb: rate, changeScript: script };
      const fee = feeFor(spendWeight(target, Math.max(1, inputs.length), false), rate);
      const amount = total - fee;
      if (inputs.length === 0 || amount < dustLimitSat(script)) throw new InsufficientFundsError(fee + dustLimitSat(script), total);
      const signed = signSpend({ inputs, outputs: [{ script, valueSat: amount }] }, this.keychain, this.keychain.network);
      return this.persistAndBroadcast(signed, false);
    });
  }

  /**
   * Builds, signs and stores (unbroadcast) a CPFP child spending `anchor` plus confirmed wallet
   * coins, paying the package up to `satPerVb`, with change back to the wallet. The caller submits
   * `[parent, child]` as a package and then calls {@link markBroadcast}; the child shows as
   * `is_cpfp` in the transaction list.
   */
  fundCpfpChild(req: CpfpRequest): Promise<SignedSpend> {
    return this.lock.run(async () => {
      const change = this.keychain.key(this.nextIndex);
      const parentNeeds = feeFor(req.parentVsize * 4, req.satPerVb) - req.parentFeeSat;
      const candidates = [...await this.refreshedSpendable(true), ...this.confirmedInputsOf(req.replaces)];
      let extraFeeSat = parentNeeds > 0n ? parentNeeds : 0n;
      let sel = selectCoins(candidates, {
        outputs: [], satPerVb: req.satPerVb, changeScript: change.script,
        extraInputs: { weight: P2A_INPUT_WEIGHT, valueSat: req.anchor.valueSat, count: 1 }, extraFeeSat, requireChange: true,
      });
      // a replacement pays at least `minFeeSat`; more inputs may raise the fee, so select again until it holds
      for (let i = 0; i < 8 && req.minFeeSat !== undefined && sel.feeSat < req.minFeeSat; i++) {
        extraFeeSat += req.minFeeSat - sel.feeSat;
        sel = selectCoins(candidates, {
          outputs: [], satPerVb: req.satPerVb, changeScript: change.script,
          extraInputs: { weight: P2A_INPUT_WEIGHT, valueSat: req.anchor.valueSat, count: 1 }, extraFeeSat, requireChange: true,
        });
      }
      if (vsizeOf(sel.weight) > TRUC_CHILD_MAX_VSIZE) throw new CpfpChildTooLargeError(vsizeOf(sel.weight));
      await this.revealChange();
      const signed = signSpend({
        inputs: sel.inputs, anchors: [req.anchor], outputs: [{ script: change.script, valueSat: sel.changeSat }], version: req.version ?? 3,
      }, this.keychain, this.keychain.network);
      await this.remember(signed, true, null, true);
      return signed;
    });
  }

  /**
   * Stores a transaction another plugin signed with this wallet's coins (see `signSpend`,
   * {@link signPsbt}) and will broadcast itself, such as a board funding transaction: its inputs
   * are reserved at once, so no other spend takes them. It is listed and counted once
   * {@link markBroadcast} is called or a sync sees it on chain; {@link abandon} releases it.
   */
  hold(signed: SignedSpend, options: { isCpfp?: boolean } = {}): Promise<void> {
    return this.lock.run(async () => {
      if (this.graph.has(signed.txid)) return;
      await this.remember(signed, options.isCpfp ?? false, null, true);
    });
  }

  /**
   * Signs, by the BIP-86 key path, every input of `psbt` that spends an output of this wallet
   * (recognised by its `witnessUtxo` script) and is not signed yet; other inputs are left alone.
   * Returns the indexes signed. The PSBT needs `witnessUtxo` on every input (taproot sighash).
   */
  signPsbt(psbt: Psbt): number[] {
    const signed: number[] = [];
    psbt.data.inputs.forEach((input, i) => {
      const script = input.witnessUtxo?.script;
      if (!script || input.tapKeySig || input.finalScriptWitness) return;
      const index = this.keychain.indexOfScript(Buffer.from(script).toString("hex"));
      if (index === undefined) return;
      psbt.updateInput(i, { tapInternalKey: this.keychain.key(index).internalKey });
      psbt.signInput(i, this.keychain.signer(index));
      signed.push(i);
    });
    return signed;
  }

  /**
   * Confirmed wallet coins spent by the wallet transaction `txid` (none when it is unknown, held,
   * or conflicted): the coins a replacement of it may spend again.
   */
  private confirmedInputsOf(txid: string | undefined): WalletUtxo[] {
    const g = txid === undefined ? undefined : this.graph.get(txid);
    if (!g || g.stored.held || g.stored.state === "conflicted") return [];
    const coins: WalletUtxo[] = [];
    for (const i of g.tx.ins) {
      const parent = this.graph.get(prevTxid(i));
      const out = parent?.tx.outs[i.index];
      const keyIndex = out ? this.graph.ownIndex(out.script) : undefined;
      if (!parent || !out || keyIndex === undefined || parent.stored.state !== "confirmed" || !parent.stored.block) continue;
      const coin: WalletUtxo = {
        txid: parent.stored.txid, vout: i.index, valueSat: out.value, keyIndex, script: out.script,
        confirmationHeight: parent.stored.block.height, trusted: parent.stored.origin === "wallet", isCoinbase: parent.isCoinbase,
      };
      if (!WalletTxGraph.immature(coin, this.tipHeight)) coins.push(coin);
    }
    return coins;
  }

  /**
   * Records that the wallet transaction `txid` was replaced (e.g. a CPFP child by a higher-fee
   * one the network accepted): it and its descendants are conflicted, so their coins and change
   * no longer count.
   */
  markReplaced(txid: string): Promise<void> {
    return this.lock.run(async () => {
      if (!this.graph.has(txid)) return;
      const changed = markConflicted(this.graph, txid).map((id) => this.graph.get(id)!.stored);
      if (changed.length > 0) await this.store.saveTxs(changed);
    });
  }

  /** Records that a held transaction ({@link fundCpfpChild}, {@link hold}) was handed to the network. */
  markBroadcast(txid: string): Promise<void> {
    return this.lock.run(async () => {
      const g = this.graph.get(txid);
      if (!g) return;
      g.stored = { ...g.stored, lastBroadcastMs: this.now(), held: false };
      await this.store.saveTxs([g.stored]);
    });
  }

  /** Forgets a held transaction that will never be broadcast (e.g. a refused package), releasing its inputs. */
  abandon(txid: string): Promise<void> {
    return this.lock.run(async () => {
      const g = this.graph.get(txid);
      if (!g || !g.stored.held) return;
      await this.store.deleteTx(txid);
      this.graph.remove(txid);
    });
  }

  private async revealChange(): Promise<void> {
    await this.store.saveState({ nextIndex: this.nextIndex + 1 });
    this.nextIndex++;
    this.keychain.deriveUpTo(this.nextIndex + ADDRESS_GAP);
  }

  private async remember(signed: SignedSpend, isCpfp: boolean, broadcastAt: number | null, held = false): Promise<StoredTx> {
    const stored: StoredTx = {
      txid: signed.txid, hex: signed.hex, origin: "wallet", state: "pending", block: null,
      feeSat: signed.feeSat, isCpfp, firstSeenMs: this.now(), lastBroadcastMs: broadcastAt, held,
    };
    await this.store.saveTxs([stored]);
    this.graph.put(stored);
    return stored;
  }

  /**
   * Persists the signed transaction, then broadcasts it, and answers its txid whenever the wallet
   * keeps it — so a caller is never told "failed" about a transaction that may still be paid:
   * - accepted → stored as broadcast;
   * - refused by the node (and not already known to it) → removed again, nothing is spent, and
   *   the refusal is thrown (500 with the node's reason);
   * - the source certainly did not get it (nothing listening, no such host, bitcoind warming up)
   *   → removed again, nothing is spent, and the outage is thrown (500);
   * - anything else (a timeout, a connection lost before the answer) → it may have reached a node:
   *   kept as a pending wallet transaction, listed and counted, re-broadcast by the next sync,
   *   and its txid is answered.
   */
  private async persistAndBroadcast(signed: SignedSpend, isCpfp: boolean): Promise<string> {
    const stored = await this.remember(signed, isCpfp, null);
    const forget = async () => {
      await this.store.deleteTx(stored.txid);
      this.graph.remove(stored.txid);
    };
    try {
      await this.source.broadcast(signed.hex);
    } catch (e) {
      if (e instanceof ChainSourceRejectedError) {
        // A refusal after an earlier attempt went through (e.g. already in the chain) is no refusal.
        if (!(await this.knownToSource(stored.txid))) {
          await forget();
          throw new InternalServerError(`Failed to send onchain payment: ${e.reason}`);
        }
      } else if (certainlyNotProcessed(e)) {
        await forget();
        throw new InternalServerError(`Failed to send onchain payment: ${e instanceof Error ? e.message : String(e)}; nothing was broadcast or spent`);
      } else {
        this.logger.warn(`broadcast of ${stored.txid} may not have reached a node (${e instanceof Error ? e.message : String(e)}); ` +
          "it is kept as a pending wallet transaction and re-broadcast by the next sync");
        return signed.txid;
      }
    }
    stored.lastBroadcastMs = this.now();
    await this.store.saveTxs([stored]);
    return signed.txid;
  }

  /** Whether the source has `txid` (mempool or chain); `false` when it cannot tell. */
  private async knownToSource(txid: string): Promise<boolean> {
    try {
      return (await this.source.getTxStatus(txid)) !== null;
    } catch {
      return false;
    }
  }
}
