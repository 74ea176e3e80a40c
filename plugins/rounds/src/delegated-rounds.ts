/**
 * Delegated participations: handed to the server signed, carried through a round by it, and
 * completed by the wallet on a sync or when the server's mailbox says the round happened.
 *
 * The inputs are not held while the participation waits (a later spend makes the server drop it,
 * and the status then says NOT_FOUND: the refresh failed); they stay spendable and count there,
 * so the balance does not show them as pending in a round. Once the server reports the round
 * issued the outputs, the inputs are locked to the participation (and the outputs count as pending
 * in the round) until the swap stored the new VTXOs.
 */
import { encodeVtxo, fromHex, toHex } from "@tender/ark-protocol";
import { ArkServerNotFoundError, ArkServerRejectedError } from "@tender/ark-protocol/server";
import { faultPoint, type Logger } from "@tender/core";
import { VtxoNotSpendableError } from "@tender/plugin-ark";
import { errorText } from "./errors.js";
import { lockOwner, type Participation } from "./participation.js";
import type { ParticipationStore } from "./participation-store.js";
import type { RoundCompletion } from "./round-completion.js";
import type { RoundOutcomes } from "./round-outcomes.js";
import { inputVtxos, ownedInputs, roundOutputs, serverParams } from "./round-materials.js";
import type { RoundPorts } from "./round-ports.js";
import type { RoundStatusJson } from "./round-status.js";

/** Fault points of a delegated participation, in order (the swap's follow). */
export const DELEGATED_FAULT_POINTS = ["round-delegated:submit", "round-delegated:submitted", "round-delegated:issued"] as const;

export class DelegatedRounds {
  constructor(
    private readonly store: ParticipationStore,
    private readonly ports: RoundPorts,
    private readonly outcomes: RoundOutcomes,
    private readonly completion: RoundCompletion,
    private readonly logger: Logger,
  ) {}

  /**
   * Hands `p` to the server and records its unlock hash. A submission that was cut short by a
   * crash is simply made again: the server replaces a pending participation on the same inputs.
   */
  async submit(p: Participation): Promise<Participation> {
    const { server, keys, vtxos, protocol } = this.ports;
    await server.registerVtxos(await inputVtxos(vtxos, p));
    const request = protocol.prepareDelegatedParticipation({
      inputs: await ownedInputs(vtxos, keys, p), outputs: roundOutputs(p.outputs), mailboxId: await keys.mailboxId(),
      ...(p.scheduledHeight !== null ? { scheduledHeight: p.scheduledHeight } : {}),
    });
    faultPoint("round-delegated:submit");
    const unlockHash = await server.submitRoundParticipation(request);
    const submitted = await this.store.update(p.id, { unlockHash: toHex(unlockHash) });
    faultPoint("round-delegated:submitted");
    return submitted;
  }

  /** Drives a pending delegated participation as far as it goes now. */
  async progress(p: Participation): Promise<RoundStatusJson> {
    if (p.unlockHash === null) {
      try {
        await this.submit(p);
      } catch (e) {
        if (e instanceof ArkServerRejectedError) return failedStatus(await this.outcomes.fail(p, `error submitting round participation to server: ${errorText(e)}`));
        throw e;
      }
      return { status: "pending" };
    }
    const { server, vtxos, protocol } = this.ports;
    let status;
    try {
      status = await server.roundParticipationStatus(fromHex(p.unlockHash));
    } catch (e) {
      if (e instanceof ArkServerNotFoundError) return failedStatus(await this.outcomes.fail(p, "server reports round participation not found"));
      throw new Error(`error checking round participation status: ${errorText(e)}`, { cause: e });
    }
    if (status.status === "pending") return { status: "pending" };
    if (status.status === "released") this.logger.warn(`round participation ${p.id}: the server says it already released the unlock preimage`);
    const info = await server.info();
    const checked = protocol.checkDelegatedOutputs({
      status, outputs: roundOutputs(p.outputs), server: serverParams(info), inputs: await inputVtxos(vtxos, p),
      ...(p.scheduledHeight !== null ? { scheduledHeight: p.scheduledHeight } : {}),
    });
    // the round spent our inputs into it: hold them from now on
    try {
      await vtxos.lock(p.inputs, lockOwner(p.id));
    } catch (e) {
      if (!(e instanceof VtxoNotSpendableError)) throw e;
      if (e.state === "locked") return { status: "pending" }; // another action holds it for now
      return failedStatus(await this.outcomes.fail(p, `round input ${e.vtxoId} is no longer spendable (${e.state})`));
    }
    const finished = await this.ports.transaction(async () => {
      const q = await this.store.update(p.id, {
        status: "finished", inputsLocked: true, fundingTxid: checked.fundingTxid, fundingTx: toHex(status.roundFundingTx),
        outputVtxos: checked.vtxos.map((v) => toHex(encodeVtxo(v))),
      });
      if (p.movementId !== null) await this.ports.movements.noteFunding(p.movementId, checked.fundingTxid);
      return q;
    });
    faultPoint("round-delegated:issued");
    return this.completion.progress(finished);
  }
}

function failedStatus(p: Participation): RoundStatusJson {
  return { status: "failed", error: p.error ?? "round failed" };
}
