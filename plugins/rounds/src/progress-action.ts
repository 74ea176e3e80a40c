import type { ActionDefinition } from "@tender/core";
import { FINAL_STATUSES } from "./participation.js";
import type { ParticipationStore } from "./participation-store.js";
import type { RoundsService } from "./rounds-service.js";

/** Kind of the action that progresses one participation whenever the wallet syncs. */
export const ROUND_PROGRESS_ACTION = "rounds.progress";

/** The action id of participation `id`'s progress. */
export function progressActionId(id: number): string {
  return `round.${id}`;
}

/**
 * One participation's progress as a kernel action: each drive (every `POST /wallet/sync` and
 * wallet load resume the unfinished actions) syncs the participation once; the action ends with
 * the participation. Its state is only the participation's id — the participation lives in its own table.
 */
export function progressAction(service: RoundsService, store: ParticipationStore): ActionDefinition<{ participationId: number }> {
  return {
    kind: ROUND_PROGRESS_ACTION,
    firstStep: "progress",
    steps: {
      progress: async (s) => {
        await service.sync(s.participationId);
        const p = await store.get(s.participationId);
        return !p || FINAL_STATUSES.includes(p.status) ? { done: true, state: s } : { waitMs: 0, state: s };
      },
    },
  };
}
