import type { MovementStore } from "@tender/plugin-history";
import type { BoardMovements } from "../board-ports.js";

/** Subsystem of board movements in the history, as barkd names it. */
export const BOARD_SUBSYSTEM = { name: "bark.board", kind: "board" } as const;

/** {@link BoardMovements} over the history plugin's movement store. */
export function historyBoardMovements(store: MovementStore): BoardMovements {
  return {
    async findByAnchor(chainAnchor) {
      const all = await store.list();
      return all.find((m) => m.subsystem.name === BOARD_SUBSYSTEM.name && m.metadata?.chain_anchor === chainAnchor)?.id;
    },
    async create(m) {
      const created = await store.create({
        subsystem: BOARD_SUBSYSTEM,
        metadata: { chain_anchor: m.chainAnchor, onchain_fee_sat: Number(m.onchainFeeSat) },
        intendedBalanceSat: Number(m.amountSat),
        effectiveBalanceSat: Number(m.vtxoAmountSat),
        offchainFeeSat: Number(m.boardFeeSat),
        outputVtxos: [m.vtxoId],
      });
      return created.id;
    },
    async finish(id, status) {
      await store.update(id, { status });
    },
  };
}
