/**
 * Delegated (non-interactive) round participations: the wallet hands its inputs and outputs to
 * the server, which includes them in the next round it can (after the sign-up window, once the
 * tip reaches a scheduled height), and reports their status.
 *
 * `SubmitRoundParticipation` checks, in order:
 *
 * | Check | Refusal |
 * |---|---|
 * | pver ≥ 5 | update-needed text |
 * | inputs unique, at least one | "user provided duplicate inputs" / "invalid request: no inputs" |
 * | inputs exist | NOT_FOUND "vtxo does not exist" |
 * | attestation per input over (id, outputs) | "attestation for vtxo X failed" |
 * | scheduled: inputs expire after the height | "input vtxo X expires at height E, before the scheduled refresh height H" |
 * | outputs and balance | see `round-requests.ts` |
 * | refresh fee at the scheduled height (or tip) | "refresh fee check failed: bad user input: insufficient refresh fee: …" |
 * | inputs not held by a running operation | "input VTXO already locked" |
 * | inputs spendable | "input vtxo(s) unusable" + identifiers |
 *
 * A new participation replaces any older pending one sharing an input. At a round, the
 * re-checks (maximum amount, room, locks, allowed, spendable) drop a failing participation
 * (its status becomes NOT_FOUND); one that does not fit waits for the next round.
 */
import { randomBytes } from "node:crypto";
import {
  buildUnsignedVtxoTree,
  decodeSignedVtxoTreeSpec,
  delegatedRoundAttestation,
  encodeOutPoint,
  encodeVtxo,
  formatOutPoint,
  fromHex,
  parseOutPoint,
  sha256,
  toHex,
  treeLeafVtxo,
  txidHex,
  verifyAttestation,
  decodeVtxo,
} from "@tender/ark-protocol";
import { VtxoLockedError } from "../async-lock.js";
import { heightFromNumber, policyFromBytes, pubkeyFromBytes, vtxoIdFromBytes } from "../request-decoding.js";
import { BadUserInputError, NotFoundError, RequestConversionError, UnusableInputsError } from "../server-errors.js";
import type { ServerContext } from "../server-context.js";
import { checkRoundBalance, checkRoundOutputs, checkRoundPver } from "./round-requests.js";
import { unusableReason } from "./round-inputs.js";
import type { RoundAttempt } from "./round-attempt.js";
import type { RoundOutputSpec, RoundStore, StoredParticipation } from "./round-store.js";

/** `RoundParticipationRequest` as plain data. */
export interface RoundParticipationData {
  readonly inputs: readonly { vtxoId?: Uint8Array; attestation?: Uint8Array }[];
  readonly outputs: readonly { amount: bigint; policy?: Uint8Array }[];
  readonly mailboxId?: Uint8Array;
  readonly scheduledHeight?: number;
}

/** `RoundParticipationStatus` codes of the wire enum. */
export const ParticipationStatusCode = { PENDING: 0, ISSUED: 1, RELEASED: 2 } as const;

/** `RoundParticipationStatusResponse` as plain data. */
export interface ParticipationStatusData {
  status: number;
  inputVtxoIds: Uint8Array[];
  roundFundingTx?: Uint8Array;
  outputVtxos: Uint8Array[];
  unlockPreimage?: Uint8Array;
}

/** The delegated participations of the server. */
export class DelegatedParticipations {
  constructor(
    private readonly ctx: ServerContext,
    private readonly rounds: RoundStore,
  ) {}

  /** `SubmitRoundParticipation`: checks, stores (replacing older pending ones on the same inputs), returns the unlock hash. */
  async submit(req: RoundParticipationData, pver: number): Promise<Uint8Array> {
    checkRoundPver(pver);
    const points = req.inputs.map((i) => vtxoIdFromBytes(i.vtxoId));
    const outputs: RoundOutputSpec[] = req.outputs.map((o) => ({ amount: o.amount, policy: policyFromBytes(o.policy) }));
    const mailboxId = req.mailboxId?.length ? toHex(pubkeyFromBytes(req.mailboxId)) : null;
    const scheduledHeight = req.scheduledHeight === undefined ? null : heightFromNumber(req.scheduledHeight, "scheduled_height");
    const ids = points.map(formatOutPoint);
    if (ids.length === 0) throw new BadUserInputError("invalid request: no inputs");
    if (new Set(ids).size !== ids.length) throw new BadUserInputError("user provided duplicate inputs");
    const rows = await Promise.all(ids.map((id) => this.ctx.store.getVtxo(id)));
    const missing = ids.filter((_, i) => !rows[i]);
    if (missing.length) throw new NotFoundError("vtxo does not exist", missing);
    const vtxos = rows.map((r) => decodeVtxo(r!.bytes));
    vtxos.forEach((v, i) => {
      const sig = req.inputs[i]!.attestation ?? new Uint8Array(0);
      if (sig.length !== 64 || !verifyAttestation(sig, delegatedRoundAttestation(encodeOutPoint(points[i]!), outputs), v.policy.userPubkey)) {
        throw new BadUserInputError(`attestation for vtxo ${ids[i]} failed`, undefined, [ids[i]!]);
      }
    });
    if (scheduledHeight !== null) {
      vtxos.forEach((v, i) => {
        if (v.expiryHeight <= scheduledHeight) {
          throw new BadUserInputError(`input vtxo ${ids[i]} expires at height ${v.expiryHeight}, before the scheduled refresh height ${scheduledHeight}`, undefined, [ids[i]!]);
        }
      });
    }
    checkRoundOutputs(outputs, this.ctx.config.maxVtxoAmount);
    checkRoundBalance(vtxos, outputs, this.ctx.config.fees.refresh, scheduledHeight ?? (await this.ctx.chain.tipHeight()), "refresh fee check failed");
    const locked = ids.filter((id) => this.ctx.locks.isLocked(id));
    if (locked.length) throw new BadUserInputError("input VTXO already locked", undefined, locked);
    const bad: string[] = [];
    for (const r of rows) if ((await unusableReason(this.ctx, r!)) !== null) bad.push(r!.id);
    if (bad.length) throw new UnusableInputsError("input vtxo(s) unusable", `unusable inputs: [${bad.join(",")}]`, bad);

    const unlockPreimage = new Uint8Array(randomBytes(32));
    const unlockHash = sha256(unlockPreimage);
    const replaced = await this.rounds.insertDelegated({
      unlockHash: toHex(unlockHash),
      unlockPreimage,
      kind: "delegated",
      inputs: ids,
      outputs,
      mailboxId,
      scheduledHeight,
      roundId: null,
      outputVtxoIds: null,
      forfeitedAt: null,
    });
    this.ctx.logger.debug(`delegated participation ${toHex(unlockHash)}: ${ids.length} input(s)${replaced.length ? `, replaces ${replaced.join(", ")}` : ""}`);
    return unlockHash;
  }

  /** `RoundParticipationStatus`. */
  async status(unlockHash: Uint8Array | undefined): Promise<ParticipationStatusData> {
    if (!unlockHash || unlockHash.length !== 32) throw new RequestConversionError("invalid unlock hash");
    const hex = toHex(unlockHash);
    const p = await this.rounds.getParticipation(hex);
    if (!p) throw new NotFoundError("round participation not found", [hex]);
    const inputVtxoIds = p.inputs.map((id) => encodeOutPoint(parseOutPoint(id)));
    if (!p.roundId || !p.outputVtxoIds) return { status: ParticipationStatusCode.PENDING, inputVtxoIds, outputVtxos: [] };
    const round = await this.rounds.getRound(p.roundId);
    const fundingTx = await this.ctx.store.getTx(p.roundId);
    if (!round || !fundingTx) throw new Error(`round ${p.roundId} of participation ${hex} is missing`);
    const signed = decodeSignedVtxoTreeSpec(round.signedTree);
    const tree = buildUnsignedVtxoTree(signed.spec, signed.rootOutpoint);
    const outputVtxos = p.outputVtxoIds.map((id) => {
      const leafIdx = tree.spec.leaves.findIndex((_, i) => `${txidHex(tree.txs[i]!)}:0` === id);
      if (leafIdx < 0) throw new Error(`output ${id} is not in round ${p.roundId}`);
      return encodeVtxo(treeLeafVtxo(tree, leafIdx, signed.signatures, null, { type: "hash", hash: fromHex(hex) }));
    });
    const released = p.forfeitedAt !== null;
    return {
      status: released ? ParticipationStatusCode.RELEASED : ParticipationStatusCode.ISSUED,
      inputVtxoIds,
      roundFundingTx: fundingTx.raw,
      outputVtxos,
      ...(released ? { unlockPreimage: p.unlockPreimage } : {}),
    };
  }

  /**
   * Adds the pending participations due at the tip to `attempt`, re-checking each; failing ones
   * are deleted, ones that do not fit wait.
   */
  async includeIn(attempt: RoundAttempt): Promise<void> {
    const tip = await this.ctx.chain.tipHeight();
    for (const p of await this.rounds.pendingDelegated()) {
      if (p.scheduledHeight !== null && p.scheduledHeight > tip) continue;
      const verdict = await this.recheck(attempt, p);
      if (verdict === "ok") {
        attempt.addDelegated({ participation: p, unlockHash: fromHex(p.unlockHash) });
        continue;
      }
      if (verdict === "wait") continue;
      this.ctx.logger.debug(`delegated participation ${p.unlockHash} dropped: ${verdict}`);
      await this.rounds.deletePending(p.unlockHash);
    }
  }

  private async recheck(attempt: RoundAttempt, p: StoredParticipation): Promise<"ok" | "wait" | string> {
    const max = this.ctx.config.maxVtxoAmount;
    if (max !== undefined && p.outputs.some((o) => o.amount > max)) return `output exceeds maximum vtxo amount of ${max}`;
    if (attempt.outputCount + p.outputs.length > attempt.capacity) return "wait";
    const excluded = p.inputs.find((id) => attempt.excluded.has(id) || attempt.holds(id));
    if (excluded) return `input ${excluded} is not allowed in this round`;
    try {
      attempt.lock(p.inputs);
    } catch (e) {
      if (e instanceof VtxoLockedError) return `input VTXO already locked: ${e.ids.join(", ")}`;
      throw e;
    }
    for (const id of p.inputs) {
      const row = await this.ctx.store.getVtxo(id);
      const reason = row ? await unusableReason(this.ctx, row) : `vtxo ${id} does not exist`;
      if (reason) {
        attempt.unlock(p.inputs);
        return reason;
      }
    }
    return "ok";
  }
}
