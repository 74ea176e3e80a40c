/**
 * The wallet's round participations: creating refreshes (the routes and the daemon's maintenance),
 * progressing them (round events, syncs, the mailbox's completion notices), listing them and the
 * balance they hold. Work on one participation runs one at a time.
 */
import { toHex } from "@tender/ark-protocol";
import { withContext, type Logger } from "@tender/core";
import { VtxoNotSpendableError } from "@tender/plugin-ark";
import type { RoundEvent } from "@tender/ark-protocol/server";
import { DelegatedRounds } from "./delegated-rounds.js";
import { BUILD_CONTEXT, STORE_CONTEXT, errorText } from "./errors.js";
import { InteractiveRounds } from "./interactive-rounds.js";
import { KeyedLock } from "./keyed-lock.js";
import { maintenanceSelection } from "./maintenance-selection.js";
import { FINAL_STATUSES, isPendingInRound, lockOwner, outputSum, type Participation, type ParticipationOrigin } from "./participation.js";
import type { ParticipationStore } from "./participation-store.js";
import { hasCounterpartyRisk } from "./counterparty.js";
import { RoundCompletion } from "./round-completion.js";
import { RoundIssuance } from "./round-issuance.js";
import { inputVtxos } from "./round-materials.js";
import { RoundOutcomes } from "./round-outcomes.js";
import type { RoundPorts } from "./round-ports.js";
import { pendingRoundInfo, storedStatus, type PendingRoundInfoJson, type RoundStatusJson } from "./round-status.js";

/** A participation the sync task ended (with its stored error) before the request that made it could submit it. */
class EndedMeanwhile extends Error {}

/** A refresh ready to be stored: its inputs, its one output (on a fresh key) and its fee. */
interface PreparedRefresh {
  inputs: string[];
  outputs: { amountSat: bigint; keyIndex: number; pubkey: string }[];
  feeSat: bigint;
}

/** Hooks of the plugin around participations. */
export interface RoundsHooks {
  /** A participation was stored: make sure the wallet's syncs progress it (idempotent). */
  track?(id: number): Promise<void>;
}

export class RoundsService {
  private readonly outcomes: RoundOutcomes;
  private readonly completion: RoundCompletion;
  private readonly interactive: InteractiveRounds;
  private readonly delegated: DelegatedRounds;
  private readonly locks = new KeyedLock<number>();

  constructor(
    readonly store: ParticipationStore,
    private readonly ports: RoundPorts,
    private readonly logger: Logger,
    private readonly hooks: RoundsHooks = {},
  ) {
    this.outcomes = new RoundOutcomes(store, ports, logger);
    this.completion = new RoundCompletion(store, ports, this.outcomes);
    const issuance = new RoundIssuance(store, ports, logger);
    this.interactive = new InteractiveRounds(store, ports, this.outcomes, issuance, logger, (p, rejected) => this.dropInputs(p, rejected));
    this.delegated = new DelegatedRounds(store, ports, this.outcomes, this.completion, issuance);
  }

  // ---- creating refreshes

  /**
   * Builds a refresh of `ids` priced at `height` (default: the tip): no duplicates, every VTXO
   * known, the total and the output after the fee at least dust; derives and persists the output
   * key. Undefined for no VTXOs. Errors carry barkd's context.
   */
  async prepare(ids: readonly string[], height?: number): Promise<PreparedRefresh | undefined> {
    try {
      const seen = new Set<string>();
      for (const id of ids) {
        if (seen.has(id)) throw new Error(`duplicate VTXO id: ${id}`);
        seen.add(id);
        if (!(await this.ports.vtxos.get(id))) throw new Error(`vtxo with id ${id} not found`);
      }
      if (ids.length === 0) return undefined;
      const { server, chain, keys, protocol } = this.ports;
      const vtxos = await inputVtxos(this.ports.vtxos, { inputs: ids });
      const info = await server.info();
      const { fee, amount } = protocol.refreshOutputAmount(vtxos, info.refreshFees, height ?? (await chain.tipHeight()));
      const key = await keys.nextVtxoKey();
      return { inputs: [...ids], outputs: [{ amountSat: amount, keyIndex: key.index, pubkey: toHex(key.publicKey) }], feeSat: fee };
    } catch (e) {
      throw withContext(BUILD_CONTEXT, e);
    }
  }

  /**
   * Stores an interactive refresh (inputs locked, movement pending) in one transaction: the
   * round-events task, which takes every pending participation into the next round, never finds
   * one whose inputs are not held yet (a send could still spend them) or that has no movement. A
   * refused lock stores nothing.
   */
  async createInteractive(r: PreparedRefresh, origin: ParticipationOrigin): Promise<Participation> {
    const stored = await this.ports.transaction(async () => {
      const p = await this.store.create({ kind: "interactive", origin, inputs: r.inputs, outputs: r.outputs, feeSat: r.feeSat, inputsLocked: true });
      try {
        await this.ports.vtxos.lock(r.inputs, lockOwner(p.id));
      } catch (e) {
        throw withContext(STORE_CONTEXT, withContext("failed to lock input VTXOs", e));
      }
      return this.withMovement(p);
    });
    await this.hooks.track?.(stored.id);
    return stored;
  }

  /** An explicit interactive refresh (`refresh/vtxos`, `/all`, `/counterparty`): stored, synced once, answered. */
  async refresh(ids: readonly string[]): Promise<PendingRoundInfoJson | undefined> {
    const prepared = await this.prepare(ids);
    if (!prepared) return undefined;
    const p = await this.createInteractive(prepared, "explicit");
    const status = await this.sync(p.id);
    return pendingRoundInfo((await this.store.get(p.id))!, status);
  }

  /** A delegated refresh (`refresh/delegated/vtxos`): stored, handed to the server, answered `pending`. */
  async refreshDelegated(ids: readonly string[], height?: number): Promise<PendingRoundInfoJson | undefined> {
    const prepared = await this.prepare(ids, height);
    if (!prepared) return undefined;
    // the participation and its movement commit together: the sync task, which takes up every
    // pending participation, never finds this one without its movement
    let p = await this.ports.transaction(async () => this.withMovement(await this.store.create({
      kind: "delegated", origin: "explicit", inputs: prepared.inputs, outputs: prepared.outputs, feeSat: prepared.feeSat, inputsLocked: false,
      ...(height !== undefined ? { scheduledHeight: height } : {}),
    })));
    try {
      // read again under the lock: the sync task may have submitted it (or failed it) meanwhile
      p = await this.locks.run(p.id, async () => {
        const now = (await this.store.get(p.id)) ?? p;
        if (now.status === "failed" || now.status === "canceled") throw new EndedMeanwhile(now.error ?? `round participation ${now.status}`);
        return now.unlockHash !== null ? now : this.delegated.submit(now);
      });
    } catch (e) {
      if (e instanceof EndedMeanwhile) throw withContext(STORE_CONTEXT, new Error(e.message));
      await this.outcomes.fail(p, `error submitting round participation to server: ${errorText(e)}`);
      throw withContext(STORE_CONTEXT, withContext("error submitting round participation to server", e));
    }
    await this.hooks.track?.(p.id);
    return pendingRoundInfo(p, { status: "pending" });
  }

  /** The ids of every spendable VTXO (`refresh/all`). */
  async spendableIds(): Promise<string[]> {
    return (await this.ports.vtxos.spendable()).map((v) => v.id);
  }

  /** The ids of the spendable VTXOs with counterparty risk (`refresh/counterparty`). */
  async counterpartyIds(): Promise<string[]> {
    const out: string[] = [];
    for (const v of await this.ports.vtxos.spendable()) if (await hasCounterpartyRisk(v.vtxo, (pk) => this.ports.keys.isOwn(pk))) out.push(v.id);
    return out;
  }

  private async withMovement(p: Participation): Promise<Participation> {
    return this.ports.transaction(async () => {
      const movementId = await this.ports.movements.create({ inputs: p.inputs, feeSat: p.feeSat });
      return this.store.update(p.id, { movementId });
    });
  }

  /** Re-prices a maintenance participation without `rejected` inputs (the same output key); undefined when nothing is left. */
  private async dropInputs(p: Participation, rejected: readonly string[]): Promise<Participation | undefined> {
    const rest = p.inputs.filter((id) => !rejected.includes(id));
    if (rest.length === 0) return undefined;
    let priced;
    try {
      const info = await this.ports.server.info();
      priced = this.ports.protocol.refreshOutputAmount(await inputVtxos(this.ports.vtxos, { inputs: rest }), info.refreshFees, await this.ports.chain.tipHeight());
    } catch (e) {
      this.logger.warn(`maintenance refresh ${p.id}: the remaining inputs cannot be refreshed: ${errorText(e)}`);
      return undefined;
    }
    const q = await this.store.update(p.id, { inputs: rest, outputs: p.outputs.map((o) => ({ ...o, amountSat: priced.amount })), feeSat: priced.fee });
    await this.ports.vtxos.release(lockOwner(p.id));
    await this.ports.vtxos.lock(rest, lockOwner(p.id));
    if (p.movementId !== null) await this.ports.movements.updateInputs(p.movementId, { inputs: rest, feeSat: priced.fee });
    return q;
  }

  // ---- progressing them

  /** Progresses participation `id` as far as it goes now; a failure to find out shows as `sync-error`. */
  sync(id: number): Promise<RoundStatusJson> {
    return this.locks.run(id, async () => {
      const p = await this.store.get(id);
      if (!p) throw new Error(`round participation ${id} not found`);
      try {
        if (FINAL_STATUSES.includes(p.status)) return storedStatus(p);
        if (p.status === "finished" || p.status === "forfeiting") return await this.completion.progress(p);
        if (p.kind === "delegated") return await this.delegated.progress(p);
        const recovered = await this.interactive.recover(p);
        return recovered.status === "finished" ? await this.completion.progress(recovered) : storedStatus(recovered);
      } catch (e) {
        this.logger.warn(`round participation ${id}: ${errorText(e)}`);
        return { status: "sync-error", error: errorText(e) };
      }
    });
  }

  /** Syncs every participation that has not ended. */
  async syncAll(): Promise<void> {
    for (const p of await this.store.active()) await this.sync(p.id);
  }

  /** `GET /wallet/rounds`: every participation that has not ended, synced, with the status that sync found. */
  async list(): Promise<PendingRoundInfoJson[]> {
    const out: PendingRoundInfoJson[] = [];
    for (const p of await this.store.active()) {
      const status = await this.sync(p.id);
      out.push(pendingRoundInfo((await this.store.get(p.id))!, status));
    }
    return out;
  }

  /**
   * One event of the round stream: on a round's first attempt the daemon first joins it with the
   * VTXOs that need a refresh (maintenance), then every interactive participation takes the event.
   */
  async onRoundEvent(event: RoundEvent, maintenance: boolean): Promise<void> {
    if (maintenance && event.kind === "attempt" && event.attemptSeq === 0n) {
      await this.maintain().catch((e: unknown) => this.logger.warn(`maintenance refresh: ${errorText(e)}`));
    }
    for (const p of await this.store.active()) {
      if (p.kind !== "interactive" || (p.status !== "pending" && p.status !== "submitted")) continue;
      try {
        const after = await this.locks.run(p.id, async () => this.interactive.onEvent((await this.store.get(p.id))!, event));
        if (after.status === "finished") await this.sync(p.id);
      } catch (e) {
        this.logger.warn(`round participation ${p.id}: round event ${event.kind}: ${errorText(e)}`);
      }
    }
  }

  /** The server's mailbox says the delegated participation with `unlockHash` (hex) is in a round. */
  async onParticipationCompleted(unlockHash: string): Promise<void> {
    for (const p of await this.store.active()) if (p.kind === "delegated" && p.unlockHash === unlockHash) await this.sync(p.id);
  }

  /**
   * Joins the current round with the VTXOs that need a refresh (stored as a maintenance
   * participation; the round event then submits it). Does nothing while an earlier maintenance
   * participation waits for its round.
   */
  async maintain(): Promise<Participation | undefined> {
    const active = await this.store.active();
    if (active.some((p) => p.origin === "maintenance" && (p.status === "pending" || p.status === "submitted"))) return undefined;
    const { server, chain, settings, vtxos } = this.ports;
    const info = await server.info();
    const ids = maintenanceSelection(await vtxos.spendable(), {
      tipHeight: await chain.tipHeight(), maxVtxoExitDepth: info.maxVtxoExitDepth || Number.MAX_SAFE_INTEGER,
      refreshExpiryThreshold: await settings.refreshExpiryThreshold(), feeRateSatPerKwu: await chain.fastFeeRateSatPerKwu(),
    });
    if (ids.length === 0) return undefined;
    const prepared = await this.prepare(ids);
    if (!prepared) return undefined;
    this.logger.info(`maintenance refresh of ${ids.length} VTXO(s): ${ids.join(", ")}`);
    return this.createInteractive(prepared, "maintenance");
  }

  /**
   * At wallet load: every participation that has not ended holds its inputs again as its row
   * says (a crash may have cut a lock or a movement short), has its movement, and is tracked.
   */
  async reconcile(): Promise<void> {
    for (const p of await this.store.active()) {
      try {
        await this.reconcileOne(p);
      } catch (e) {
        // one participation that cannot be set right now must not keep the others from resuming
        this.logger.warn(`round participation ${p.id}: resuming it failed, the next sync tries again: ${errorText(e)}`);
      }
      await this.hooks.track?.(p.id);
    }
  }

  private async reconcileOne(p: Participation): Promise<void> {
    await this.locks.run(p.id, async () => {
      // as stored now: a sync may have moved it on since the list was read
      let q = (await this.store.get(p.id))!;
      if (FINAL_STATUSES.includes(q.status)) return;
      if (q.inputsLocked) {
        try {
          await this.ports.vtxos.release(lockOwner(q.id));
          await this.ports.vtxos.lock(q.inputs, lockOwner(q.id));
        } catch (e) {
          if (!(e instanceof VtxoNotSpendableError) || q.status === "forfeiting") throw e;
          if (q.movementId === null) q = await this.withMovement(q);
          await this.outcomes.fail(q, `failed to lock input VTXOs: ${errorText(e)}`);
          return;
        }
      }
      if (q.movementId === null) await this.withMovement(q);
    });
  }

  /** `pending_in_round_sat`: the outputs of participations whose inputs are held for a round. */
  async pendingInRoundSat(): Promise<bigint> {
    return (await this.store.active()).filter(isPendingInRound).reduce((t, p) => t + outputSum(p), 0n);
  }
}

