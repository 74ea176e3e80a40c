import type { ArkRail } from "../ark-rail.js";
import { readPinnedKeys } from "../connection/server-pins.js";
import { arkAddressOf } from "./ark-addresses.js";

/**
 * Derives and persists the next VTXO key and answers its Ark address (with the server keys pinned
 * at creation, or the connected server's): `POST /wallet/addresses/next` and the `ark=` of a BIP-321 URI.
 */
export async function nextArkAddress(w: ArkRail): Promise<string> {
  const info = (await readPinnedKeys(w.db)) ?? (await w.server.connect()).arkInfo;
  const key = await w.keys.nextVtxoKey();
  return arkAddressOf(w.keys, key, info, w.settings().network);
}
