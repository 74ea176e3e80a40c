import { encodeVtxo, toHex, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import type { Logger } from "@tender/core";
import { lockOwner, type Participation } from "./participation.js";
import type { ParticipationStore } from "./participation-store.js";
import type { RoundPorts } from "./round-ports.js";

/** How a participation ends: each end commits in one database transaction. */
export class RoundOutcomes {
  constructor(private readonly store: ParticipationStore, private readonly ports: RoundPorts, private readonly logger: Logger) {}

  /**
   * Ends `p` as failed, before any forfeit was sent: its inputs return to spendable and its
   * movement fails, together with the participation's status.
   */
  async fail(p: Participation, error: string): Promise<Participation> {
    const stored = await this.store.get(p.id);
    if (stored?.status === "failed" || stored?.status === "canceled") return stored;
    for (const s of [p.status, stored?.status]) {
      if (s === "forfeiting" || s === "done") throw new Error(`participation ${p.id} ${s === "done" ? "is done" : "sent its forfeits"}: it cannot fail`);
    }
    this.logger.warn(`round participation ${p.id} failed: ${error}`);
    return this.ports.transaction(async () => {
      // released whatever the row says: a crash may have left a lock the row does not record yet
      await this.ports.vtxos.release(lockOwner(p.id));
      const failed = await this.store.update(p.id, { status: "failed", error, inputsLocked: false });
      // the stored row's movement: `p` may have been read before its movement was attached
      const movementId = stored?.movementId ?? p.movementId;
      if (movementId !== null) await this.ports.movements.finish(movementId, "failed");
      return failed;
    });
  }

  /**
   * Ends `p` as done with its unlocked output VTXOs: the outputs become spendable, the inputs
   * spent, the movement successful (outputs, funding txid) and the participation done, in one
   * transaction; then the new ids are backed up in the recovery mailbox (best effort).
   */
  async succeed(p: Participation, outputs: readonly Vtxo[]): Promise<Participation> {
    const ids = outputs.map(vtxoIdString);
    const done = await this.ports.transaction(async () => {
      await this.ports.vtxos.storeSpendable(outputs);
      await this.ports.vtxos.markSpent(p.inputs);
      // inputs a maintenance refresh dropped after a crash may still name this participation
      await this.ports.vtxos.release(lockOwner(p.id));
      const q = await this.store.update(p.id, { status: "done", inputsLocked: false, outputVtxos: outputs.map((v) => toHex(encodeVtxo(v))) });
      if (p.movementId !== null) await this.ports.movements.finish(p.movementId, "successful", { outputs: ids, fundingTxid: p.fundingTxid ?? "" });
      return q;
    });
    this.logger.info(`round participation ${p.id} done: funding tx ${p.fundingTxid}, new VTXOs ${ids.join(", ")}`);
    await this.ports.server.backupVtxoIds(ids);
    return done;
  }
}
