import type { MovementStore } from "@tender/plugin-history";
import type { ExitMovements } from "../exit-ports.js";

/** Subsystem of exit movements in the history, as barkd names it. */
export const EXIT_SUBSYSTEM = { name: "bark.exit", kind: "start" } as const;

/**
 * {@link ExitMovements} over the history plugin's movement store: pending while the exit runs,
 * the VTXO as its input, its own output script as where the sats go (barkd's shape).
 */
export function historyExitMovements(store: MovementStore): ExitMovements {
  return {
    async create(m) {
      const amount = Number(m.amountSat);
      const created = await store.create({
        subsystem: EXIT_SUBSYSTEM, intendedBalanceSat: -amount, effectiveBalanceSat: -amount,
        inputVtxos: [m.vtxoId], sentTo: [{ destination: m.destination, amount_sat: amount }],
      });
      return created.id;
    },
    async finish(id, status) {
      await store.update(id, { status });
    },
  };
}
