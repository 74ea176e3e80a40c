import { createHash } from "node:crypto";

const sha256d = (b: Buffer): Buffer => createHash("sha256").update(createHash("sha256").update(b).digest()).digest();
const internal = (displayHex: string): Buffer => Buffer.from(displayHex, "hex").reverse();
const display = (b: Buffer): string => Buffer.from(b).reverse().toString("hex");

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
    merkle.push(display(level[index ^ 1]!));
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i]!, level[i + 1]!])));
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
    hash = sha256d(index & 1 ? Buffer.concat([s, hash]) : Buffer.concat([hash, s]));
    index >>= 1;
  }
  return display(hash);
}
