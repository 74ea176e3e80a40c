/**
 * TRUC (v3, BIP-431) topology rules as Bitcoin Core applies them to one transaction: size
 * caps, at most one unconfirmed ancestor and one unconfirmed child, no mixing of v3 and
 * non-v3 unconfirmed chains, and sibling eviction when a v3 parent already has a child.
 */
import type { Mempool } from "./mempool.js";
import type { Refusal } from "./standard.js";

export const TRUC_VERSION = 3;
export const TRUC_MAX_VSIZE = 10_000;
export const TRUC_CHILD_MAX_VSIZE = 1_000;
export const TRUC_ANCESTOR_LIMIT = 2;

/** What the TRUC check concluded. */
export type TrucVerdict =
  | { readonly ok: true; readonly siblingToEvict?: string }
  | { readonly ok: false; readonly refusal: Refusal };

/** The transaction under test. */
export interface TrucCandidate {
  readonly txid: string;
  readonly wtxid: string;
  readonly version: number;
  readonly vsize: number;
  /** Its unconfirmed parents (txids in the mempool). */
  readonly parents: ReadonlySet<string>;
  /** Mempool transactions it replaces (direct conflicts and their descendants). */
  readonly replacing: ReadonlySet<string>;
}

function violation(debug: string): TrucVerdict {
  return { ok: false, refusal: { reason: "TRUC-violation", debug } };
}

/** Core's SingleTRUCChecks. */
export function checkTruc(c: TrucCandidate, mempool: Mempool): TrucVerdict {
  const who = `${c.txid} (wtxid=${c.wtxid})`;
  if (c.version !== TRUC_VERSION) {
    for (const p of c.parents) {
      const parent = mempool.get(p)!;
      if (parent.tx.version === TRUC_VERSION) {
        return violation(`non-version=3 tx ${who} cannot spend from version=3 tx ${p} (wtxid=${parent.wtxid})`);
      }
    }
    return { ok: true };
  }
  for (const p of c.parents) {
    const parent = mempool.get(p)!;
    if (parent.tx.version !== TRUC_VERSION) {
      return violation(`version=3 tx ${who} cannot spend from non-version=3 tx ${p} (wtxid=${parent.wtxid})`);
    }
  }
  if (c.vsize > TRUC_MAX_VSIZE) return violation(`version=3 tx ${who} is too big: ${c.vsize} > ${TRUC_MAX_VSIZE} virtual bytes`);
  const ancestors = mempool.ancestorsOfParents(c.parents);
  if (ancestors.size + 1 > TRUC_ANCESTOR_LIMIT) return violation(`tx ${who} would have too many ancestors`);
  if (c.parents.size === 0) return { ok: true };
  if (c.vsize > TRUC_CHILD_MAX_VSIZE) {
    return violation(`version=3 child tx ${who} is too big: ${c.vsize} > ${TRUC_CHILD_MAX_VSIZE} virtual bytes`);
  }
  const parentTxid = [...c.parents][0]!;
  const siblings = [...mempool.descendants(parentTxid)].filter((t) => !c.replacing.has(t));
  if (siblings.length === 0) return { ok: true };
  const sibling = siblings[0]!;
  // sibling eviction: only a lone child with nothing below it can be evicted
  if (siblings.length === 1 && mempool.children(parentTxid).has(sibling) && mempool.children(sibling).size === 0) {
    return { ok: true, siblingToEvict: sibling };
  }
  return violation(`tx ${parentTxid} (wtxid=${mempool.get(parentTxid)!.wtxid}) would exceed descendant count limit`);
}
