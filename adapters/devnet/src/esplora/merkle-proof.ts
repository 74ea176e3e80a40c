import { concatBytes, displayHex, fromHex, reversed } from "../consensus/bytes.js";
import { hash256 } from "../consensus/hashes.js";

const internal = (display: string): Uint8Array => reversed(fromHex(display));

/**
 * Esplora's `/tx/:txid/merkle-proof` (Electrum's `blockchain.transaction.get_merkle` format):
 * the sibling hashes from the leaf up, in display order, and the transaction's position.
 * `null` when `txid` is not in `txids`.
 */
export function merkleProof(txids: readonly string[], txid: string): { merkle: string[]; pos: number } | null {
  const pos = txids.indexOf(txid);
  if (pos < 0) return null;
  let level = txids.map(internal);
  let index = pos;
  const merkle: string[] = [];
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]!);
    merkle.push(displayHex(level[index ^ 1]!));
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(hash256(concatBytes(level[i]!, level[i + 1]!)));
    level = next;
    index >>= 1;
  }
  return { merkle, pos };
}

/** The merkle root (display order) a proof leads to from `txid`. */
export function merkleRootFromProof(txid: string, merkle: readonly string[], pos: number): string {
  let hash = internal(txid);
  let index = pos;
  for (const sibling of merkle) {
    const s = internal(sibling);
    hash = hash256(index & 1 ? concatBytes(s, hash) : concatBytes(hash, s));
    index >>= 1;
  }
  return displayHex(hash);
}
