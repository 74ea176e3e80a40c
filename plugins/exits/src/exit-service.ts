/**
 * The wallet's unilateral exits: start, progress, cancel, status, the pending amount. Every
 * operation that changes exits runs alone (one lock), so a progress pass, a claim and a cancel
 * never interleave. Each state change is written together with what follows from it (the VTXO
 * marked exited, the lock released, the movement finished) in one database transaction.
 */
import { AsyncLock, BadRequestError, NotFoundError, faultPoint, type Logger } from "@tender/core";
import type { HeldExitOutcome } from "@tender/plugin-ark";
import {
  bytesEqual, checkStandard, encodeTx, sha256, toHex, exitStateToJson, isExitCancelable, policyScriptPubKey, vtxoPolicyContext, type ExitState, type ExitStateKind,
} from "@tender/ark-protocol";
import { exitErrorJson, exitErrors, failedTo, type ExitErrorJson } from "./exit-errors.js";
import { exitStatusJson, type ExitPackageView } from "./exit-json.js";
import { ExitPackages } from "./exit-packages.js";
import type { ExitPorts, ExitVtxoView } from "./exit-ports.js";
import { PartialProgress, exitWarrantsExitedVtxo, isTerminalExitState, outpointOf, planOf, stepExit } from "./exit-progress.js";
import type { ExitRecord, ExitStore } from "./exit-records.js";
import { settleClaims } from "./exit-claim.js";

/** Live exits: still to be broadcast, confirmed or claimed. */
export const LIVE_KINDS: readonly ExitStateKind[] = ["start", "processing", "awaiting-delta", "claimable", "claim-in-progress"];
/** Finished exits. */
export const FINISHED_KINDS: readonly ExitStateKind[] = ["claimed", "vtxo-already-spent", "canceled"];

/** The lock an exit holds on its VTXO. */
export const exitLockId = (seq: number): string => `exit.${seq}`;

/** One exit's line in a progress answer. */
export interface ExitProgressLine {
  vtxo_id: string;
  state: Record<string, unknown>;
  error?: ExitErrorJson;
}

/** What `POST /exits/progress` answers. */
export interface ExitProgressAnswer {
  exits: ExitProgressLine[];
  done: boolean;
  claimable_height: number | null;
}

/** Options of a progress pass. */
export interface ProgressOptions {
  /** Package fee rate for children; default the chain source's fast rate. */
  satPerKvb?: bigint;
  /** Sync the on-chain wallet first (the route does; a failure is a 500). */
  syncWallet?: boolean;
  /** First look for VTXOs exited by someone else (when the tip changed); a failure is only logged. */
  detectForeign?: boolean;
}

/** The wallet's exits. */
export class ExitService {
  readonly lock = new AsyncLock();
  /** The tip hash at the last look for VTXOs exited by someone else. */
  private lastDetectionTip: string | undefined;

  constructor(
    readonly ports: ExitPorts,
    readonly store: ExitStore,
    readonly logger: Logger,
    readonly now: () => number = Date.now,
  ) {}

  // ---------------------------------------------------------------- start

  /**
   * Registers exits for `ids` (already checked to be the wallet's), or for every unspent VTXO.
   * Only spendable VTXOs and inputs of a pending round are registered; those already exiting are
   * skipped. With explicit ids a dust or non-standard VTXO fails (earlier ones stay registered);
   * with "all" it is skipped with a warning.
   */
  async start(ids: readonly string[] | "all"): Promise<void> {
    await this.lock.run(async () => {
      const all = ids === "all";
      const candidates = all ? await this.ports.vtxos.listUnspent() : (await Promise.all(ids.map((id) => this.ports.vtxos.get(id)))).filter((v): v is ExitVtxoView => !!v);
      const eligible = candidates.filter((v) => v.state === "spendable" || (v.state === "locked" && v.lockedBy?.startsWith("round.")));
      let tip;
      try {
        tip = await this.ports.chain.tip();
      } catch (e) {
        throw failedTo(all ? "Failed to start exit for entire wallet" : "Failed to start exit for VTXOs", exitErrors.tipRetrieval(e));
      }
      for (const v of eligible) {
        const existing = await this.store.exit(v.id);
        if (existing && !FINISHED_KINDS.includes(existing.state.type)) {
          this.logger.warn(`VTXO ${v.id} is already in the exit process`);
          continue;
        }
        const refusal = exitRefusal(v);
        if (refusal) {
          if (all) {
            this.logger.warn(`skipping non-standard VTXO ${v.id}: ${refusal.message}`);
            continue;
          }
          throw failedTo("Failed to start exit for VTXOs", refusal);
        }
        await this.register(v, tip.height);
        faultPoint("exit-start:recorded");
      }
    });
  }

  private async register(v: ExitVtxoView, tipHeight: number): Promise<void> {
    const script = policyScriptPubKey(v.vtxo.policy, vtxoPolicyContext(v.vtxo));
    const address = await this.ports.wallet.addressOf(script);
    await this.ports.atomically(async () => {
      const movementId = await this.ports.movements.create({
        vtxoId: v.id, amountSat: v.vtxo.amount,
        destination: address ? { type: "bitcoin", value: address } : { type: "output-script", value: Buffer.from(script).toString("hex") },
      });
      const seq = await this.store.nextSeq();
      const lockId = exitLockId(seq);
      const held = v.state === "spendable" ? await this.ports.vtxos.tryLock(v.id, lockId) : false;
      await this.store.saveExit({
        vtxoId: v.id, seq, amountSat: v.vtxo.amount, state: { type: "start", tipHeight }, history: [], movementId, lockId: held ? lockId : null,
        createdAtMs: this.now(),
      });
    });
  }

  // ---------------------------------------------------------------- exits of VTXOs an action holds

  /**
   * Starts exits for `vtxoIds`, held by the action `holder` (HTLC VTXOs the server will not take
   * back or claim): the action keeps its lock until the exit chain confirms and the VTXO is
   * exited. Idempotent: a VTXO with a live exit is skipped. `preimage` is kept (before any exit is
   * registered) for the hash clause of HTLC-recv VTXOs; it must hash to their payment hash.
   */
  startHeld(req: { vtxoIds: readonly string[]; holder: string; preimage?: Uint8Array }): Promise<void> {
    return this.lock.run(async () => {
      const views: ExitVtxoView[] = [];
      for (const id of req.vtxoIds) {
        const v = await this.ports.vtxos.get(id);
        if (!v) throw exitErrors.internal(`VTXO for exit couldn't be found: ${id}`);
        if (await this.hasLiveExit(id)) continue;
        if (v.state !== "locked" || v.lockedBy !== req.holder) throw exitErrors.internal(`VTXO ${id} is not held by ${req.holder} (state ${v.state})`);
        const refusal = exitRefusal(v);
        if (refusal) throw refusal;
        views.push(v);
      }
      if (req.preimage) {
        const hash = sha256(req.preimage);
        for (const v of views) {
          const p = v.vtxo.policy;
          if ((p.type === "server-htlc-receive" || p.type === "server-htlc-receive-v1") && !bytesEqual(p.paymentHash, hash)) {
            throw exitErrors.internal(`the preimage handed over is not that of VTXO ${v.id}'s payment hash`);
          }
        }
        await this.store.savePreimage(toHex(hash), toHex(req.preimage));
      }
      if (views.length === 0) return;
      let tip;
      try {
        tip = await this.ports.chain.tip();
      } catch (e) {
        throw failedTo("Failed to start exit for VTXOs", exitErrors.tipRetrieval(e));
      }
      for (const v of views) {
        this.logger.info(`starting the exit of VTXO ${v.id}, held by ${v.lockedBy}`);
        await this.register(v, tip.height);
        faultPoint("exit-start:recorded");
      }
    });
  }

  /** Where the exit of `vtxoId` stands, for the action that handed it over. */
  async outcome(vtxoId: string): Promise<HeldExitOutcome> {
    const r = await this.store.exit(vtxoId);
    if (!r) return "none";
    switch (r.state.type) {
      case "claimed":
        return "claimed";
      case "vtxo-already-spent":
        return "spent-elsewhere";
      case "canceled":
        return "canceled";
      default:
        return "in-progress";
    }
  }

  // ---------------------------------------------------------------- exits started elsewhere

  /**
   * Looks, when the tip changed since the last look, for spendable VTXOs whose own transaction is
   * on chain or in the mempool: someone else (the server, a counterparty holding an ancestor)
   * broadcast their exit chain. Each one gets an exit, so it progresses to claimable like one the
   * wallet started. Answers the ids of the VTXOs it started exits for.
   */
  detectForeignExits(): Promise<string[]> {
    return this.lock.run(() => this.findForeignExits());
  }

  private async findForeignExits(): Promise<string[]> {
    const tip = await this.ports.chain.tip();
    if (this.lastDetectionTip === tip.hash) return [];
    const found: ExitVtxoView[] = [];
    for (const v of await this.ports.vtxos.listUnspent()) {
      if (v.state !== "spendable" || (await this.hasLiveExit(v.id))) continue;
      if (await this.ports.chain.txStatus(outpointOf(v.vtxo).txid)) found.push(v);
    }
    for (const v of found) {
      this.logger.info(`VTXO ${v.id} was exited by someone else: its own transaction is on chain; starting its exit`);
      await this.register(v, tip.height);
    }
    this.lastDetectionTip = tip.hash;
    return found.map((v) => v.id);
  }

  /**
   * Starts exits for VTXOs already stored as exited (a recovery from the seed found their own
   * transaction confirmed), so their outputs get claimed. VTXOs with a live exit are skipped.
   */
  adoptExited(ids: readonly string[]): Promise<void> {
    return this.lock.run(async () => {
      const tip = await this.ports.chain.tip();
      for (const id of ids) {
        const v = await this.ports.vtxos.get(id);
        if (!v || v.state !== "exited" || (await this.hasLiveExit(id))) continue;
        this.logger.info(`VTXO ${id} was found exited on chain; starting its exit`);
        await this.register(v, tip.height);
      }
    });
  }

  private async hasLiveExit(id: string): Promise<boolean> {
    const existing = await this.store.exit(id);
    return !!existing && LIVE_KINDS.includes(existing.state.type);
  }

  // ---------------------------------------------------------------- progress

  /** One pass over every live exit (never claims). */
  progress(opts: ProgressOptions & { cpfp?: boolean } = {}): Promise<ExitProgressAnswer> {
    return this.lock.run(async () => {
      if (opts.syncWallet) {
        try {
          await this.ports.wallet.sync();
        } catch (e) {
          throw failedTo("error syncing on-chain wallet", e);
        }
      }
      if (opts.detectForeign) {
        await this.findForeignExits().catch((e: unknown) => this.logger.warn(`looking for VTXOs exited by someone else: ${e instanceof Error ? e.message : String(e)}`));
      }
      const live = (await this.store.exits()).filter((r) => LIVE_KINDS.includes(r.state.type));
      let tip;
      try {
        tip = await this.ports.chain.tip();
      } catch (e) {
        throw failedTo("error making progress on exit process", exitErrors.tipRetrieval(e));
      }
      const cpfp = opts.cpfp ?? true;
      const satPerKvb = opts.satPerKvb ?? (cpfp ? (await this.ports.wallet.feeRates()).fastSatPerKvb : 0n);
      await this.releaseOrphanChildren();
      await settleClaims(this.ports, this.store, this.logger);
      const packages = new ExitPackages(this.ports, this.store, this.logger, { tipHeight: tip.height, satPerKvb, cpfp }, this.now);
      const lines: ExitProgressLine[] = [];
      for (const rec of live) {
        const { record, error } = await this.progressOne(rec, { ports: this.ports, store: this.store, packages, tip });
        if (error) this.logger.warn(`exit of VTXO ${rec.vtxoId}: ${error instanceof Error ? error.message : String(error)}`);
        if (record.state.type !== "claimed") lines.push({ vtxo_id: record.vtxoId, state: exitStateToJson(record.state), ...(error ? { error: exitErrorJson(error) } : {}) });
      }
      const now = (await this.store.exits()).filter((r) => LIVE_KINDS.includes(r.state.type));
      const heights = now.map((r) => claimableHeightOf(r.state)).filter((h): h is number => h !== undefined);
      return {
        exits: lines,
        done: !now.some((r) => r.state.type === "start" || r.state.type === "processing" || r.state.type === "awaiting-delta"),
        claimable_height: heights.length > 0 ? Math.max(...heights) : null,
      };
    });
  }

  /** Advances one exit as far as it goes now; returns its record and the failure that stopped it, if any. */
  private async progressOne(rec: ExitRecord, ctx: Parameters<typeof stepExit>[3]): Promise<{ record: ExitRecord; error?: unknown }> {
    let record = rec;
    try {
      const view = await this.ports.vtxos.get(rec.vtxoId);
      if (!view) throw exitErrors.internal(`VTXO for exit couldn't be found: ${rec.vtxoId}`);
      if (!exitWarrantsExitedVtxo(record.state) && view.state === "spent") {
        record = await this.commit(record, { type: "vtxo-already-spent", tipHeight: ctx.tip.height }, view);
        return { record };
      }
      if (record.lockId === null && view.state === "spendable") {
        // the VTXO was in a round when the exit started; the round released it: the exit holds it now
        const lockId = exitLockId(record.seq);
        if (await this.ports.vtxos.tryLock(view.id, lockId)) {
          record = { ...record, lockId };
          await this.store.saveExit(record);
        }
      }
      for (let i = 0; i < 8 && !isTerminalExitState(record.state); i++) {
        const next = await stepExit(record.state, view.vtxo, view.id, ctx);
        if (JSON.stringify(exitStateToJson(next)) === JSON.stringify(exitStateToJson(record.state))) break;
        const kindChanged = next.type !== record.state.type;
        record = await this.commit(record, next, view);
        if (!kindChanged) break;
      }
      return { record };
    } catch (e) {
      if (e instanceof PartialProgress) {
        const view = await this.ports.vtxos.get(rec.vtxoId);
        if (view) record = await this.commit(record, e.state, view);
        return { record, error: e.failure };
      }
      return { record, error: e };
    }
  }

  /**
   * Writes `next` (the current state goes to the history) with its consequences, in one
   * transaction: from `awaiting-delta` on the VTXO is exited; `claimed` finishes the movement as
   * successful; `vtxo-already-spent` as canceled and frees the exit's lock.
   */
  private async commit(rec: ExitRecord, next: ExitState, view: ExitVtxoView): Promise<ExitRecord> {
    const record: ExitRecord = { ...rec, state: next, history: [...rec.history, rec.state] };
    await this.ports.atomically(async () => {
      await this.store.saveExit(record);
      if (exitWarrantsExitedVtxo(next) && view.state !== "exited") await this.ports.vtxos.markExited(rec.vtxoId);
      if (next.type === "vtxo-already-spent" && rec.lockId) await this.ports.vtxos.release(rec.lockId);
      if (rec.movementId !== null && next.type !== rec.state.type) {
        if (next.type === "claimed") await this.ports.movements.finish(rec.movementId, "successful");
        if (next.type === "vtxo-already-spent") await this.ports.movements.finish(rec.movementId, "canceled");
      }
    });
    if (next.type !== rec.state.type) faultPoint(`exit-state:${next.type}`);
    return record;
  }

  /** CPFP children the on-chain wallet holds that no exit stored (the process died in between): released. */
  private async releaseOrphanChildren(): Promise<void> {
    const known = new Set((await this.store.children()).filter((c) => c.status === "built").map((c) => c.childTxid));
    for (const txid of await this.ports.wallet.heldChildren()) {
      if (known.has(txid)) continue;
      this.logger.info(`releasing CPFP child ${txid}, which no exit stored`);
      await this.ports.wallet.release(txid);
    }
  }

  // ---------------------------------------------------------------- cancel

  /** Cancels the exit of `vtxoId` while its final exit tx is not out (barkd's rules and texts). */
  cancel(vtxoId: string): Promise<void> {
    return this.lock.run(async () => {
      const rec = await this.store.exit(vtxoId);
      if (!rec) throw new NotFoundError("No exit found for VTXO", [vtxoId]);
      if (rec.state.type === "canceled") return;
      if (!isExitCancelable(rec.state)) throw new BadRequestError(`Exit can no longer be canceled (state: ${rec.state.type})`);
      const view = await this.ports.vtxos.get(vtxoId);
      if (!view) throw failedTo("Failed to cancel exit", exitErrors.internal(`VTXO for exit couldn't be found: ${vtxoId}`));
      const leaf = outpointOf(view.vtxo).txid;
      let known;
      try {
        known = await this.ports.chain.txStatus(leaf);
      } catch (e) {
        throw failedTo("Failed to cancel exit", exitErrors.txRetrieval(leaf, e));
      }
      if (known) throw new BadRequestError(`Exit can no longer be canceled (final exit tx ${leaf} has already been broadcast)`);
      let tip;
      try {
        tip = await this.ports.chain.tip();
      } catch (e) {
        throw failedTo("Failed to cancel exit", exitErrors.tipRetrieval(e));
      }
      // a child of the final tx stored but not known to the chain never went out: its coins are free again
      for (const c of await this.store.children(leaf)) if (c.status === "built") {
        await this.ports.wallet.release(c.childTxid);
        await this.store.saveChild({ ...c, status: "dropped" });
      }
      await this.ports.atomically(async () => {
        await this.store.saveExit({ ...rec, state: { type: "canceled", tipHeight: tip.height }, history: [...rec.history, rec.state] });
        if (rec.lockId) await this.ports.vtxos.release(rec.lockId);
        if (rec.movementId !== null) await this.ports.movements.finish(rec.movementId, "canceled");
      });
      this.logger.info(`canceled the exit of VTXO ${vtxoId}`);
    });
  }

  // ---------------------------------------------------------------- status

  /** Exits whose state is one of `kinds`, in storage order, as `ExitTransactionStatus`. */
  async statuses(kinds: readonly ExitStateKind[], history: boolean, transactions: boolean): Promise<Record<string, unknown>[]> {
    const recs = (await this.store.exits()).filter((r) => kinds.includes(r.state.type));
    return Promise.all(recs.map(async (r) => exitStatusJson(r, { history, ...(transactions ? { packages: await this.packagesOf(r) } : {}) })));
  }

  /** The status of the exit of `vtxoId`, `undefined` when it never exited. */
  async status(vtxoId: string, history: boolean, transactions: boolean): Promise<Record<string, unknown> | undefined> {
    const r = await this.store.exit(vtxoId);
    return r ? exitStatusJson(r, { history, ...(transactions ? { packages: await this.packagesOf(r) } : {}) }) : undefined;
  }

  /** The exit txs of an exit with the child carrying each (the one the network took, else the latest). */
  async packagesOf(r: ExitRecord): Promise<ExitPackageView[]> {
    const view = await this.ports.vtxos.get(r.vtxoId);
    if (!view) return [];
    const out: ExitPackageView[] = [];
    for (const step of planOf(view.vtxo, r.vtxoId)) {
      const children = (await this.store.children(step.txid)).filter((c) => c.status === "broadcast" || c.status === "built");
      out.push({ txid: step.txid, hex: Buffer.from(encodeStepTx(step)).toString("hex"), vsize: Math.ceil(step.weight / 4), child: children.at(-1) });
    }
    return out;
  }

  /**
   * `pending_exit_sat`: the VTXOs of live exits that have left the spendable balance — held by
   * their exit's lock, or exited on chain and not yet claimed.
   */
  async pendingExitSat(): Promise<bigint> {
    let total = 0n;
    for (const r of await this.store.exits()) {
      if (!LIVE_KINDS.includes(r.state.type)) continue;
      const v = await this.ports.vtxos.get(r.vtxoId);
      if (v?.state === "exited" || (v?.state === "locked" && r.lockId !== null && v.lockedBy === r.lockId)) total += r.amountSat;
    }
    return total;
  }
}

/** Why a VTXO must not start exiting (dust, non-standard exit chain), or `undefined`. */
export function exitRefusal(v: ExitVtxoView): Error | undefined {
  if (v.vtxo.amount < 330n) return exitErrors.dustLimit(v.id, v.vtxo.amount, 330n);
  const bad = checkStandard(v.vtxo);
  if (bad) return exitErrors.nonStandard(v.id, `${bad.where === "vtxo" ? "own output" : `genesis item ${bad.where}`}: ${bad.reason}`);
  try {
    planOf(v.vtxo, v.id);
  } catch (e) {
    return e as Error;
  }
  return undefined;
}

function claimableHeightOf(s: ExitState): number | undefined {
  if (s.type === "awaiting-delta") return s.claimableHeight;
  if (s.type === "claimable" || s.type === "claim-in-progress") return s.claimableSince.height;
  return undefined;
}

const encodeStepTx = (step: { tx: Parameters<typeof encodeTx>[0] }): Uint8Array => encodeTx(step.tx);
