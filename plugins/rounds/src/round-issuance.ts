/**
 * What the server says about a participation's unlock hash (`RoundParticipationStatus`), and
 * taking the outputs of a round that issued them. A delegated participation always learns its
 * round this way; an interactive one does when this process lost its own view of the round (a
 * restart after it joined, a stream that went on to a later round before the `finished` event
 * arrived) — the server stores every participation of a finished round under its unlock hash.
 */
import { encodeVtxo, fromHex, toHex } from "@tender/ark-protocol";
import { ArkServerNotFoundError, type RoundParticipationStatus } from "@tender/ark-protocol/server";
import type { Logger } from "@tender/core";
import { VtxoNotSpendableError } from "@tender/plugin-ark";
import { errorText } from "./errors.js";
import { lockOwner, type Participation } from "./participation.js";
import type { ParticipationStore } from "./participation-store.js";
import { inputVtxos, roundOutputs, serverParams } from "./round-materials.js";
import type { RoundPorts } from "./round-ports.js";

/** A status whose round issued the outputs. */
export type IssuedStatus = Extract<RoundParticipationStatus, { status: "issued" | "released" }>;

/** The server's answer about a participation. */
export type IssuanceAnswer =
  /** No round carried it yet (a delegated participation waiting for its round). */
  | { readonly kind: "pending" }
  /** The server knows no participation with this unlock hash: no round carried it, and none will. */
  | { readonly kind: "not-found" }
  | { readonly kind: "issued"; readonly status: IssuedStatus };

/** What taking issued outputs came to. */
export type Taken =
  | { readonly kind: "finished"; readonly participation: Participation }
  /** Another action holds an input for now: try again later. */
  | { readonly kind: "busy" }
  /** An input is no longer the wallet's to forfeit (spent or exited meanwhile). */
  | { readonly kind: "gone"; readonly reason: string };

export class RoundIssuance {
  constructor(
    private readonly store: ParticipationStore,
    private readonly ports: RoundPorts,
    private readonly logger: Logger,
  ) {}

  /** Asks the server about `p`'s unlock hash (which `p` must have). Throws when the server could not be asked. */
  async ask(p: Participation): Promise<IssuanceAnswer> {
    let status: RoundParticipationStatus;
    try {
      status = await this.ports.server.roundParticipationStatus(fromHex(p.unlockHash!));
    } catch (e) {
      if (e instanceof ArkServerNotFoundError) return { kind: "not-found" };
      throw new Error(`error checking round participation status: ${errorText(e)}`, { cause: e });
    }
    if (status.status === "pending") return { kind: "pending" };
    if (status.status === "released") this.logger.warn(`round participation ${p.id}: the server says it already released the unlock preimage`);
    return { kind: "issued", status };
  }

  /**
   * Checks the issued outputs against what `p` asked for (amounts, policies, server, expiry,
   * the unlock hash, each valid up to its hash-locked leaf), holds the inputs from now on (the
   * round spent them into it), and stores `p` finished with the funding tx and the outputs,
   * noting the funding txid on its movement, in one transaction. A bad answer throws.
   */
  async take(p: Participation, status: IssuedStatus): Promise<Taken> {
    const { server, vtxos, protocol } = this.ports;
    const info = await server.info();
    const checked = protocol.checkDelegatedOutputs({
      status, outputs: roundOutputs(p.outputs), server: serverParams(info), inputs: await inputVtxos(vtxos, p), unlockHash: fromHex(p.unlockHash!),
      ...(p.scheduledHeight !== null ? { scheduledHeight: p.scheduledHeight } : {}),
    });
    try {
      await vtxos.lock(p.inputs, lockOwner(p.id));
    } catch (e) {
      if (!(e instanceof VtxoNotSpendableError)) throw e;
      if (e.state === "locked") return { kind: "busy" };
      return { kind: "gone", reason: `round input ${e.vtxoId} is no longer spendable (${e.state})` };
    }
    const participation = await this.ports.transaction(async () => {
      const q = await this.store.update(p.id, {
        status: "finished", inputsLocked: true, fundingTxid: checked.fundingTxid, fundingTx: toHex(status.roundFundingTx),
        outputVtxos: checked.vtxos.map((v) => toHex(encodeVtxo(v))),
      });
      if (p.movementId !== null) await this.ports.movements.noteFunding(p.movementId, checked.fundingTxid);
      return q;
    });
    return { kind: "finished", participation };
  }
}
