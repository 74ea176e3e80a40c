import type { Vtxo } from "@tender/ark-protocol";

/**
 * Whether a VTXO carries counterparty risk for the wallet: some out-of-round hop of its history
 * was signed by nobody the wallet holds a key of (someone else could double-spend it with the
 * server), or the wallet cannot sign it itself. A chain made only of the wallet's own arkoor hops
 * on its own round or board VTXOs carries none.
 */
export async function hasCounterpartyRisk(vtxo: Vtxo, isOwn: (pubkey: Uint8Array) => Promise<boolean>): Promise<boolean> {
  for (const item of vtxo.genesis) {
    if (item.transition.kind !== "arkoor") continue;
    let ownsAny = false;
    for (const pk of item.transition.clientCosigners) {
      if (await isOwn(pk)) {
        ownsAny = true;
        break;
      }
    }
    if (!ownsAny) return true;
  }
  const user = (vtxo.policy as { userPubkey?: Uint8Array }).userPubkey;
  return user === undefined || !(await isOwn(user));
}
