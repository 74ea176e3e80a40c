/**
 * One exit's state machine, one step at a time (the exit txs' side is {@link ExitPackages}):
 *
 * | State | Next |
 * |---|---|
 * | `start` | amount ≥ 330 → `processing`, every exit tx at `verify-inputs` |
 * | `processing` | each exit tx advanced; all confirmed → `awaiting-delta` (claimable at the highest confirmation + the claim clause's CSV, and no earlier than its CLTV height) |
 * | `awaiting-delta` | the VTXO's own tx no longer confirmed (reorg) → `processing` afresh; tip ≥ claimable height → `claimable` |
 * | `claimable` | the block at `claimable_since` changed → new `claimable`; the VTXO output spent: in the mempool → `claim-in-progress`, confirmed → `claimed` |
 * | `awaiting-delta`, `claimable` of an HTLC VTXO | its output spent by a transaction that is no claim of ours (the server's clause) → `vtxo-already-spent` |
 * | `claim-in-progress` | confirmed → `claimed`; gone → our stored claim is broadcast again while its inputs are free, else `claimable` |
 * | any state before the exit chain is confirmed | the wallet VTXO spent meanwhile → `vtxo-already-spent` |
 */
import {
  claimSpend, clauseLocktime, exitPlan, fromHex, isTerminalExitState, exitWarrantsExitedVtxo, policyUserPubkey, startProcessing, awaitDelta, toHex,
  type ClaimInput, type ExitState, type ExitStep, type Vtxo,
} from "@tender/ark-protocol";
import { ChainSourceRejectedError } from "@tender/core";
import { exitErrors, ExitFailure } from "./exit-errors.js";
import type { ExitPackages } from "./exit-packages.js";
import type { ExitPorts } from "./exit-ports.js";
import type { ExitStore } from "./exit-records.js";

/** A step that failed after changing part of the state (some exit txs advanced): the part is kept. */
export class PartialProgress extends Error {
  constructor(readonly state: ExitState, readonly failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

/** What a step needs besides the ports. */
export interface StepContext {
  readonly ports: ExitPorts;
  readonly store: ExitStore;
  readonly packages: ExitPackages;
  readonly tip: { height: number; hash: string };
}

/**
 * What the wallet signs the claim of `vtxo` with: the secret key of its user key and, for an
 * HTLC-recv VTXO, the preimage handed over with its exit.
 */
export async function claimInputOf(ports: ExitPorts, store: ExitStore, vtxo: Vtxo, vtxoId: string): Promise<ClaimInput> {
  const user = policyUserPubkey(vtxo.policy);
  const secretKey = user ? await ports.keys.secretKeyFor(user) : undefined;
  if (!secretKey) throw exitErrors.missingSignableClause(vtxoId);
  const p = vtxo.policy;
  const preimage = p.type === "server-htlc-receive" || p.type === "server-htlc-receive-v1" ? await store.preimage(toHex(p.paymentHash)) : undefined;
  return { vtxo, secretKey, ...(preimage !== undefined ? { preimage: fromHex(preimage) } : {}) };
}

/** The CSV (blocks) and the CLTV height (0 if none) of the first exit clause the wallet can sign. */
export async function claimDelay(ports: ExitPorts, store: ExitStore, vtxo: Vtxo, vtxoId: string): Promise<{ csv: number; height: number }> {
  const input = await claimInputOf(ports, store, vtxo, vtxoId);
  try {
    const spend = claimSpend(input);
    return { csv: spend.sequence, height: clauseLocktime(spend.clause) };
  } catch {
    throw exitErrors.missingSignableClause(vtxoId);
  }
}

/** Whether the other party has a clause on the VTXO's own output (HTLC policies: the server's hash or timeout clause). */
export function isHtlcExit(vtxo: Vtxo): boolean {
  return vtxo.policy.type !== "pubkey";
}

/** The txid of a transaction spending the exit output that is no claim of this wallet, or `undefined`. */
async function foreignSpend(c: StepContext, vtxo: Vtxo): Promise<string | undefined> {
  const point = outpointOf(vtxo);
  const spend = await c.ports.chain.outspend(point.txid, point.vout).catch((e: unknown) => {
    throw exitErrors.txRetrieval(point.txid, e);
  });
  if (!spend.spent) return undefined;
  const ours = (await c.store.claims()).some((x) => x.txid === spend.txid);
  return ours ? undefined : spend.txid;
}

async function blockAt(ports: ExitPorts, height: number): Promise<{ height: number; hash: string }> {
  let hash;
  try {
    hash = await ports.chain.blockHashAt(height);
  } catch (e) {
    throw exitErrors.blockRetrieval(height, e);
  }
  if (!hash) throw exitErrors.blockRetrieval(height, "no such block");
  return { height, hash };
}

/** The next state of an exit whose VTXO is `vtxo` (the same state when nothing changed). */
export async function stepExit(state: ExitState, vtxo: Vtxo, vtxoId: string, c: StepContext): Promise<ExitState> {
  const tip = c.tip.height;
  switch (state.type) {
    case "start":
      if (vtxo.amount < 330n) throw exitErrors.dustLimit(vtxoId, vtxo.amount, 330n);
      return startProcessing(tip, planOf(vtxo, vtxoId).map((s) => s.txid));
    case "processing":
      return stepProcessing(state, vtxo, vtxoId, c);
    case "awaiting-delta": {
      const leafTxid = outpointOf(vtxo).txid;
      const leaf = await c.ports.chain.txStatus(leafTxid).catch((e: unknown) => {
        throw exitErrors.txRetrieval(leafTxid, e);
      });
      if (!leaf?.confirmed) return startProcessing(tip, planOf(vtxo, vtxoId).map((s) => s.txid));
      if (isHtlcExit(vtxo) && (await foreignSpend(c, vtxo))) return { type: "vtxo-already-spent", tipHeight: tip };
      if (tip < state.claimableHeight) return state;
      return { type: "claimable", tipHeight: tip, claimableSince: await blockAt(c.ports, state.claimableHeight), lastScannedBlock: null };
    }
    case "claimable": {
      const since = await blockAt(c.ports, state.claimableSince.height);
      if (since.hash !== state.claimableSince.hash) return { type: "claimable", tipHeight: tip, claimableSince: since, lastScannedBlock: null };
      if (isHtlcExit(vtxo) && (await foreignSpend(c, vtxo))) return { type: "vtxo-already-spent", tipHeight: tip };
      const point = outpointOf(vtxo);
      const spend = await c.ports.chain.outspend(point.txid, point.vout).catch((e: unknown) => {
        throw exitErrors.txRetrieval(point.txid, e);
      });
      if (spend.spent) {
        if (spend.status.confirmed) return { type: "claimed", tipHeight: tip, txid: spend.txid, block: { height: spend.status.block.height, hash: spend.status.block.hash } };
        return { type: "claim-in-progress", tipHeight: tip, claimableSince: state.claimableSince, claimTxid: spend.txid };
      }
      if (state.lastScannedBlock?.hash === c.tip.hash) return state;
      return { type: "claimable", tipHeight: tip, claimableSince: state.claimableSince, lastScannedBlock: { height: c.tip.height, hash: c.tip.hash } };
    }
    case "claim-in-progress": {
      const st = await c.ports.chain.txStatus(state.claimTxid).catch((e: unknown) => {
        throw exitErrors.txRetrieval(state.claimTxid, e);
      });
      if (st?.confirmed) return { type: "claimed", tipHeight: tip, txid: state.claimTxid, block: { height: st.block.height, hash: st.block.hash } };
      if (st) return state;
      // Dropped from the mempool: our claim goes out again while its inputs are unspent.
      const claim = (await c.store.claims()).find((x) => x.txid === state.claimTxid && x.status !== "dropped");
      if (claim) {
        try {
          await c.ports.chain.broadcast(claim.hex);
          return state;
        } catch (e) {
          if (!(e instanceof ChainSourceRejectedError)) throw exitErrors.txRetrieval(state.claimTxid, e);
        }
      }
      return { type: "claimable", tipHeight: tip, claimableSince: state.claimableSince, lastScannedBlock: null };
    }
    default:
      return state;
  }
}

async function stepProcessing(state: Extract<ExitState, { type: "processing" }>, vtxo: Vtxo, vtxoId: string, c: StepContext): Promise<ExitState> {
  const plan = planOf(vtxo, vtxoId);
  const transactions = state.transactions.map((t) => ({ ...t }));
  for (let i = 0; i < transactions.length; i++) {
    const step = plan.find((s) => s.txid === transactions[i]!.txid);
    if (!step) throw exitErrors.internal(`exit tx ${transactions[i]!.txid} is not in the exit chain of VTXO ${vtxoId}`);
    try {
      transactions[i] = { txid: step.txid, status: await c.packages.advance(step, transactions[i]!.status) };
    } catch (e) {
      const changed = JSON.stringify(transactions) !== JSON.stringify(state.transactions);
      if (changed) throw new PartialProgress({ type: "processing", tipHeight: c.tip.height, transactions }, e);
      throw e;
    }
  }
  const blocks = transactions.map((t) => (t.status.type === "confirmed" ? t.status.block : null));
  if (blocks.every((b) => b !== null)) {
    const last = blocks.reduce((a, b) => (b!.height > a!.height ? b : a))!;
    const delay = await claimDelay(c.ports, c.store, vtxo, vtxoId);
    const waiting = awaitDelta(c.tip.height, last, delay.csv);
    // a timelocked clause (the HTLC-send refund) is spendable no earlier than its height either
    return waiting.type === "awaiting-delta" && delay.height > waiting.claimableHeight ? { ...waiting, claimableHeight: delay.height } : waiting;
  }
  if (JSON.stringify(transactions) === JSON.stringify(state.transactions)) return state;
  return { type: "processing", tipHeight: c.tip.height, transactions };
}

/** The VTXO's exit chain as broadcastable steps. */
export function planOf(vtxo: Vtxo, vtxoId: string): ExitStep[] {
  try {
    return exitPlan(vtxo);
  } catch (e) {
    throw new ExitFailure({ type: "non-standard-vtxo", vtxo: vtxoId, error: e instanceof Error ? e.message : String(e) },
      `Non-Standard VTXO ${vtxoId}: exit chain is not relayable: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The VTXO's outpoint with a display txid. */
export function outpointOf(vtxo: Vtxo): { txid: string; vout: number } {
  return { txid: Buffer.from(vtxo.point.txid).reverse().toString("hex"), vout: vtxo.point.vout };
}

export { isTerminalExitState, exitWarrantsExitedVtxo };
