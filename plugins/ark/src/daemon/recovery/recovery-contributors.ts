import type { Vtxo } from "@tender/ark-protocol";
import type { RecoveryReport } from "./recovery-report.js";

/**
 * What a rail adds to a recovery from the seed. Every hook is optional; a hook that throws is
 * logged and the recovery goes on.
 */
export interface RecoveryContributor {
  /**
   * VTXOs whose own transaction recovery found confirmed on chain, already stored as `exited`:
   * the exits rail starts their exits here, so the on-chain outputs get claimed.
   */
  exited?(vtxos: readonly Vtxo[]): Promise<void>;
  /** The recovery ended with `report` (after its retries; the VTXOs it found are stored). */
  finished?(report: RecoveryReport): Promise<void>;
}

/**
 * Extension point of the Ark plugin (`RecoveryContributorsService`): rails that take part in a
 * wallet's recovery from its seed register here. The recovery itself is the Ark rail's: it reads
 * the recovery mailbox, where every rail backs up the ids of the VTXOs it stores, so a rail's
 * outputs are found as soon as the rail posts their ids.
 */
export class RecoveryContributors {
  private readonly contributors: { plugin: string; contributor: RecoveryContributor }[] = [];

  /** Adds `plugin`'s contribution (one per plugin; a second one is refused). */
  register(plugin: string, contributor: RecoveryContributor): void {
    if (this.contributors.some((c) => c.plugin === plugin)) throw new Error(`plugin ${plugin} already contributes to recovery`);
    this.contributors.push({ plugin, contributor });
  }

  /** Every contribution, in registration order. */
  list(): readonly { plugin: string; contributor: RecoveryContributor }[] {
    return this.contributors;
  }
}
