/**
 * An offboard (whole VTXOs, or send-onchain's exact amount) as a crash-safe kernel action:
 *
 * | step | talks to | does | next |
 * |---|---|---|---|
 * | `lock` | database | locks the inputs to the action (returns once right after, so the request drives the rest outside the VTXO selection) | `split` (send-onchain) or `prepare` |
 * | `split` | server, database | registers the inputs' chains, has the arkoor split co-signed; stores the exact-sized VTXO(s) and the change locked, marks the inputs spent, records the `send_onchain` movement — in one transaction | `registerSplit` |
 * | `registerSplit` | server | registers the split's VTXOs; releases the change (spendable) and backs it up | `prepare` |
 * | `prepare` | server | `PrepareOffboard` with the committed fee rate (inputs sorted, so a re-sent prepare is identical and replayed); checks the tx; records the `offboard` movement | `finish` |
 * | `finish` | server | signs the forfeits with fresh nonces, `FinishOffboard`, checks the signed tx | `broadcast` |
 * | `broadcast` | chain | hands the signed tx to the chain source (the server broadcasts it too) | `confirming` |
 * | `confirming` | chain | waits for `offboard_required_confirmations`; re-broadcasts a vanished tx; past `offboard_lost_tx_grace_period_secs` reports it lost and keeps the inputs locked | done: inputs spent, movement successful |
 *
 * Recovery: a finish the server refuses (its session is gone) adopts the tx when the chain has it,
 * else goes back to `prepare` remembering the txid; a re-prepare refused with a rejection that
 * proves the inputs were still spendable (stale fee rate, amounts, blocked address) cancels and
 * unlocks; any other refusal while that txid exists keeps looking for it on chain. Inputs are only
 * ever unlocked on paths where no forfeit signature can be completed.
 */
import { NoWalletError, faultPoint, type ActionDefinition, type ActionStep, type Logger, type StepOutcome } from "@tender/core";
import {
  OffboardError, ProtocolError, checkSignedOffboardTx, compareBytes, decodeTx, encodeOutPoint, encodeTx, encodeVtxo, fromHex, offboardAttestation,
  parseOutPoint, reverseBytes, signAttestation, signOffboardForfeits, toHex, txidHex, validateOffboardTx, vtxoIdString, type Transaction, type Vtxo,
} from "@tender/ark-protocol";
import { ArkClientClosedError, ArkServerRejectedError } from "@tender/ark-protocol/server";
import type { MovementDestination } from "@tender/plugin-history";
import type { OffboardPorts } from "./offboard-ports.js";
import { cosignSplit } from "./offboard-split.js";
import { OFFBOARD_ACTION_KIND, changeHolder, need, type OffboardState } from "./offboard-state.js";

/** Timing of the waiting steps. */
export interface OffboardTiming {
  /** Pause between checks of a broadcast tx, and before a lost session is prepared again (bark: 30 s). */
  readonly pollMs: number;
  /** Pause before a step retries after the server or the chain did not answer. */
  readonly retryMs: number;
}

type Outcome = StepOutcome<OffboardState>;

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** No wallet is loaded (or it is being unloaded): the step simply runs again later. */
function isNotReady(e: unknown): boolean {
  return e instanceof NoWalletError || e instanceof ArkClientClosedError;
}

/** The ids in the order the prepare request carries them (by 36-byte id), so a re-sent prepare is byte-identical. */
export function sortedIds(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => compareBytes(encodeOutPoint(parseOutPoint(a)), encodeOutPoint(parseOutPoint(b))));
}

/** Builds the offboard action definition over the given ports. */
export function offboardAction(ports: OffboardPorts, logger: Logger, timing: OffboardTiming): ActionDefinition<OffboardState> {
  const { server, keys, vtxos, chain, movements, settings } = ports;

  const retry = (s: OffboardState, e: unknown, what: string): Outcome => {
    logger.warn(`offboard: ${what} failed, retrying: ${errorText(e)}`);
    return { waitMs: timing.retryMs, state: { ...s, lastError: errorText(e) } };
  };
  const fail = (s: OffboardState, reason: string): Outcome => ({ failed: reason, state: { ...s, failure: reason } });

  const load = async (ids: readonly string[]): Promise<Vtxo[]> => {
    const out: Vtxo[] = [];
    for (const id of ids) {
      const v = await vtxos.get(id);
      if (!v) throw new Error(`offboard VTXO ${id} is missing from the store`);
      out.push(v.vtxo);
    }
    return out;
  };
  /** The secret key of each input's owner, in order. */
  const inputSecrets = async (inputs: readonly Vtxo[]): Promise<Uint8Array[]> => {
    const out: Uint8Array[] = [];
    for (const v of inputs) out.push(await keys.secretFor((v.policy as { userPubkey: Uint8Array }).userPubkey));
    return out;
  };

  const sentTo = (s: OffboardState): MovementDestination[] => [{ destination: { type: "bitcoin", value: s.destination }, amount_sat: Number(s.netSat) }];

  /** The `offboard` movement of a whole offboard (found again after a crash: pending, same inputs). */
  const offboardMovement = async (s: OffboardState): Promise<number> => {
    if (s.movementId !== undefined) return s.movementId;
    const ids = need(s.offboardVtxoIds, "offboardVtxoIds");
    const gross = -(Number(s.netSat) + Number(s.feeSat));
    return (await movements.findPending("offboard", ids)) ?? movements.create({
      subsystem: { name: "bark.offboard", kind: "offboard" },
      intendedBalanceSat: gross, effectiveBalanceSat: gross, offchainFeeSat: Number(s.feeSat), sentTo: sentTo(s), inputVtxos: ids,
    });
  };

  const txMetadata = (tx: Transaction) => ({ offboard_txid: txidHex(tx), offboard_tx: toHex(encodeTx(tx)) });

  /** The tx with `txid` if the chain has it (mempool or block): the offboard is adopted and waits for confirmations. */
  const adopt = async (s: OffboardState, txid: string): Promise<Outcome | undefined> => {
    const hex = await chain.txHex(txid);
    if (hex === null) return undefined;
    logger.info(`offboard tx ${txid} found on chain, adopting it`);
    const movementId = await offboardMovement(s);
    await movements.update(movementId, { metadata: txMetadata(decodeTx(fromHex(hex))) });
    return { next: "confirming", state: { ...s, movementId, signedTxHex: hex, offboardTxid: txid, broadcastAtMs: ports.now(), lastError: undefined } };
  };

  const lock: ActionStep<OffboardState> = async (s, { id }) => {
    try {
      await vtxos.lock(s.inputIds, id);
    } catch (e) {
      if (isNotReady(e)) throw e;
      return fail(s, `Unable to lock VTXOs: ${errorText(e)}`);
    }
    // the first run returns right away: the request that started it drives the rest after leaving the selection
    if (!s.locked) return { waitMs: 0, state: { ...s, locked: true } };
    if (s.kind === "send_onchain") return { next: "split", state: s };
    return { next: "prepare", state: { ...s, offboardVtxoIds: sortedIds(s.inputIds) } };
  };

  const split: ActionStep<OffboardState> = async (s, { id }) => {
    const inputs = await load(s.inputIds);
    const info = await server.info();
    let result;
    try {
      await server.registerVtxos(inputs.map((v) => encodeVtxo(v)));
      result = await cosignSplit(server, keys, inputs, {
        offboardPubkey: keys.publicKeyAt(need(s.offboardKeyIndex, "offboardKeyIndex")),
        offboardSat: BigInt(s.netSat) + BigInt(s.feeSat),
        change: need(s.changeAmounts, "changeAmounts").map((a, i) => ({ pubkey: keys.publicKeyAt(need(s.changeKeyIndexes, "changeKeyIndexes")[i]!), amountSat: BigInt(a) })),
      }, info.maxVtxoExitDepth);
    } catch (e) {
      if (isNotReady(e)) throw e;
      // refused: nothing was co-signed, the inputs are ours to unlock
      if (e instanceof ArkServerRejectedError || e instanceof ProtocolError) return fail(s, `error preparing offboard vtxos with arkoor: ${errorText(e)}`);
      // the server may have co-signed: never unlock, ask again for the same package
      return retry(s, e, "the arkoor split");
    }
    const offboardIds = sortedIds(result.offboard.map(vtxoIdString));
    const changeIds = result.change.map(vtxoIdString);
    const movementId = await ports.transaction(async () => {
      for (const v of result.offboard) await vtxos.holdNew(v, id);
      for (const v of result.change) await vtxos.holdNew(v, changeHolder(id));
      await vtxos.markSpent(s.inputIds);
      const required = Number(s.netSat) + Number(s.feeSat);
      return (await movements.findPending("send_onchain", s.inputIds)) ?? movements.create({
        subsystem: { name: "bark.offboard", kind: "send_onchain" },
        intendedBalanceSat: -Number(s.netSat), effectiveBalanceSat: -required, offchainFeeSat: Number(s.feeSat),
        sentTo: sentTo(s), inputVtxos: [...s.inputIds], outputVtxos: changeIds, metadata: { offboard_vtxos: offboardIds },
      });
    });
    return {
      next: "registerSplit",
      state: { ...s, splitVtxos: [...result.offboard, ...result.change].map((v) => toHex(encodeVtxo(v))), changeIds, offboardVtxoIds: offboardIds, movementId, lastError: undefined },
    };
  };

  const registerSplit: ActionStep<OffboardState> = async (s, { id }) => {
    try {
      await server.registerVtxos(need(s.splitVtxos, "splitVtxos").map(fromHex));
    } catch (e) {
      if (isNotReady(e)) throw e;
      // the inputs are spent on the server: keep trying, the VTXOs stay held
      return retry(s, e, "registering the arkoor split");
    }
    await vtxos.release(changeHolder(id));
    await server.backupVtxoIds([...(s.changeIds ?? []), ...need(s.offboardVtxoIds, "offboardVtxoIds")]);
    return { next: "prepare", state: { ...s, lastError: undefined } };
  };

  const prepare: ActionStep<OffboardState> = async (s) => {
    const wait = (s.notBeforeMs ?? 0) - ports.now();
    if (wait > 0) return { waitMs: wait };
    const ids = need(s.offboardVtxoIds, "offboardVtxoIds");
    const inputs = await load(ids);
    const script = fromHex(s.scriptHex);
    const offboard = { netAmountSat: BigInt(s.netSat), script, deductFeesFromGrossAmount: s.kind === "offboard", feeRateSatPerKwu: BigInt(s.feeRateSatPerKwu) };
    const rawIds = ids.map((i) => encodeOutPoint(parseOutPoint(i)));
    const msg = offboardAttestation({ value: offboard.netAmountSat, script }, rawIds);
    const secrets = await inputSecrets(inputs);
    const attestations = inputs.map((v, k) => signAttestation(msg, secrets[k]!));
    let prepared;
    try {
      prepared = await server.prepare({ offboard, inputVtxoIds: rawIds, attestations });
    } catch (e) {
      if (isNotReady(e)) throw e;
      if (!(e instanceof ArkServerRejectedError)) return retry(s, e, "PrepareOffboard");
      if (s.priorTxid === undefined) return fail(s, errorText(e));
      // an earlier session's finish may have gone through after all
      const adopted = await adopt(s, s.priorTxid);
      if (adopted) return adopted;
      if (e.inputsCheckedSpendable) {
        logger.warn(`offboard prepare refused after its session was lost, cancelling: ${errorText(e)}`);
        return fail(s, errorText(e));
      }
      logger.error(`offboard inputs refused but the earlier offboard tx ${s.priorTxid} is not on chain; still looking for it: ${errorText(e)}`);
      return { waitMs: timing.pollMs, state: { ...s, lastError: errorText(e) } };
    }
    const tx = decodeTx(prepared.offboardTx);
    try {
      validateOffboardTx(tx, offboard, ids.length);
    } catch (e) {
      if (!(e instanceof OffboardError)) throw e;
      if (s.priorTxid !== undefined) return { waitMs: timing.pollMs, state: { ...s, lastError: `received invalid offboard tx from server: ${e.message}` } };
      return fail(s, `received invalid offboard tx from server: ${e.message}`);
    }
    const movementId = await offboardMovement(s);
    return {
      next: "finish",
      state: { ...s, movementId, preparedTxHex: toHex(prepared.offboardTx), serverNonces: prepared.forfeitCosignNonces.map(toHex), lastError: undefined },
    };
  };

  const finish: ActionStep<OffboardState> = async (s) => {
    const ids = need(s.offboardVtxoIds, "offboardVtxoIds");
    const inputs = await load(ids);
    const tx = decodeTx(fromHex(need(s.preparedTxHex, "preparedTxHex")));
    const sigs = signOffboardForfeits(tx, inputs, await inputSecrets(inputs), need(s.serverNonces, "serverNonces").map(fromHex));
    const txid = txidHex(tx);
    let raw;
    try {
      raw = await server.finish({ offboardTxid: reverseBytes(fromHex(txid)), userNonces: sigs.pubNonces, partialSignatures: sigs.partialSigs });
    } catch (e) {
      if (isNotReady(e)) throw e;
      if (!(e instanceof ArkServerRejectedError)) return retry(s, e, "FinishOffboard");
      // the session is gone: finished and broadcast (adopt the tx), or expired unfinished (prepare again)
      const adopted = await adopt(s, txid);
      if (adopted) return adopted;
      logger.warn(`offboard session of tx ${txid} is gone and the tx is not on chain; preparing a fresh session: ${errorText(e)}`);
      const { preparedTxHex: _tx, serverNonces: _n, ...rest } = s;
      return { next: "prepare", state: { ...rest, priorTxid: txid, notBeforeMs: ports.now() + timing.pollMs, lastError: errorText(e) } };
    }
    let signed: Transaction;
    try {
      signed = decodeTx(raw);
      checkSignedOffboardTx(signed, tx);
    } catch (e) {
      // the server replays the signed tx for this txid: ask again
      return retry(s, new Error(`received an unusable signed offboard tx: ${errorText(e)}`), "FinishOffboard");
    }
    await movements.update(need(s.movementId, "movementId"), { metadata: txMetadata(signed) });
    return { next: "broadcast", state: { ...s, signedTxHex: toHex(encodeTx(signed)), offboardTxid: txid, lastError: undefined } };
  };

  const broadcast: ActionStep<OffboardState> = async (s) => {
    const txid = need(s.offboardTxid, "offboardTxid");
    try {
      if ((await chain.txStatus(txid)) === null) await chain.broadcast(need(s.signedTxHex, "signedTxHex"));
    } catch (e) {
      // signed by the server, which broadcasts it as well: `confirming` re-broadcasts it until it is seen
      logger.warn(`broadcast of offboard tx ${txid} failed, it is re-broadcast while waiting: ${errorText(e)}`);
    }
    return { next: "confirming", state: { ...s, broadcastAtMs: s.broadcastAtMs ?? ports.now() } };
  };

  const confirming: ActionStep<OffboardState> = async (s) => {
    const txid = need(s.offboardTxid, "offboardTxid");
    let status;
    let tip;
    try {
      status = await chain.txStatus(txid);
      tip = await chain.tipHeight();
    } catch (e) {
      return retry(s, e, `checking offboard tx ${txid}`);
    }
    const required = await settings.requiredConfirmations();
    if (status?.confirmed) {
      const confs = tip - status.block.height + 1;
      return confs >= required ? { done: true, state: { ...s, lost: undefined, lastError: undefined } } : { waitMs: timing.pollMs, state: { ...s, lost: undefined } };
    }
    if (status) return required === 0 ? { done: true, state: { ...s, lost: undefined, lastError: undefined } } : { waitMs: timing.pollMs, state: { ...s, lost: undefined } };
    const since = need(s.broadcastAtMs, "broadcastAtMs");
    if (ports.now() - since > (await settings.lostTxGraceSecs()) * 1000) {
      const msg = `offboard tx ${txid} has not been seen on chain since ${new Date(since).toISOString()}; the server can still commit the signed tx, ` +
        "making the forfeits valid, so the inputs stay locked; will keep checking, but manual intervention may be needed";
      if (!s.lost) logger.error(msg);
      return { waitMs: timing.pollMs, state: { ...s, lost: true, lastError: msg } };
    }
    try {
      await chain.broadcast(need(s.signedTxHex, "signedTxHex"));
      logger.info(`offboard tx ${txid} was not found: re-broadcast it`);
    } catch (e) {
      logger.warn(`re-broadcast of offboard tx ${txid} failed: ${errorText(e)}`);
    }
    return { waitMs: timing.pollMs };
  };

  const steps: Record<string, ActionStep<OffboardState>> = { lock, split, registerSplit, prepare, finish, broadcast, confirming };
  return {
    kind: OFFBOARD_ACTION_KIND,
    firstStep: "lock",
    // the VTXOs' final state and the movement's status commit with the action's end
    onEnd: async (id, outcome, s) => {
      if (outcome === "done") {
        await vtxos.markSpent(need(s.offboardVtxoIds, "offboardVtxoIds"));
        if (s.movementId !== undefined) await movements.update(s.movementId, { status: "successful" });
        return;
      }
      // failed only where no forfeit can be completed: every VTXO the action holds is spendable again
      await vtxos.release(id);
      await vtxos.release(changeHolder(id));
      if (s.movementId !== undefined) await movements.update(s.movementId, { status: "failed", effectiveBalanceSat: 0 });
      else if (s.locked && s.failure !== undefined && !s.failure.startsWith("Unable to lock VTXOs")) {
        // refused by the server: the history shows what was tried
        const ids = s.offboardVtxoIds ?? [...s.inputIds];
        await movements.create({
          status: "failed", subsystem: { name: "bark.offboard", kind: s.kind }, intendedBalanceSat: -Number(s.netSat), effectiveBalanceSat: 0,
          offchainFeeSat: Number(s.feeSat), sentTo: sentTo(s), inputVtxos: s.kind === "send_onchain" ? [...s.inputIds] : ids,
        });
      }
    },
    steps: Object.fromEntries(Object.entries(steps).map(([name, step]) => [name, withFaultPoints(name, step)])),
  };
}

/** The step names as the fault points name them. */
export const OFFBOARD_FAULT_STEPS = ["lock", "split", "register-split", "prepare", "finish", "broadcast", "confirming"] as const;

const faultName = (step: string): string => step.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * Crash testing: `TENDER_FAULT_INJECT=offboard-<step>:before` kills the daemon as the step starts,
 * `offboard-<step>:after` once its side effects are done but before its outcome is persisted.
 */
function withFaultPoints(name: string, step: ActionStep<OffboardState>): ActionStep<OffboardState> {
  return async (s, ctx) => {
    faultPoint(`offboard-${faultName(name)}:before`);
    const outcome = await step(s, ctx);
    faultPoint(`offboard-${faultName(name)}:after`);
    return outcome;
  };
}
