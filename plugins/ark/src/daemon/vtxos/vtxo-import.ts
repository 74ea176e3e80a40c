import { BadRequestError, InternalServerError } from "@tender/core";
import { decodeVtxo, fromHex, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import type { ArkRail } from "../ark-rail.js";
import { postRecoveryIds } from "../mailbox/recovery-ids.js";
import { checkReceivedVtxo } from "./received-vtxo.js";
import type { StoredVtxo } from "./vtxo-store.js";

/**
 * `POST /wallet/import-vtxo` (bark's import rules): in order, each hex VTXO is decoded
 * (400), returned as stored when already known (idempotent), otherwise checked — anchored on chain,
 * fully signed, owned by a wallet key, not expired — import: after the tip (500 `Failed to import VTXO: …`, bark's texts) — registered
 * with the server and stored as spendable. Not transactional: earlier items stay imported.
 */
export async function importVtxos(w: ArkRail, hexes: readonly string[]): Promise<StoredVtxo[]> {
  if (hexes.length === 0) throw new BadRequestError("No VTXOs provided");
  const out: StoredVtxo[] = [];
  for (const hex of hexes) {
    let vtxo: Vtxo;
    try {
      vtxo = decodeVtxo(fromHex(hex));
    } catch (e) {
      throw new BadRequestError(`bad request: invalid vtxo hex: ${e instanceof Error ? e.message : String(e)}`);
    }
    const id = vtxoIdString(vtxo);
    const known = await w.vtxos.get(id);
    if (known) {
      out.push(known);
      continue;
    }
    try {
      const info = (await w.server.connect()).arkInfo;
      await checkReceivedVtxo(vtxo, { chain: w.chain, keys: w.keys, serverPubkey: info.serverPubkey, exitDelta: info.vtxoExitDelta, importing: true });
    } catch (e) {
      throw new InternalServerError(`Failed to import VTXO: ${e instanceof Error ? e.message : String(e)}`);
    }
    await w.vtxos.add(vtxo, "spendable");
    await postRecoveryIds(w, [id]);
    out.push((await w.vtxos.get(id))!);
  }
  return out;
}
