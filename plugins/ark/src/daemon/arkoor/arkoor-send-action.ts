import { NoWalletError, faultPoint, type ActionDefinition, type StepOutcome } from "@tender/core";
import { decodeVtxo, encodeVtxo, fromHex, ProtocolError, toHex, vtxoIdString, type Vtxo, type VtxoPolicy } from "@tender/ark-protocol";
import { ArkClientClosedError, ArkServerRejectedError } from "@tender/ark-protocol/server";
import type { ArkRail, ArkRailSource, ArkStores } from "../ark-rail.js";
import { NoWalletKeysError } from "../keys/ark-keys.js";
import { arkKeySecrets, cosignArkoor, rebuildArkoorVtxos } from "./arkoor-cosign-completion.js";
import { backUpVtxoIds } from "../recovery/recovery-backup.js";
import { VtxoNotSpendableError } from "../vtxos/vtxo-store.js";

/** Kind of the arkoor send action in the kernel's ActionEngine. */
export const ARKOOR_SEND_ACTION = "ark.arkoor-send";

/** The persisted state of one arkoor payment (JSON: amounts as decimal strings, bytes as hex). */
export interface ArkoorSendState {
  address: string;
  amountSat: string;
  /** Destination `pubkey` policy key (hex). */
  recipientPubkey: string;
  /** Blinded mailbox ids of the address's `ServerMailbox` deliveries (hex). */
  blindedIds: string[];
  inputIds: string[];
  changeKeyIndexes: number[];
  changeAmounts: string[];
  movementId: number | null;
  /**
   * The package's final signatures (hex, per part and sighash; null where a part signs none),
   * once the server cosigned: with the inputs and outputs they rebuild every signed output VTXO
   * (≈ 0.5 KB to store instead of the VTXOs' ≈ 30 KB). `null` again in the ended state of a
   * delivered payment (its change is in the VTXO store, the rest with the payee).
   */
  signatures?: (string | null)[][] | null;
  /** Every signed output VTXO (hex): what earlier versions saved instead of {@link signatures}; `null` in new states. */
  signed: string[] | null;
  delivered: boolean;
  /** The change's ids are in the recovery mailbox (posted while delivering). */
  recoveryPosted?: boolean;
  /** Why the current step waits (server unreachable), for the caller's answer. */
  lastError?: string;
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

/** Fault points (`TENDER_FAULT_INJECT`) of the send, in order: one at the start of every step, and after each server call that changes state. */
export const ARKOOR_SEND_FAULT_POINTS = [
  "ark-send:lock", "ark-send:movement", "ark-send:after-movement", "ark-send:register-inputs", "ark-send:cosign", "ark-send:after-cosign",
  "ark-send:register-outputs", "ark-send:deliver", "ark-send:after-deliver", "ark-send:finalize",
] as const;

/**
 * The fault points inside the transaction that stores a new send (its row, the lock and the
 * movement commit together): a kill at one of them leaves no trace of the payment.
 */
export const ARKOOR_SEND_FIRST_COMMIT_FAULT_POINTS: readonly (typeof ARKOOR_SEND_FAULT_POINTS)[number][] = [
  "ark-send:lock", "ark-send:movement", "ark-send:after-movement",
];

function isRejection(e: unknown): boolean {
  return e instanceof ArkServerRejectedError;
}

/** No wallet is loaded (or it is being unloaded and its connection closed): the step is simply run again later. */
function isNotReady(e: unknown): boolean {
  return e instanceof NoWalletError || e instanceof ArkClientClosedError || e instanceof NoWalletKeysError;
}

/** Wait before a step retries after the server did not answer. */
export const SERVER_RETRY_MS = 3_000;

function retryLater(s: ArkoorSendState, e: unknown): StepOutcome<ArkoorSendState> {
  return { waitMs: SERVER_RETRY_MS, state: { ...s, lastError: e instanceof Error ? e.message : String(e) } };
}

function fail(state: ArkoorSendState, e: unknown): StepOutcome<ArkoorSendState> {
  return { failed: e instanceof Error ? e.message : String(e), state };
}

/** The inputs (decoded) and whether each one's chain is known registered with the server, in one read. */
async function inputVtxos(w: ArkRail, s: ArkoorSendState): Promise<{ inputs: Vtxo[]; registered: boolean[] }> {
  const found = await w.vtxos.getMany(s.inputIds);
  return {
    inputs: found.map((f, k) => {
      if (!f) throw new Error(`input VTXO ${s.inputIds[k]} is missing from the store`);
      return f.stored.vtxo;
    }),
    registered: found.map((f) => f?.recoveryRegistered ?? false),
  };
}

function outputsOf(s: ArkoorSendState, w: ArkRail): { amount: bigint; policy: VtxoPolicy }[] {
  return [
    { amount: BigInt(s.amountSat), policy: { type: "pubkey", userPubkey: fromHex(s.recipientPubkey) } },
    ...s.changeAmounts.map((a, i) => ({ amount: BigInt(a), policy: { type: "pubkey", userPubkey: w.keys.deriveVtxoKey(s.changeKeyIndexes[i]!).publicKey } as VtxoPolicy })),
  ];
}

/** A payment's signed output VTXOs with their encodings. */
interface SignedOutputs {
  readonly vtxos: readonly Vtxo[];
  readonly bytes: readonly Uint8Array[];
}

/**
 * The signed output VTXOs of the payments this process is making, by action: the later steps of
 * a payment need not rebuild or decode them again. After a restart they are rebuilt from the
 * saved signatures (or decoded, for a state saved by an earlier version).
 */
class SignedOutputsCache {
  private readonly byAction = new Map<string, SignedOutputs>();

  /** Keeps a payment's signed VTXOs with their encodings (encoded here unless given). */
  keep(id: string, vtxos: readonly Vtxo[], bytes: readonly Uint8Array[] = vtxos.map((v) => encodeVtxo(v))): SignedOutputs {
    if (this.byAction.size >= 1_024) this.byAction.clear();
    const kept = { vtxos, bytes };
    this.byAction.set(id, kept);
    return kept;
  }

  async of(id: string, s: ArkoorSendState, w: ArkRail): Promise<SignedOutputs> {
    const known = this.byAction.get(id);
    if (known) return known;
    if (s.signatures) {
      const { inputs } = await inputVtxos(w, s);
      const sigs = s.signatures.map((part) => part.map((sig) => (sig === null ? null : fromHex(sig))));
      return this.keep(id, rebuildArkoorVtxos(inputs, outputsOf(s, w), sigs));
    }
    const bytes = (s.signed ?? []).map(fromHex);
    return this.keep(id, bytes.map((b) => decodeVtxo(b)), bytes);
  }

  forget(id: string): void {
    this.byAction.delete(id);
  }
}

/** The signed VTXOs (with their encodings) split into the change (the action's change keys) and what was sent. */
function splitSigned(s: ArkoorSendState, w: ArkRail, signed: SignedOutputs): { change: Vtxo[]; sent: { vtxo: Vtxo; bytes: Uint8Array }[] } {
  const changeKeys = new Set(s.changeKeyIndexes.map((i) => toHex(w.keys.deriveVtxoKey(i).publicKey)));
  const isChange = (v: Vtxo) => v.policy.type === "pubkey" && changeKeys.has(toHex(v.policy.userPubkey));
  const change: Vtxo[] = [];
  const sent: { vtxo: Vtxo; bytes: Uint8Array }[] = [];
  signed.vtxos.forEach((vtxo, k) => {
    if (isChange(vtxo)) change.push(vtxo);
    else sent.push({ vtxo, bytes: signed.bytes[k]! });
  });
  return { change, sent };
}

/**
 * The arkoor send (an out-of-round payment co-signed by the server) as a crash-safe action in
 * three commits: (1) lock the inputs and open the movement (local: one transaction, run while the
 * caller still holds the VTXO selection); (2) register the inputs' chains and get the package
 * cosigned (checkpoints), saving the signed VTXOs; (3) register every output, deliver to the
 * address's mailbox and back the change up for recovery, then — in the transaction that records
 * the end — store the change, mark the inputs spent and settle the movement. Every server call
 * happens after the state it depends on was saved; a resumed step is idempotent (the server
 * replays a cosign for the same package, registrations and mailbox posts are idempotent).
 * `fresh` holds the ids of actions this process just started (their movement needs no search).
 * Locking, the movement and a failed end use only the stores, so a failed send always unlocks its inputs.
 * The steps `movement`, `registerInputs` and `registerOutputs` are kept for actions saved by
 * earlier versions, which had a step (and a commit) for each.
 */
export function arkoorSendAction(rail: ArkRailSource, stores: ArkStores, fresh: Set<string> = new Set()): ActionDefinition<ArkoorSendState> {
  const signedOutputs = new SignedOutputsCache();
  const movement = async (s: ArkoorSendState, id: string): Promise<ArkoorSendState> => {
    faultPoint("ark-send:movement");
    const w = stores;
    // an action not started by this process may have created its movement before a crash (an
    // earlier version committed it apart from the lock): find it instead of creating a second one
    const existing = fresh.delete(id) ? undefined : (await w.movements.list()).find((m) =>
      m.subsystem.name === "bark.arkoor" && m.subsystem.kind === "send" && m.status === "pending" && sameIds(m.input_vtxos, s.inputIds));
    const amount = Number(s.amountSat);
    const m = existing ?? await w.movements.create({
      subsystem: { name: "bark.arkoor", kind: "send" },
      intendedBalanceSat: -amount,
      effectiveBalanceSat: -amount,
      offchainFeeSat: 0,
      sentTo: [{ destination: { type: "ark", value: s.address }, amount_sat: amount }],
      inputVtxos: s.inputIds,
    });
    faultPoint("ark-send:after-movement");
    return { ...s, movementId: m.id };
  };
  const cosign = async (s: ArkoorSendState, { id }: { id: string }): Promise<StepOutcome<ArkoorSendState>> => {
    faultPoint("ark-send:register-inputs");
    const w = await rail();
    // inputs whose chains the server has (recorded with their recovery backup) need no registration
    const { inputs, registered } = await inputVtxos(w, s);
    const unregistered = inputs.filter((_, k) => !registered[k]);
    try {
      if (unregistered.length > 0) await w.server.registerVtxoTransactions(unregistered.map((v) => encodeVtxo(v)));
    } catch (e) {
      if (isNotReady(e)) throw e;
      // a refused registration is left to the cosign request (which the server refuses for an
      // unknown chain); an unanswered one is retried: the cosign may have been asked before a crash
      if (!isRejection(e)) return retryLater(s, e);
    }
    faultPoint("ark-send:cosign");
    const info = (await w.server.connect()).arkInfo;
    let cosigned;
    try {
      cosigned = await cosignArkoor(arkKeySecrets(w.keys), inputs, outputsOf(s, w), { maxExitDepth: info.maxVtxoExitDepth || undefined },
        (parts) => w.server.requestArkoorCosign(parts));
    } catch (e) {
      if (isRejection(e) || e instanceof ProtocolError) return fail(s, e);
      if (isNotReady(e)) throw e;
      // the server may have cosigned: never unlock now, ask again with the same package
      return retryLater(s, e);
    }
    faultPoint("ark-send:after-cosign");
    signedOutputs.keep(id, cosigned.vtxos);
    const signatures = cosigned.signatures.map((part) => part.map((sig) => (sig === null ? null : toHex(sig))));
    return { next: "deliver", state: { ...s, signatures, signed: null, lastError: undefined } };
  };
  const deliver = async (s: ArkoorSendState, { id }: { id: string }): Promise<StepOutcome<ArkoorSendState>> => {
    faultPoint("ark-send:register-outputs");
    const w = await rail();
    const signed = await signedOutputs.of(id, s, w);
    const { sent, change } = splitSigned(s, w, signed);
    const post = async (): Promise<{ delivered: boolean; rejected: number; lastError: unknown }> => {
      let rejected = 0;
      let lastError: unknown;
      for (const blindedId of s.blindedIds) {
        try {
          await w.server.postArkoorMessage(fromHex(blindedId), sent.map((v) => v.bytes));
          return { delivered: true, rejected, lastError };
        } catch (e) {
          lastError = e;
          if (isRejection(e)) rejected++;
        }
      }
      return { delivered: false, rejected, lastError };
    };
    // the payee's delivery (the server takes it for an output it cosigned), the change's recovery
    // backup (best effort) and registering the outputs are independent: all at once; each is
    // idempotent, so a retry of the step repeats them without harm. Asked in that order: the
    // server takes requests in turn, and checking the outputs' chains is the long one, so the two
    // short ones commit without waiting for it.
    faultPoint("ark-send:deliver");
    const posting = post();
    const backingUp = s.recoveryPosted === true ? Promise.resolve(true) : backUpVtxoIds(w, change.map(vtxoIdString));
    const registering = w.server.registerVtxoTransactions(signed.bytes).then(() => undefined, (e: unknown) => e ?? new Error("registration failed"));
    const [registerError, { delivered, rejected, lastError }, backedUp] = await Promise.all([registering, posting, backingUp]);
    if (registerError !== undefined) {
      if (isNotReady(registerError)) throw registerError;
      return retryLater({ ...s, recoveryPosted: backedUp }, registerError);
    }
    if (!delivered && rejected < s.blindedIds.length) {
      w.logger.warn(`arkoor send: delivery failed, retrying later: ${lastError instanceof Error ? lastError.message : String(lastError)}`);
      return { waitMs: w.settings().deliveryRetryMs, state: { ...s, recoveryPosted: backedUp, lastError: undefined } };
    }
    faultPoint("ark-send:after-deliver");
    return { next: "finalize", state: { ...s, delivered, recoveryPosted: backedUp, lastError: undefined } };
  };
  return {
    kind: ARKOOR_SEND_ACTION,
    firstStep: "lock",
    localSteps: ["lock", "movement", "finalize"],
    steps: {
      lock: async (s, { id }) => {
        faultPoint("ark-send:lock");
        try {
          await stores.locks.lock(s.inputIds, id);
        } catch (e) {
          if (e instanceof VtxoNotSpendableError) return fail(s, e);
          throw e;
        }
        return { next: "cosign", state: await movement(s, id) };
      },
      movement: async (s, { id }) => ({ next: "cosign", state: await movement(s, id) }),
      registerInputs: cosign,
      cosign,
      registerOutputs: deliver,
      deliver,
      finalize: async (s, { id }) => {
        faultPoint("ark-send:finalize");
        const w = stores;
        const r = await rail();
        const { change } = splitSigned(s, r, await signedOutputs.of(id, s, r));
        const changeIds = change.map(vtxoIdString);
        // the outputs' chains were registered and the change's ids posted in the deliver step
        for (const v of change) await w.vtxos.add(v, "spendable", null, { recoveryRegistered: s.recoveryPosted === true });
        await w.vtxos.markSpent(s.inputIds);
        if (s.movementId !== null) {
          await w.movements.update(s.movementId, { status: s.delivered ? "successful" : "failed", outputVtxos: changeIds });
        }
        // a delivered payment's ended state keeps nothing its VTXOs could be rebuilt from (ended
        // actions stay in the database): the change is in the store, the rest with the payee
        if (!s.delivered) return { done: true, state: s };
        return { done: true, state: { ...s, signatures: null, signed: null } };
      },
    },
    onEnd: async (id, outcome, s) => {
      signedOutputs.forget(id);
      if (outcome !== "failed") return;
      await stores.locks.release(id);
      if (s.movementId !== null) await stores.movements.update(s.movementId, { status: "failed" });
    },
  };
}
