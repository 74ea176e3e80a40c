/**
 * Which VTXOs the daemon refreshes on its own, from the protocol core's refresh decision
 * (`refreshNeed`): a VTXO **must** be refreshed near its expiry (`vtxo_refresh_expiry_threshold`)
 * or at the server's maximum exit depth; it **should** be a little earlier, at half that depth,
 * below dust, or when exiting it would cost more than it is worth. The should set rides along only
 * when the must set is not empty, so a refresh is never paid for VTXOs that merely should be.
 */
import { refreshNeed, type RefreshParams, type Vtxo } from "@tender/ark-protocol";

/** A spendable VTXO of the wallet. */
export interface RefreshCandidate {
  readonly id: string;
  readonly vtxo: Vtxo;
}

/** The ids to refresh: every must- and should-refresh VTXO when at least one must be, otherwise none (candidate order kept). */
export function maintenanceSelection(candidates: readonly RefreshCandidate[], params: RefreshParams): string[] {
  const needs = candidates.map((c) => ({ id: c.id, need: refreshNeed(c.vtxo, params).need }));
  if (!needs.some((n) => n.need === "must")) return [];
  return needs.filter((n) => n.need !== "no").map((n) => n.id);
}
