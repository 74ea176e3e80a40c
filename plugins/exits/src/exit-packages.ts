/**
 * The exit transactions on the network: for one exit tx, what its status is now, and — when the
 * wallet has to act — its CPFP child, built, stored, then submitted with it as a package.
 *
 * | Situation | What happens |
 * |---|---|
 * | parent not confirmed | `awaiting-input-confirmation` (TRUC: a zero-fee parent relays only with its child, on a confirmed grandparent) |
 * | exit tx unknown, no child out | with CPFP: child funded from confirmed coins, stored (`built`), package submitted → `awaiting-confirmation`; without: `awaiting-cpfp-broadcast` |
 * | exit tx unknown, our child was out (evicted, reorged) | the stored package is submitted again; a refusal (its coins gone) drops the child and funds a new one |
 * | exit tx in the mempool | the anchor's spender is the child: ours (`wallet`) or someone else's, adopted (`mempool`); a target fee rate above the package's replaces it (RBF) |
 * | exit tx confirmed | `confirmed` with the anchor's spender; re-checked for reorgs until 100 blocks deep |
 * | a child stored `built` (crash between storing and broadcasting) | known to the chain → broadcast; otherwise submitted again, a refusal drops it and releases its coins |
 *
 * Shared ancestors: every exit tx is handled once per pass (the result is cached), whichever
 * exits need it; its children are stored by the exit tx, not by the exit.
 */
import { ChainSourceRejectedError, faultPoint, type Logger, type TxStatus } from "@tender/core";
import { decodeTx, encodeTx, fromHex, toHex, txVsize, type ExitStep, type ExitTxStatus } from "@tender/ark-protocol";
import { exitErrors, ExitFailure } from "./exit-errors.js";
import type { ExitPorts, WalletSignedTx } from "./exit-ports.js";
import type { ExitChildRecord, ExitStore } from "./exit-records.js";
import { packageFee } from "./exit-json.js";

/** Exit txs confirmed this deep are no longer re-checked for reorgs. */
export const DEEPLY_CONFIRMED = 100;

/** What one pass works with. */
export interface PassSettings {
  readonly tipHeight: number;
  /** Target package fee rate for new and replacement children. */
  readonly satPerKvb: bigint;
  /** Whether to fund children (the progress route and the background task do; status reads don't). */
  readonly cpfp: boolean;
}

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const encodeHex = (tx: ExitStep["tx"]): string => toHex(encodeTx(tx));

/** The exit txs' side of one progress pass. */
export class ExitPackages {
  private readonly done = new Map<string, ExitTxStatus>();

  constructor(
    private readonly ports: ExitPorts,
    private readonly store: ExitStore,
    private readonly logger: Logger,
    private readonly pass: PassSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** The new status of exit tx `step` (once per pass per txid). */
  async advance(step: ExitStep, current: ExitTxStatus): Promise<ExitTxStatus> {
    const cached = this.done.get(step.txid);
    if (cached) return cached;
    const next = await this.advanceOnce(step, current);
    this.done.set(step.txid, next);
    return next;
  }

  private async advanceOnce(step: ExitStep, current: ExitTxStatus): Promise<ExitTxStatus> {
    if (current.type === "confirmed" && this.pass.tipHeight - current.block.height + 1 >= DEEPLY_CONFIRMED) return current;
    if (current.type === "verify-inputs" || current.type === "awaiting-input-confirmation") {
      if (!(await this.confirmed(step.parentTxid))) return { type: "awaiting-input-confirmation", txids: [step.parentTxid] };
    }
    await this.settleBuilt(step);
    return this.fromNetwork(step);
  }

  private async status(txid: string): Promise<TxStatus | null> {
    try {
      return await this.ports.chain.txStatus(txid);
    } catch (e) {
      throw exitErrors.txRetrieval(txid, e);
    }
  }

  private async confirmed(txid: string): Promise<boolean> {
    return (await this.status(txid))?.confirmed === true;
  }

  /** Children of `step` that may be out, latest last. */
  private async liveChildren(step: ExitStep): Promise<ExitChildRecord[]> {
    return (await this.store.children(step.txid)).filter((c) => c.status === "broadcast" || c.status === "built");
  }

  /**
   * Resolves children stored `built` (the process may have died around their broadcast): known to
   * the chain → broadcast; otherwise submitted again; refused → dropped, coins released.
   */
  private async settleBuilt(step: ExitStep): Promise<void> {
    for (const c of await this.store.children(step.txid)) {
      if (c.status !== "built") continue;
      if ((await this.status(c.childTxid)) !== null) {
        await this.accepted(step, c);
        continue;
      }
      if (!(await this.confirmed(step.parentTxid))) {
        await this.drop(c);
        continue;
      }
      try {
        await this.ports.chain.broadcastPackage([encodeHex(step.tx), c.hex]);
        await this.accepted(step, c);
      } catch (e) {
        if (!(e instanceof ChainSourceRejectedError)) throw exitErrors.packageBroadcast(step.txid, e);
        this.logger.warn(`exit tx ${step.txid}: stored child ${c.childTxid} refused (${e.reason}); dropped`);
        await this.drop(c);
      }
    }
  }

  /** Our child `c` is on the network: the wallet lists it, and any earlier child of ours is replaced. */
  private async accepted(step: ExitStep, c: ExitChildRecord): Promise<void> {
    await this.ports.wallet.noteBroadcast(c.childTxid);
    await this.store.saveChild({ ...c, status: "broadcast" });
    for (const other of await this.store.children(step.txid)) {
      if (other.childTxid === c.childTxid || other.status !== "broadcast") continue;
      if (other.ours) await this.ports.wallet.markReplaced(other.childTxid);
      await this.store.saveChild({ ...other, status: "replaced" });
    }
  }

  private async drop(c: ExitChildRecord): Promise<void> {
    if (c.status === "built") await this.ports.wallet.release(c.childTxid);
    else if (c.ours) await this.ports.wallet.markReplaced(c.childTxid);
    await this.store.saveChild({ ...c, status: "dropped" });
  }

  /** The status as the network shows it, acting where the wallet must. */
  private async fromNetwork(step: ExitStep): Promise<ExitTxStatus> {
    const st = await this.status(step.txid);
    if (st?.confirmed) return this.confirmedStatus(step, st);
    if (st) return this.inMempool(step);
    if (!(await this.confirmed(step.parentTxid))) return { type: "awaiting-input-confirmation", txids: [step.parentTxid] };
    // Neither mined nor in the mempool: our stored package goes out again, or a new child is made.
    const ours = (await this.liveChildren(step)).filter((c) => c.ours && c.status === "broadcast").at(-1);
    if (ours) {
      try {
        await this.ports.chain.broadcastPackage([encodeHex(step.tx), ours.hex]);
        this.logger.info(`exit tx ${step.txid}: package with child ${ours.childTxid} submitted again`);
        return { type: "awaiting-confirmation", childTxid: ours.childTxid, origin: ours.origin };
      } catch (e) {
        if (!(e instanceof ChainSourceRejectedError)) throw exitErrors.packageBroadcast(step.txid, e);
        this.logger.warn(`exit tx ${step.txid}: child ${ours.childTxid} can no longer be broadcast (${e.reason}); a new one is made`);
        await this.drop(ours);
      }
    }
    if (!this.pass.cpfp) return { type: "awaiting-cpfp-broadcast" };
    return this.fund(step);
  }

  private async confirmedStatus(step: ExitStep, st: Extract<TxStatus, { confirmed: true }>): Promise<ExitTxStatus> {
    const spend = await this.anchorSpend(step);
    const known = spend ? await this.childRecord(step, spend) : (await this.liveChildren(step)).at(-1);
    const childTxid = known?.childTxid ?? step.txid;
    const block = { height: st.block.height, hash: st.block.hash };
    if (known?.ours) {
      const origin = { type: "wallet" as const, confirmedIn: spend?.status.confirmed ? { height: spend.status.block.height, hash: spend.status.block.hash } : null };
      if (known.status !== "broadcast" || JSON.stringify(known.origin) !== JSON.stringify(origin)) await this.store.saveChild({ ...known, status: "broadcast", origin });
      return { type: "confirmed", childTxid, block, origin };
    }
    const origin = { type: "block" as const, confirmedIn: block };
    if (known && JSON.stringify(known.origin) !== JSON.stringify(origin)) await this.store.saveChild({ ...known, origin });
    return { type: "confirmed", childTxid, block, origin };
  }

  private async inMempool(step: ExitStep): Promise<ExitTxStatus> {
    const spend = await this.anchorSpend(step);
    if (!spend) return this.pass.cpfp ? this.fund(step) : { type: "awaiting-cpfp-broadcast" };
    const child = await this.childRecord(step, spend);
    const status: ExitTxStatus = { type: "awaiting-confirmation", childTxid: child.childTxid, origin: child.origin };
    if (!this.pass.cpfp || child.feeSat < 0n) return status;
    const current = packageFee(child, Math.ceil(step.weight / 4));
    if (this.pass.satPerKvb <= current.satPerKvb) return status;
    // The fee market rose past the package: replace the child, paying at least 1 sat/vB more on the package.
    const minFeeSat = current.totalFeeSat + BigInt(Math.ceil(step.weight / 4) + child.vsize);
    this.logger.info(`exit tx ${step.txid}: replacing child ${child.childTxid} (${current.satPerKvb} sat/kvB) at ${this.pass.satPerKvb} sat/kvB`);
    return this.fund(step, child, minFeeSat);
  }

  /** Who spends the exit tx's anchor, if anyone. */
  private async anchorSpend(step: ExitStep): Promise<Extract<Awaited<ReturnType<ExitPorts["chain"]["outspend"]>>, { spent: true }> | null> {
    let spend;
    try {
      spend = await this.ports.chain.outspend(step.txid, step.anchorVout);
    } catch (e) {
      throw exitErrors.txRetrieval(step.txid, e);
    }
    return spend.spent ? spend : null;
  }

  /**
   * The stored record of the anchor's spender; a spender that is not ours is adopted (stored with
   * its fee when its inputs can be read), and our own children it replaced are marked so.
   */
  private async childRecord(step: ExitStep, spend: { txid: string; status: TxStatus }): Promise<ExitChildRecord> {
    const all = await this.store.children(step.txid);
    const existing = all.find((c) => c.childTxid === spend.txid);
    if (existing && existing.status === "broadcast") return existing;
    if (existing) {
      const c = existing.ours ? existing : { ...existing, status: "broadcast" as const };
      if (existing.ours) await this.accepted(step, existing);
      else await this.store.saveChild(c);
      return { ...c, status: "broadcast" };
    }
    const hex = await this.ports.chain.txHex(spend.txid);
    const adopted: ExitChildRecord = {
      childTxid: spend.txid, exitTxid: step.txid, hex: hex ?? "", feeSat: hex ? await this.feeOf(hex, step) : -1n,
      vsize: hex ? txVsize(decodeTx(fromHex(hex))) : 0, ours: false,
      origin: spend.status.confirmed ? { type: "block", confirmedIn: { height: spend.status.block.height, hash: spend.status.block.hash } } : { type: "mempool" },
      status: "broadcast", createdAtMs: this.now(),
    };
    await this.store.saveChild(adopted);
    for (const c of all) if (c.status === "broadcast" || c.status === "built") await this.drop(c);
    this.logger.info(`exit tx ${step.txid}: adopted child ${spend.txid} found on the network`);
    return adopted;
  }

  /** A foreign child's fee (its inputs minus its outputs), -1 when an input cannot be read. */
  private async feeOf(hex: string, step: ExitStep): Promise<bigint> {
    const tx = decodeTx(fromHex(hex));
    let inputs = 0n;
    for (const i of tx.inputs) {
      const prevTxid = toHex(Uint8Array.from(i.prevout.txid).reverse());
      if (prevTxid === step.txid) {
        inputs += step.anchorValue;
        continue;
      }
      const prevHex = await this.ports.chain.txHex(prevTxid).catch(() => null);
      const out = prevHex ? decodeTx(fromHex(prevHex)).outputs[i.prevout.vout] : undefined;
      if (!out) return -1n;
      inputs += out.value;
    }
    return inputs - tx.outputs.reduce((s, o) => s + o.value, 0n);
  }

  /**
   * Funds a child (replacing `replacing` when given), stores it, then submits the package. A
   * refusal releases the child's coins; an outcome that cannot be known keeps it stored `built`
   * for the next pass.
   */
  private async fund(step: ExitStep, replacing?: ExitChildRecord, minFeeSat?: bigint): Promise<ExitTxStatus> {
    const parentVsize = Math.ceil(step.weight / 4);
    let signed: WalletSignedTx;
    try {
      signed = await this.ports.wallet.fundChild({
        parentTxid: step.txid, anchorVout: step.anchorVout, anchorValueSat: step.anchorValue, parentVsize, satPerKvb: this.pass.satPerKvb,
        ...(replacing?.ours ? { replaces: replacing.childTxid } : {}), ...(minFeeSat !== undefined ? { minFeeSat } : {}),
      });
    } catch (e) {
      const funds = e as { neededSat?: bigint; availableSat?: bigint };
      if (typeof funds.neededSat === "bigint" && typeof funds.availableSat === "bigint") throw exitErrors.insufficientFunds(funds.neededSat, funds.availableSat);
      throw new ExitFailure({ type: "exit-package-finalize-failure", error: reason(e) }, `Exit Package Finalize Failure: Unable to create exit transaction package: ${reason(e)}`);
    }
    const child: ExitChildRecord = {
      childTxid: signed.txid, exitTxid: step.txid, hex: signed.hex, feeSat: signed.feeSat, vsize: signed.vsize, ours: true,
      origin: { type: "wallet", confirmedIn: null }, status: "built", createdAtMs: this.now(),
    };
    await this.store.saveChild(child);
    faultPoint(replacing ? "exit-child:replacement-funded" : "exit-child:funded");
    try {
      await this.ports.chain.broadcastPackage([encodeHex(step.tx), signed.hex]);
    } catch (e) {
      if (e instanceof ChainSourceRejectedError) {
        await this.drop(child);
        // someone else's child may have reached the anchor first: adopt it
        const spend = await this.anchorSpend(step);
        if (spend && !replacing) return { type: "awaiting-confirmation", childTxid: (await this.childRecord(step, spend)).childTxid, origin: { type: "mempool" } };
        if (replacing) return { type: "awaiting-confirmation", childTxid: replacing.childTxid, origin: replacing.origin };
      }
      throw exitErrors.packageBroadcast(step.txid, e);
    }
    faultPoint(replacing ? "exit-child:replacement-broadcast" : "exit-child:broadcast");
    await this.accepted(step, child);
    if (replacing && !replacing.ours) await this.store.saveChild({ ...replacing, status: "replaced" });
    return { type: "awaiting-confirmation", childTxid: child.childTxid, origin: child.origin };
  }
}
