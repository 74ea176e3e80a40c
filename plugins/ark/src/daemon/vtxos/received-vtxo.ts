import { decodeTx, bytesEqual, fromHex, toHex, reverseBytes, validateVtxo, vtxoIdString, type Transaction, type Vtxo } from "@tender/ark-protocol";
import type { BlockRef, ChainSource } from "@tender/core";
import type { ArkKeys } from "../keys/ark-keys.js";

/** A VTXO the wallet refuses to accept (import or mailbox); the message says why. */
export class VtxoNotAcceptedError extends Error {
  override readonly name = "VtxoNotAcceptedError";
}

/** What a received VTXO is checked against. */
export interface AcceptanceContext {
  readonly chain: ChainSource;
  readonly keys: ArkKeys;
  readonly serverPubkey: Uint8Array;
  /** `vtxo_exit_delta` of the server: a received VTXO must outlive tip + this. */
  readonly exitDelta: number;
  /** Import rules: the VTXO only has to outlive the tip, and the key may be one not yet handed out (a wallet restored from its seed). */
  readonly importing?: boolean;
}

/** Confirmed anchor transactions each chain source gave, decoded, by txid (the VTXOs of one payer share their anchor). */
const confirmedAnchors = new WeakMap<ChainSource, Map<string, Transaction>>();
const CONFIRMED_ANCHORS_MAX = 256;

/**
 * The anchor transaction `txid`, decoded, or `null` when the chain source knows no such
 * transaction. A confirmed one is kept (a mempool one is asked for again every time: it may leave
 * the mempool).
 */
async function anchorTx(chain: ChainSource, txid: string): Promise<Transaction | null> {
  let kept = confirmedAnchors.get(chain);
  const known = kept?.get(txid);
  if (known) return known;
  const found = await chain.getTx(txid);
  if (!found) return null;
  const tx = decodeTx(fromHex(found.hex));
  if (found.status.confirmed) {
    if (!kept) confirmedAnchors.set(chain, (kept = new Map()));
    if (kept.size >= CONFIRMED_ANCHORS_MAX) kept.clear();
    kept.set(txid, tx);
  }
  return tx;
}

/** How long a tip read for a receive's expiry check is used again (payments arrive several per second). */
export const RECEIVE_TIP_REUSE_MS = 1_000;
/**
 * Blocks by which a VTXO must clear a reused tip's expiry bound; closer to the bound, the tip is
 * read afresh, so a VTXO is never accepted on a tip that blocks found since then would refuse it
 * (more than this many blocks in {@link RECEIVE_TIP_REUSE_MS} is beyond any real chain).
 */
export const RECEIVE_TIP_REUSE_MARGIN = 6;

/** The last tip each chain source gave a receive, with when it was read (a read in flight is shared). */
const receiveTips = new WeakMap<ChainSource, { tip: Promise<BlockRef>; atMs: number }>();

/** A tip of `chain` read at most {@link RECEIVE_TIP_REUSE_MS} ago, or read now. */
function recentTip(chain: ChainSource, nowMs: number): Promise<BlockRef> {
  const known = receiveTips.get(chain);
  if (known && nowMs - known.atMs < RECEIVE_TIP_REUSE_MS) return known.tip;
  return freshTip(chain, nowMs);
}

/** Reads the tip of `chain` now and keeps it for the next receives (a failed read is not kept). */
function freshTip(chain: ChainSource, nowMs: number): Promise<BlockRef> {
  const tip = chain.getTip();
  const entry = { tip, atMs: nowMs };
  receiveTips.set(chain, entry);
  tip.catch(() => {
    if (receiveTips.get(chain) === entry) receiveTips.delete(chain);
  });
  return tip;
}

/**
 * The tip an expiry check uses: a fresh one for an import; for a receive, one read within the
 * last {@link RECEIVE_TIP_REUSE_MS} when the VTXO clears its bound by {@link RECEIVE_TIP_REUSE_MARGIN}
 * blocks, a fresh one otherwise.
 */
async function tipFor(vtxo: Vtxo, ctx: AcceptanceContext): Promise<BlockRef> {
  if (ctx.importing === true) return ctx.chain.getTip();
  const now = Date.now();
  const recent = await recentTip(ctx.chain, now);
  if (vtxo.expiryHeight > recent.height + ctx.exitDelta + RECEIVE_TIP_REUSE_MARGIN) return recent;
  return freshTip(ctx.chain, now);
}

/**
 * Checks a VTXO someone gave the wallet (an arkoor receive or an import): the policy is
 * `pubkey`, the server key is ours, the wallet holds its key, it expires after tip + exit delta
 * (import: after the tip), and its chain anchor exists on chain or in the mempool with the exit
 * chain fully signed from it. Throws {@link VtxoNotAcceptedError}.
 */
export async function checkReceivedVtxo(vtxo: Vtxo, ctx: AcceptanceContext): Promise<void> {
  const id = vtxoIdString(vtxo);
  if (vtxo.policy.type !== "pubkey") throw new VtxoNotAcceptedError(`VTXO policy ${vtxo.policy.type} is not a payment to this wallet`);
  if (!bytesEqual(vtxo.serverPubkey, ctx.serverPubkey)) throw new VtxoNotAcceptedError("VTXO belongs to a different Ark server");
  const owned = (await ctx.keys.isOwnPubkey(vtxo.policy.userPubkey)) || (ctx.importing === true && (await ctx.keys.claimKey(vtxo.policy.userPubkey)) !== undefined);
  if (!owned) throw new VtxoNotAcceptedError(`VTXO ${id} is not owned by this wallet (no signable clause found)`);
  // the tip and the anchor are independent reads of the chain source: both at once
  const anchorTxid = toHex(reverseBytes(vtxo.anchorPoint.txid));
  const [tip, anchor] = await Promise.all([tipFor(vtxo, ctx), anchorTx(ctx.chain, anchorTxid)]);
  if (ctx.importing === true && vtxo.expiryHeight <= tip.height) throw new VtxoNotAcceptedError(`Vtxo ${id} has expired`);
  if (ctx.importing !== true && vtxo.expiryHeight <= tip.height + ctx.exitDelta) {
    throw new VtxoNotAcceptedError(`VTXO ${id} expires at height ${vtxo.expiryHeight}, too close to the tip ${tip.height}`);
  }
  if (!anchor) throw new VtxoNotAcceptedError(`VTXO chain anchor ${anchorTxid} not found on chain`);
  try {
    validateVtxo(vtxo, anchor);
  } catch (e) {
    throw new VtxoNotAcceptedError(`invalid VTXO: ${e instanceof Error ? e.message : String(e)}`);
  }
}

