/**
 * Claims of HTLC exits, made without being asked. The outputs of Lightning HTLC VTXOs that went
 * on chain are contested: the server may take an HTLC-recv output through its timeout clause
 * once the HTLC expires (a few blocks after the wallet's hash clause opens), and an HTLC-send
 * output through its hash clause whenever it learns the preimage. Other exits wait for the
 * user's claim, as barkd's do; these are claimed to a fresh address of the on-chain wallet as soon
 * as they are claimable, in the background pass after the exits' progress.
 */
import { claimExits } from "./exit-claim.js";
import type { ExitService } from "./exit-service.js";

const HTLC_POLICIES = new Set(["server-htlc-send", "server-htlc-receive", "server-htlc-receive-v1"]);

export class HtlcExitClaimer {
  /** The destination of the claims of this run: one fresh address, used again until a claim goes out. */
  private destination: Uint8Array | undefined;

  constructor(private readonly service: ExitService) {}

  /** Claims every claimable exit of an HTLC VTXO in one transaction; answers the VTXO ids claimed. */
  async claimDue(): Promise<string[]> {
    const { store, ports } = this.service;
    const ids: string[] = [];
    for (const r of await store.exits()) {
      if (r.state.type !== "claimable") continue;
      const v = await ports.vtxos.get(r.vtxoId);
      if (v && HTLC_POLICIES.has(v.vtxo.policy.type)) ids.push(r.vtxoId);
    }
    if (ids.length === 0) return [];
    this.destination ??= await ports.wallet.freshScript();
    this.service.logger.info(`claiming the exits of HTLC VTXO(s) ${ids.join(", ")} to the on-chain wallet before the server can take them`);
    await claimExits(this.service, ids, this.destination, undefined);
    this.destination = undefined;
    return ids;
  }
}
