import { randomUUID } from "node:crypto";
import { ActionEngine, BadRequestError, InternalServerError } from "@tender/core";
import {
  AddressError, InsufficientFundsError, checkArkoorAddress, exitDepth, selectVtxos, splitChange, toHex,
} from "@tender/ark-protocol";
import type { ArkRailSource } from "../ark-rail.js";
import { protocolNetworkOf } from "../connection/networks.js";
import { ARKOOR_SEND_ACTION, type ArkoorSendState } from "./arkoor-send-action.js";
import type { ArkDestination } from "./destination.js";

/**
 * Starts arkoor payments: checks the address against the connected server, selects inputs
 * (soonest expiry first, skipping too-deep VTXOs), splits the change, reserves change keys and
 * hands everything to the persisted {@link ARKOOR_SEND_ACTION}. Resolves when the payment was
 * delivered (or is signed and parked for a delivery retry); throws barkd's errors otherwise —
 * a 500 also when the server stopped answering after the cosign request (the action then
 * finishes the same payment in the background; it is never unlocked and re-spent).
 */
export class ArkoorSender {
  constructor(private readonly rail: ArkRailSource, private readonly engine: ActionEngine, private readonly fresh: Set<string>) {}

  async send(dest: ArkDestination, amountSat: bigint): Promise<void> {
    const w = await this.rail();
    const info = await w.server.connect().then((s) => s.arkInfo, (e: unknown) => {
      throw new InternalServerError(`Failed to send arkoor payment: ${e instanceof Error ? e.message : String(e)}`);
    });
    let deliveries;
    try {
      deliveries = checkArkoorAddress(dest.decoded, { network: protocolNetworkOf(w.settings().network), serverPubkey: info.serverPubkey });
    } catch (e) {
      if (e instanceof AddressError) throw new BadRequestError(e.message);
      throw e;
    }
    const blindedIds = deliveries.flatMap((d) => (d.type === "server-mailbox" ? [toHex(d.blindedId)] : []));
    if (blindedIds.length === 0) throw new BadRequestError("Ark address has no supported delivery method");
    if (amountSat <= 0n) throw new BadRequestError("bad request: amount must be greater than zero");
    const amount = amountSat;
    const recipient = dest.decoded.policy.userPubkey;

    // one selection at a time (shared with every rail), so two sends never pick the same VTXOs
    const begun = await w.locks.select(async (spendable) => {
      let chosen;
      try {
        chosen = selectVtxos(
          spendable.map((v) => ({ id: v.id, amount: v.amountSat, expiryHeight: v.vtxo.expiryHeight, exitDepth: exitDepth(v.vtxo) })),
          amount,
          { ...(info.maxVtxoExitDepth ? { maxExitDepth: info.maxVtxoExitDepth } : {}) },
        );
      } catch (e) {
        if (e instanceof InsufficientFundsError) throw new InternalServerError(`Failed to send arkoor payment: ${e.message}`);
        throw e;
      }
      const pieces = splitChange(chosen.total - amount, amount, w.settings().changeSplitFactor);
      // fresh change keys, never the destination key, recorded with the action that uses them
      const { keys: changeKeys, persist } = await w.keys.reserveVtxoKeys(pieces.length, (k) => toHex(k.publicKey) === toHex(recipient));
      const state: ArkoorSendState = {
        address: dest.address, amountSat: amount.toString(), recipientPubkey: toHex(recipient), blindedIds,
        inputIds: chosen.selected.map((c) => c.id), changeKeyIndexes: changeKeys.map((k) => k.index),
        changeAmounts: pieces.map((p) => p.toString()), movementId: null, signed: null, delivered: false,
      };
      // the inputs are locked (with the movement, in one transaction) before the selection is
      // released; the server calls run after it, so independent payments proceed side by side
      const id = randomUUID();
      this.fresh.add(id);
      return this.engine.begin(ARKOOR_SEND_ACTION, state, id, persist);
    });
    const started = begun.step === "failed" ? begun : ((await this.engine.drive(begun.id)) as typeof begun);
    if (started.step === "failed") throw new InternalServerError(`Failed to send arkoor payment: ${started.error ?? "unknown error"}`);
    // signed and registered (a wait in the deliver step without an error is a delivery retry):
    // the payment is made, delivery is retried in the background
    if (started.step === "done" || started.step === "finalize" || (started.step === "deliver" && !started.state.lastError)) return;
    throw new InternalServerError(
      `Failed to send arkoor payment: the Ark server did not answer (${started.state.lastError ?? "unknown error"}); ` +
        "the payment stays pending and is completed in the background",
    );
  }
}
