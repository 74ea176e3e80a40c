/**
 * When the Ark server will not take back or claim the wallet's HTLC VTXOs, the Lightning rail
 * hands them to the exits rail (through the Ark rail's `HeldVtxoExitsService`) and follows the
 * exits to their end, recording the send or receive by what happened on chain.
 *
 * | HTLC | exit started when | exit claimed by the wallet | output taken by the server |
 * |---|---|---|---|
 * | send (refund clause: wallet key, after the HTLC expiry and 2Δ) | the revocation was refused and the tip is past `htlc_expiry − vtxo_refresh_expiry_threshold` (a "not eligible for revocation yet" refusal counts only past the HTLC expiry: before it the server may hold a payment in flight) | movement `failed`, effective 0 (the money came back on chain; the exit movement records it) | movement `successful`: the server spent it with the preimage, so the payment went through |
 * | receive (hash clause: wallet key and preimage, htlc_expiry_delta + Δ after the exit confirmed) | the claim was refused after the preimage was revealed and the tip is within `vtxo_exit_delta + htlc_expiry_delta + vtxo_exit_margin` of the HTLC expiry (later, the server's timeout clause could win) | movement `successful` (the money arrived on chain) | movement `failed`, effective 0 |
 *
 * While the exits run the send stays `revocation-stuck` and the receive `preimage-revealed`, their
 * movements pending with the HTLC VTXOs listed as exited: the money may still go either way. The
 * action keeps its lock on the HTLC VTXOs until the exit chain confirms (then they are exited).
 * A user canceling the exit sends the action back to asking the server.
 */
import type { StepOutcome } from "@tender/core";
import { decodeVtxo, fromHex, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import type { HeldExitOutcome } from "@tender/plugin-ark";
import type { LightningRail } from "./lightning-rail.js";
import { recordPaidInvoice } from "./paid-invoice-row.js";
import type { LightningReceiveRailSource } from "./receive-rail.js";
import type { LightningReceiveState } from "./receive-state.js";
import type { LightningRailSource } from "./lightning-rail.js";
import { checkedPreimage, type LightningSendState } from "./send-state.js";

/** The step that hands the HTLC VTXOs over, and the one that follows their exits. */
export const HTLC_EXIT_STEP = "exitHtlcs";
export const HTLC_EXIT_WAIT_STEP = "awaitHtlcExits";
/** Pause between looks at exits under way. */
export const HTLC_EXIT_CHECK_MS = 5_000;

/** What the action state carries once its HTLCs were handed over. */
export interface HtlcExitMark {
  /** Tip height when the exits were asked for. */
  htlcExitStartedAt?: number;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const htlcsOf = (hex: readonly string[] | null): Vtxo[] => (hex ?? []).map((h) => decodeVtxo(fromHex(h)));

/** Whether a refused revocation of a send's HTLCs calls for their exit (the rule in the table above). */
export function sendExitDue(tip: number, htlcExpiry: number, refreshThreshold: number, refusal: unknown): boolean {
  if (/not eligible for revocation yet/i.test(message(refusal)) && tip <= htlcExpiry) return false;
  return tip > htlcExpiry - refreshThreshold;
}

/** Whether a refused claim of a receive's HTLC-recv VTXOs calls for their exit (the rule in the table above). */
export function receiveExitDue(tip: number, htlcs: readonly Vtxo[], exitMargin: number): boolean {
  return htlcs.some((v) => {
    const p = v.policy;
    if (p.type !== "server-htlc-receive" && p.type !== "server-htlc-receive-v1") return false;
    return tip + v.exitDelta + p.htlcExpiryDelta + exitMargin >= p.htlcExpiry;
  });
}

/** Whether the rail can hand HTLCs over (an exits rail is loaded) and the send's rule says so. */
export async function sendHandoverDue(w: LightningRail, s: LightningSendState, refusal: unknown): Promise<boolean> {
  if (!w.heldExits?.handler) return false;
  const tip = await w.tipHeight().catch(() => undefined);
  return tip !== undefined && sendExitDue(tip, s.htlcExpiry, w.settings.vtxo_refresh_expiry_threshold, refusal);
}

/** Whether the rail can hand HTLCs over and the receive's rule says so. */
export async function receiveHandoverDue(w: LightningRail, s: LightningReceiveState): Promise<boolean> {
  if (!w.heldExits?.handler) return false;
  const tip = await w.tipHeight().catch(() => undefined);
  return tip !== undefined && receiveExitDue(tip, htlcsOf(s.htlcs), w.settings.vtxo_exit_margin);
}

/** Every HTLC's exit outcome, summed up: any taken by the server, all claimed, the user canceled one, or still under way. */
async function outcomeOf(w: LightningRail, ids: readonly string[]): Promise<"spent-elsewhere" | "claimed" | "canceled" | "in-progress"> {
  const handler = w.heldExits?.handler;
  if (!handler) return "in-progress";
  const all: HeldExitOutcome[] = await Promise.all(ids.map((id) => handler.outcome(id)));
  if (all.includes("spent-elsewhere")) return "spent-elsewhere";
  if (all.every((o) => o === "claimed")) return "claimed";
  if (all.some((o) => o === "canceled" || o === "none")) return "canceled";
  return "in-progress";
}

/** Asks the exits rail for the exits of the action's HTLCs and lists them as exited on the movement. */
async function handOver(w: LightningRail, actionId: string, htlcIds: string[], movementId: number | null, preimage?: string): Promise<void> {
  const handler = w.heldExits?.handler;
  if (!handler) throw new Error("no exits rail is loaded to exit the HTLC VTXOs");
  await handler.exitHeld({ vtxoIds: htlcIds, holder: actionId, ...(preimage ? { preimage: fromHex(preimage) } : {}) });
  if (movementId !== null) await w.movements.update(movementId, { exitedVtxos: htlcIds });
}

/** The action state the hand-over steps read and write. */
interface HtlcExitState {
  paymentHash: string;
  htlcs: string[] | null;
  movementId: number | null;
  lastError?: string;
}

type HtlcExitStep<S> = (s: S, ctx: { id: string }) => Promise<StepOutcome<S>>;

/** What differs between a send's and a receive's hand-over. */
interface HtlcExitRules<S extends HtlcExitState> {
  /** "send" or "receive", for the log. */
  readonly kind: string;
  /** Why the HTLCs exit, for the log. */
  readonly reason: string;
  /** The step that asks the server again when the user canceled an exit. */
  readonly askAgainStep: string;
  /** The preimage the exits need (the receive's hash clause), if any. */
  preimageOf(s: S): string | undefined;
  /** The state once the HTLCs were handed over. */
  handedOver(s: S, startedAt: number): S & HtlcExitMark;
  /** Records that every exit was claimed by the wallet; returns the final state. */
  claimed(w: LightningRail, s: S): Promise<S>;
  /** Records that the server took an HTLC output on chain; returns the final state, and why the action failed if it did. */
  spentElsewhere(w: LightningRail, s: S): Promise<{ state: S; failed?: string }>;
}

/** The hand-over step and the step that follows the exits to their end. */
function htlcExitSteps<S extends HtlcExitState>(rail: () => Promise<LightningRail>, rules: HtlcExitRules<S>): Record<string, HtlcExitStep<S>> {
  return {
    [HTLC_EXIT_STEP]: async (s, { id }) => {
      const w = await rail();
      const ids = htlcsOf(s.htlcs).map(vtxoIdString);
      try {
        await handOver(w, id, ids, s.movementId, rules.preimageOf(s));
      } catch (e) {
        w.logger.warn(`lightning ${rules.kind} ${s.paymentHash}: exiting the HTLC VTXOs: ${message(e)}`);
        return { waitMs: HTLC_EXIT_CHECK_MS, state: { ...s, lastError: message(e) } };
      }
      w.logger.warn(`lightning ${rules.kind} ${s.paymentHash}: ${rules.reason}; exiting ${ids.length} HTLC VTXO(s) on chain`);
      return { next: HTLC_EXIT_WAIT_STEP, state: rules.handedOver(s, await w.tipHeight().catch(() => 0)) };
    },
    [HTLC_EXIT_WAIT_STEP]: async (s) => {
      const w = await rail();
      const ids = htlcsOf(s.htlcs).map(vtxoIdString);
      switch (await outcomeOf(w, ids)) {
        case "in-progress":
          return { waitMs: HTLC_EXIT_CHECK_MS, state: s };
        case "canceled":
          return { next: rules.askAgainStep, state: { ...s, lastError: "the exit of the HTLC VTXOs was canceled; asking the server again" } };
        case "claimed":
          return { done: true, state: await rules.claimed(w, s) };
        case "spent-elsewhere": {
          const end = await rules.spentElsewhere(w, s);
          return end.failed !== undefined ? { failed: end.failed, state: end.state } : { done: true, state: end.state };
        }
      }
    },
  };
}

/** The send action's hand-over steps. */
export function sendExitSteps(rail: LightningRailSource): Record<string, HtlcExitStep<LightningSendState>> {
  return htlcExitSteps<LightningSendState>(rail, {
    kind: "send",
    reason: "the server refuses to revoke the HTLCs near their expiry",
    askAgainStep: "revoke",
    preimageOf: () => undefined,
    handedOver: (s, startedAt) => ({ ...s, phase: "revocation-stuck", htlcExitStartedAt: startedAt }),
    claimed: async (w, s) => {
      if (s.movementId !== null) await w.movements.update(s.movementId, { status: "failed", effectiveBalanceSat: 0, offchainFeeSat: 0 });
      return { ...s, phase: "revoked", lastError: undefined };
    },
    spentElsewhere: async (w, s) => {
      // only the server's preimage clause spends an HTLC-send output besides the wallet's refund: the
      // server was paid, and tells the preimage (the proof of payment, which refuses paying the invoice again)
      const preimage = await w.server.checkLightningPayment(fromHex(s.paymentHash), false).then(
        (st) => (st.status === "success" ? checkedPreimage(s, st.preimage) : undefined),
        () => undefined,
      );
      await w.db.transaction(async () => {
        if (preimage !== undefined) await recordPaidInvoice(w.db, { paymentHash: s.paymentHash, invoice: s.invoice, preimage });
        if (s.movementId !== null) await w.movements.update(s.movementId, { status: "successful", ...(preimage !== undefined ? { metadata: { payment_preimage: preimage } } : {}) });
      });
      if (preimage === undefined) w.logger.warn(`lightning send ${s.paymentHash}: paid on chain (the server took the HTLC), but the server did not tell the preimage`);
      return { state: { ...s, phase: "paid", preimage: preimage ?? s.preimage, lastError: undefined } };
    },
  });
}

/** The receive action's hand-over steps. */
export function receiveExitSteps(rail: LightningReceiveRailSource): Record<string, HtlcExitStep<LightningReceiveState>> {
  return htlcExitSteps<LightningReceiveState>(rail, {
    kind: "receive",
    reason: "the server refuses the claim near the HTLC expiry",
    askAgainStep: "claim",
    preimageOf: (s) => s.preimage,
    handedOver: (s, startedAt) => ({ ...s, htlcExitStartedAt: startedAt }),
    claimed: async (w, s) => {
      if (s.movementId !== null) await w.movements.update(s.movementId, { status: "successful", metadata: { payment_preimage: s.preimage } });
      return { ...s, phase: "settled", settledAtMs: s.settledAtMs ?? Date.now(), lastError: undefined };
    },
    spentElsewhere: async (w, s) => {
      if (s.movementId !== null) await w.movements.update(s.movementId, { status: "failed", effectiveBalanceSat: 0, offchainFeeSat: 0 });
      // the receive ends (failed, its movement failed): it no longer reads as preimage-revealed
      const lost = "the server took the HTLC VTXOs on chain before the wallet's claim";
      return { state: { ...s, lastError: lost }, failed: lost };
    },
  });
}

/** Whether a receive's HTLCs were handed to the exits rail (its movement is then the hand-over's to finish). */
export function handedOver(s: object): boolean {
  return (s as HtlcExitMark).htlcExitStartedAt !== undefined;
}
