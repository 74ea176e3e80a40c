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
import { toHex } from "@tender/ark-protocol";
import { ArkServerRejectedError } from "@tender/ark-protocol/server";
import { faultPoint } from "@tender/core";
import { errorText } from "./errors.js";
import type { Participation } from "./participation.js";
import type { ParticipationStore } from "./participation-store.js";
import type { RoundCompletion } from "./round-completion.js";
import type { RoundOutcomes } from "./round-outcomes.js";
import type { RoundIssuance } from "./round-issuance.js";
import { inputVtxos, ownedInputs, roundOutputs } from "./round-materials.js";
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
    private readonly issuance: RoundIssuance,
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
    const answer = await this.issuance.ask(p);
    if (answer.kind === "not-found") return failedStatus(await this.outcomes.fail(p, "server reports round participation not found"));
    if (answer.kind === "pending") return { status: "pending" };
    const taken = await this.issuance.take(p, answer.status);
    if (taken.kind === "busy") return { status: "pending" };
    if (taken.kind === "gone") return failedStatus(await this.outcomes.fail(p, taken.reason));
    faultPoint("round-delegated:issued");
    return this.completion.progress(taken.participation);
  }
}

function failedStatus(p: Participation): RoundStatusJson {
  return { status: "failed", error: p.error ?? "round failed" };
}
