import { NoWalletError, faultPoint, type ActionDefinition, type StepOutcome } from "@tender/core";
import {
  bytesEqual, checkArkoorAddress, decodeArkAddress, decodeTx, decodeVtxo, encodeVtxo, fromHex, lightningReceiveAttestation, lightningReceiveFee,
  reverseBytes, sha256, signAttestation, toHex, validateVtxo, vtxoId, vtxoIdString, type Vtxo, type VtxoPolicy,
} from "@tender/ark-protocol";
import { ArkClientClosedError, ArkServerRejectedError, type LightningReceiveAntiDos } from "@tender/ark-protocol/server";
import { arkKeySecrets, completeArkoorCosign, NoWalletKeysError, backUpVtxoIds, protocolNetworkOf } from "@tender/plugin-ark";
import type { Movement } from "@tender/plugin-history";
import { decodeBolt11 } from "@tender/plugin-wallet";
import { HTLC_EXIT_STEP, handedOver, receiveExitSteps, receiveHandoverDue } from "./htlc-exit-handover.js";
import { ReceiveCancelRow } from "./receive-cancel-row.js";
import type { LightningReceiveRail, LightningReceiveRailSource } from "./receive-rail.js";
import type { LightningReceiveState } from "./receive-state.js";

/** Kind of the Lightning receive action in the kernel's ActionEngine. */
export const LIGHTNING_RECEIVE_ACTION = "lightning.receive";

/** Subsystem of Lightning receive movements, as barkd names it. */
export const LIGHTNING_RECEIVE_SUBSYSTEM = { name: "bark.lightning_receive", kind: "receive" } as const;

/**
 * Fault points (`TENDER_FAULT_INJECT`) of a receive, in order: one at the start of every step,
 * one after each server call that changes state, one after each step's own database writes.
 */
export const LIGHTNING_RECEIVE_FAULT_POINTS = [
  "ln-recv:start", "ln-recv:after-start", "ln-recv:await", "ln-recv:prepare", "ln-recv:after-prepare", "ln-recv:store-htlcs",
  "ln-recv:after-store-htlcs", "ln-recv:claim", "ln-recv:after-claim", "ln-recv:store-claimed", "ln-recv:after-store-claimed",
  "ln-recv:deliver", "ln-recv:after-deliver",
] as const;

/** Pause between checks of an invoice nobody paid yet. */
export const AWAIT_INTERVAL_MS = 4_000;
/** Pause before a step retries after the server did not answer. */
export const RECEIVE_RETRY_MS = 3_000;
/** Pause between claims once `lightning_receive_claim_retries` ran out (the receive is parked, never dropped). */
export const PARKED_CLAIM_RETRY_MS = 600_000;
/** An unpaid receive is dropped this long after its invoice expired. */
export const EXPIRED_GRACE_MS = 60_000;
/** A BOLT11 invoice without an expiry field expires this long after its timestamp. */
const BOLT11_DEFAULT_EXPIRY_SECS = 3600;
/** The largest `expiry_secs` a caller may ask for before the server is asked (BOLT11 readers take the expiry as a 32-bit count). */
export const MAX_EXPIRY_SECS = 0xffff_ffff;
const EXPIRY_ABOVE_SERVER = "expiry_secs is above the Ark server's invoice expiry";

/** Why a receive whose caller asked a longer expiry than the server's invoice carries ends before anyone sees the invoice. */
export function expiryAboveServer(chosen: number, serverSecs: number): string {
  return `${EXPIRY_ABOVE_SERVER}: ${chosen} > ${serverSecs} seconds`;
}

/** Whether a receive ended with {@link expiryAboveServer}. */
export function isExpiryAboveServer(error: string | undefined): boolean {
  return error?.startsWith(EXPIRY_ABOVE_SERVER) ?? false;
}
/** A VTXO proving ownership for the anti-DoS check must outlive the tip by more than this. */
const ANTI_DOS_MIN_BLOCKS = 2;

function isNotReady(e: unknown): boolean {
  return e instanceof NoWalletError || e instanceof ArkClientClosedError || e instanceof NoWalletKeysError;
}
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const retryLater = (s: LightningReceiveState, e: unknown, waitMs = RECEIVE_RETRY_MS): StepOutcome<LightningReceiveState> => ({ waitMs, state: { ...s, lastError: message(e) } });
const vtxosOf = (hex: readonly string[] | null) => (hex ?? []).map((h) => decodeVtxo(fromHex(h)));
const byId = (a: Vtxo, b: Vtxo) => Buffer.compare(vtxoId(a), vtxoId(b));

/** The HTLC-recv expiry the wallet asks for, and the final CLTV delta the invoice must carry. */
export function minCltvDelta(info: { vtxoExitDelta: number; htlcExpiryDelta: number }, settings: { vtxo_exit_margin: number; htlc_recv_claim_delta: number }): number {
  return info.vtxoExitDelta + info.htlcExpiryDelta + settings.vtxo_exit_margin + settings.htlc_recv_claim_delta + 2;
}

/** The server refused the grant for a reason that does not go away by asking again. */
export class HtlcGrantRejectedError extends Error {
  override readonly name = "HtlcGrantRejectedError";
}

/**
 * Checks the granted HTLC-recv VTXOs: each is a valid chain from its anchor, pays this receive's
 * hash to the wallet's key, expires no earlier than asked and late enough for the wallet to claim
 * it on chain, and together with the receive fee they cover the invoice amount.
 */
export async function checkGrantedHtlcs(w: LightningReceiveRail, s: LightningReceiveState, htlcs: readonly Vtxo[], serverAmountSat: bigint): Promise<void> {
  if (htlcs.length === 0) throw new HtlcGrantRejectedError("the server granted no HTLC VTXOs");
  const info = (await w.server.connect()).arkInfo;
  const tip = await w.tipHeight();
  const userPubkey = w.keys.deriveVtxoKey(receiveKeyIndex(s)).publicKey;
  const hash = fromHex(s.paymentHash);
  for (const v of htlcs) {
    const id = vtxoIdString(v);
    const p = v.policy;
    if (p.type !== "server-htlc-receive" && p.type !== "server-htlc-receive-v1") throw new HtlcGrantRejectedError(`HTLC VTXO ${id} has policy ${p.type}, not an HTLC receive`);
    if (!bytesEqual(p.paymentHash, hash)) throw new HtlcGrantRejectedError(`HTLC VTXO ${id} is for another payment hash`);
    if (!bytesEqual(p.userPubkey, userPubkey)) throw new HtlcGrantRejectedError(`HTLC VTXO ${id} is not for this receive's key`);
    if (!bytesEqual(v.serverPubkey, info.serverPubkey)) throw new HtlcGrantRejectedError(`HTLC VTXO ${id} belongs to a different Ark server`);
    if (s.requestedHtlcExpiry !== null && p.htlcExpiry < s.requestedHtlcExpiry) {
      throw new HtlcGrantRejectedError(`HTLC VTXO ${id} expires at ${p.htlcExpiry}, before the requested ${s.requestedHtlcExpiry}`);
    }
    if (tip + info.vtxoExitDelta + p.htlcExpiryDelta + w.settings.vtxo_exit_margin + w.settings.htlc_recv_claim_delta > p.htlcExpiry) {
      throw new HtlcGrantRejectedError(`HTLC VTXO ${id} expires at ${p.htlcExpiry}: that would leave no time to claim it unilaterally`);
    }
    const anchorTxid = toHex(reverseBytes(v.anchorPoint.txid));
    const anchorHex = await w.getTxHex(anchorTxid);
    if (anchorHex === undefined) throw new Error(`anchor transaction ${anchorTxid} of HTLC VTXO ${id} not found`);
    try {
      validateVtxo(v, decodeTx(fromHex(anchorHex)));
    } catch (e) {
      throw new HtlcGrantRejectedError(`HTLC VTXO ${id} is invalid: ${message(e)}`);
    }
  }
  const invoiceAmount = BigInt(s.amountSat);
  // the fee from the server's amount when it agrees with the invoice, else from the invoice
  const feeBase = serverAmountSat === invoiceAmount ? serverAmountSat : invoiceAmount;
  const fee = lightningReceiveFee(info.fees.lightningReceive, feeBase);
  const sum = htlcs.reduce((a, v) => a + v.amount, 0n);
  if (sum + fee < invoiceAmount) throw new HtlcGrantRejectedError(`HTLC VTXOs carry ${sum} sat, short of the invoice amount ${invoiceAmount} minus the receive fee ${fee}`);
}

async function antiDosProof(w: LightningReceiveRail, s: LightningReceiveState): Promise<LightningReceiveAntiDos | undefined> {
  if (s.token !== null) return { kind: "token", token: s.token };
  const tip = await w.tipHeight();
  const candidates = (await w.vtxos.list(["spendable"])).filter((v) => v.vtxo.expiryHeight > tip + ANTI_DOS_MIN_BLOCKS && v.vtxo.policy.type === "pubkey");
  for (const c of candidates.sort(() => Math.random() - 0.5)) {
    const key = await w.keys.keyByPubkey(c.vtxo.policy.userPubkey);
    if (!key) continue;
    const id = vtxoId(c.vtxo);
    return { kind: "vtxo", vtxoId: id, attestation: signAttestation(lightningReceiveAttestation(fromHex(s.paymentHash), id), key.secretKey) };
  }
  return undefined;
}

/** The receive's key index; set by the prepare step before anything uses it. */
function receiveKeyIndex(s: LightningReceiveState): number {
  if (s.keyIndex === null) throw new Error(`lightning receive ${s.paymentHash}: no key derived yet`);
  return s.keyIndex;
}

/** Where the claim pays: this wallet's receive key, or the policy of the receive-for-address destination. */
function claimPolicy(w: LightningReceiveRail, s: LightningReceiveState): VtxoPolicy {
  if (s.claimAddress === null) return { type: "pubkey", userPubkey: w.keys.deriveVtxoKey(receiveKeyIndex(s)).publicKey };
  return decodeArkAddress(s.claimAddress).policy;
}

function isMovementOf(m: Movement, s: LightningReceiveState): boolean {
  return m.subsystem.name === LIGHTNING_RECEIVE_SUBSYSTEM.name && m.metadata?.payment_hash === s.paymentHash;
}

/** Asks the server to cancel the hold invoice so the payer is refunded now rather than at its timeout (best effort: logged, never thrown). */
async function cancelOnServer(w: LightningReceiveRail, s: LightningReceiveState): Promise<void> {
  await w.server.cancelLightningReceive(fromHex(s.paymentHash)).catch((e: unknown) => {
    w.logger.warn(`lightning receive ${s.paymentHash}: cancel on the server failed (best effort): ${message(e)}`);
  });
}

/** When the server's own invoice expires (its BOLT11 expiry), epoch ms; 0 when the invoice does not decode. */
function serverExpiryMs(s: LightningReceiveState): number {
  try {
    const d = decodeBolt11(s.invoice ?? "");
    return (d.timestamp + Number(d.expirySeconds ?? BOLT11_DEFAULT_EXPIRY_SECS)) * 1000;
  } catch {
    return 0;
  }
}

async function dropCancelRequest(w: LightningReceiveRail, s: LightningReceiveState): Promise<void> {
  await w.db.em().nativeDelete(ReceiveCancelRow, { paymentHash: s.paymentHash });
}

/**
 * A Lightning receive as a crash-safe action. The preimage is in the state saved before the first
 * step runs, so it exists before any invoice does. Steps: ask the server for the hold invoice
 * (asking again returns the same one); wait until the payer's HTLCs are held (a poll every
 * {@link AWAIT_INTERVAL_MS}; the `IncomingLightningPayment` mailbox message drives it at once),
 * honouring a cancel and dropping the receive a minute after the invoice expired; have HTLC-recv
 * VTXOs granted (expiry fixed before the first request), checked and stored locked with a pending
 * movement; then reveal the preimage while having the claim cosigned — retried, never abandoned,
 * once revealed — store the claimed VTXO (or deliver it to the receive-for-address destination)
 * and settle the movement. Before the preimage is revealed, HTLCs too close to expiry are
 * abandoned (the payer is refunded on Lightning).
 */
export function lightningReceiveAction(rail: LightningReceiveRailSource): ActionDefinition<LightningReceiveState> {
  return {
    kind: LIGHTNING_RECEIVE_ACTION,
    firstStep: "start",
    steps: {
      start: async (s) => {
        faultPoint("ln-recv:start");
        const w = await rail();
        let invoice: string;
        try {
          invoice = await w.server.startLightningReceive({
            paymentHash: fromHex(s.paymentHash), amountSat: BigInt(s.amountSat), minCltvDelta: s.minCltvDelta,
            mailboxId: w.keys.mailboxKey().publicKey, ...(s.description !== null ? { description: s.description } : {}),
          });
        } catch (e) {
          if (isNotReady(e)) throw e;
          return { failed: message(e), state: s }; // nobody holds an invoice yet: giving up loses nothing
        }
        let decoded;
        try {
          decoded = decodeBolt11(invoice);
        } catch (e) {
          return { failed: `the server's invoice does not decode: ${message(e)}`, state: s };
        }
        if (toHex(decoded.paymentHash) !== s.paymentHash) return { failed: "the server's invoice is for another payment hash", state: s };
        const serverExpirySecs = Number(decoded.expirySeconds ?? BOLT11_DEFAULT_EXPIRY_SECS);
        const chosen = s.expirySecs ?? null;
        if (chosen !== null && chosen > serverExpirySecs) {
          // the protocol cannot ask the server for a longer invoice: nobody has seen this one, so it is given back
          await cancelOnServer(w, s);
          return { failed: expiryAboveServer(chosen, serverExpirySecs), state: s };
        }
        faultPoint("ln-recv:after-start");
        const expiresAtMs = (decoded.timestamp + (chosen ?? serverExpirySecs)) * 1000;
        return { next: "await", state: { ...s, invoice: decoded.invoice, invoiceExpiresAtMs: expiresAtMs, lastError: undefined } };
      },
      await: async (s) => {
        faultPoint("ln-recv:await");
        const w = await rail();
        const hash = fromHex(s.paymentHash);
        if (await w.db.em().findOne(ReceiveCancelRow, { paymentHash: s.paymentHash })) {
          await w.server.cancelLightningReceive(hash).catch((e: unknown) => {
            if (isNotReady(e)) throw e;
            w.logger.warn(`lightning receive ${s.paymentHash}: cancel on the server failed (best effort): ${message(e)}`);
          });
          return { failed: "canceled by the user", state: s };
        }
        let status;
        try {
          status = await w.server.checkLightningReceive(hash, false);
        } catch (e) {
          if (isNotReady(e)) throw e;
          if (e instanceof ArkServerRejectedError && /not found/i.test(e.message)) return { failed: `the server knows no such receive: ${message(e)}`, state: s };
          return retryLater(s, e, AWAIT_INTERVAL_MS);
        }
        switch (status.state) {
          case "accepted":
          case "htlcs-ready":
            return { next: "prepare", state: { ...s, lastError: undefined } };
          case "canceled":
            return { failed: "payment canceled", state: s };
          case "settled":
            return { failed: "the server reports the receive settled before the wallet claimed it", state: s };
          default:
            if (s.invoiceExpiresAtMs !== null && Date.now() > s.invoiceExpiresAtMs + EXPIRED_GRACE_MS) {
              try {
                await w.server.cancelLightningReceive(hash);
              } catch (e) {
                if (isNotReady(e)) throw e;
                // an expiry chosen shorter than the server's leaves the invoice payable on the server until it is
                // canceled there: a payer would have its HTLCs held for a receive the wallet dropped, so the
                // cancel is asked again until the server takes it, or its own expiry has passed too
                const gone = e instanceof ArkServerRejectedError && /not found/i.test(e.message);
                if (!gone && Date.now() <= serverExpiryMs(s) + EXPIRED_GRACE_MS) return retryLater(s, e, AWAIT_INTERVAL_MS);
              }
              return { failed: "invoice expired unpaid", state: s };
            }
            return { waitMs: AWAIT_INTERVAL_MS, state: s };
        }
      },
      prepare: async (s) => {
        faultPoint("ln-recv:prepare");
        const w = await rail();
        if (s.keyIndex === null) {
          // saved before the server sees the key, so a restart asks the grant for the same key
          return { next: "prepare", state: { ...s, keyIndex: (await w.keys.nextVtxoKey()).index } };
        }
        if (s.requestedHtlcExpiry === null) {
          return { next: "prepare", state: { ...s, requestedHtlcExpiry: (await w.tipHeight()) + s.minCltvDelta } };
        }
        let granted;
        try {
          const antiDos = await antiDosProof(w, s);
          granted = await w.server.prepareLightningReceiveClaim({
            paymentHash: fromHex(s.paymentHash), userPubkey: w.keys.deriveVtxoKey(receiveKeyIndex(s)).publicKey, htlcRecvExpiry: s.requestedHtlcExpiry,
            ...(antiDos ? { antiDos } : {}),
          });
        } catch (e) {
          if (isNotReady(e)) throw e;
          if (e instanceof ArkServerRejectedError && !/already in progress/i.test(e.message)) {
            await cancelOnServer(w, s); // nothing granted: the payer gets the money back now
            return { failed: message(e), state: s };
          }
          return retryLater(s, e);
        }
        const htlcs = granted.htlcVtxos.map((b) => decodeVtxo(b)).sort(byId);
        try {
          await checkGrantedHtlcs(w, s, htlcs, granted.receive.amountSat);
        } catch (e) {
          if (e instanceof HtlcGrantRejectedError) {
            w.logger.warn(`lightning receive ${s.paymentHash}: refusing the granted HTLCs: ${e.message}`);
            await cancelOnServer(w, s);
            return { failed: e.message, state: s }; // the preimage stays secret: the payer is refunded
          }
          return retryLater(s, e);
        }
        faultPoint("ln-recv:after-prepare");
        return { next: "storeHtlcs", state: { ...s, htlcs: htlcs.map((v) => toHex(encodeVtxo(v))), lastError: undefined } };
      },
      storeHtlcs: async (s, { id }) => {
        faultPoint("ln-recv:store-htlcs");
        const w = await rail();
        const htlcs = vtxosOf(s.htlcs);
        const info = (await w.server.connect()).arkInfo;
        const amount = BigInt(s.amountSat);
        const fee = lightningReceiveFee(info.fees.lightningReceive, amount);
        const movementId = await w.db.transaction(async () => {
          for (const v of htlcs) if (!(await w.vtxos.get(vtxoIdString(v)))) await w.vtxos.add(v, "locked", id);
          const existing = (await w.movements.list()).find((m) => isMovementOf(m, s));
          const m = existing ?? await w.movements.create({
            subsystem: LIGHTNING_RECEIVE_SUBSYSTEM,
            // as barkd: the preimage is recorded with the HTLCs; a receive-for-address counts the HTLCs until it delivers them
            metadata: { payment_hash: s.paymentHash, htlc_vtxos: htlcs.map(vtxoIdString), payment_preimage: s.preimage },
            intendedBalanceSat: Number(amount),
            effectiveBalanceSat: Number(amount - fee),
            offchainFeeSat: Number(fee),
            receivedOn: [{ destination: { type: "invoice", value: s.invoice! }, amount_sat: Number(amount) }],
            inputVtxos: [],
          });
          return m.id;
        });
        faultPoint("ln-recv:after-store-htlcs");
        return { next: "claim", state: { ...s, phase: "htlcs-ready", movementId } };
      },
      claim: async (s) => {
        faultPoint("ln-recv:claim");
        const w = await rail();
        const htlcs = vtxosOf(s.htlcs).sort(byId);
        if (s.phase === "htlcs-ready") {
          const tip = await w.tipHeight();
          const expiry = Math.min(...htlcs.map((v) => (v.policy as { htlcExpiry: number }).htlcExpiry));
          if (tip > expiry - w.settings.vtxo_refresh_expiry_threshold) return { next: "abandon", state: { ...s, lastError: `HTLCs expire at ${expiry}, too close to the tip ${tip}` } };
          // from here on the preimage counts as revealed: no cancel, no abandon
          return { next: "claim", state: { ...s, phase: "preimage-revealed" } };
        }
        const policy = claimPolicy(w, s);
        let claimed: Vtxo[];
        try {
          claimed = await completeArkoorCosign(arkKeySecrets(w.keys), htlcs, htlcs.map((v) => ({ amount: v.amount, policy })), { requirePubkeyInputs: false },
            (parts) => w.server.claimLightningReceive({ paymentHash: fromHex(s.paymentHash), preimage: fromHex(s.preimage), parts }));
        } catch (e) {
          if (isNotReady(e)) throw e;
          const attempts = s.claimAttempts + 1;
          const parked = attempts >= w.settings.lightning_receive_claim_retries;
          w.logger.warn(`lightning receive ${s.paymentHash}: claim attempt ${attempts} failed${parked ? " (parked, retried slowly)" : ""}: ${message(e)}`);
          // the HTLCs near the point past which the server's timeout clause could win: their exit goes on chain now
          if (await receiveHandoverDue(w, s)) return { next: HTLC_EXIT_STEP, state: { ...s, claimAttempts: attempts, lastError: message(e) } };
          return retryLater({ ...s, claimAttempts: attempts }, e, parked ? PARKED_CLAIM_RETRY_MS : attempts * attempts * 1_000);
        }
        faultPoint("ln-recv:after-claim");
        return { next: "storeClaimed", state: { ...s, claimed: claimed.map((v) => toHex(encodeVtxo(v))), lastError: undefined } };
      },
      storeClaimed: async (s) => {
        faultPoint("ln-recv:store-claimed");
        const w = await rail();
        const claimed = vtxosOf(s.claimed);
        try {
          await w.server.registerVtxoTransactions(claimed.map((v) => encodeVtxo(v)));
        } catch (e) {
          if (isNotReady(e)) throw e;
          return retryLater(s, e);
        }
        if (s.claimAddress !== null) return { next: "deliver", state: { ...s, phase: "delivering", lastError: undefined } };
        const settledAtMs = s.settledAtMs ?? Date.now();
        await w.db.transaction(async () => {
          for (const v of claimed) if (!(await w.vtxos.get(vtxoIdString(v)))) await w.vtxos.add(v, "spendable");
          await w.vtxos.markSpent(vtxosOf(s.htlcs).map(vtxoIdString));
          if (s.movementId !== null) {
            await w.movements.update(s.movementId, { status: "successful", outputVtxos: claimed.map(vtxoIdString), metadata: { payment_preimage: s.preimage } });
          }
        });
        // backed up for a recovery from the seed (their chains were registered above); a lost post is caught up by the next sync
        await backUpVtxoIds(w, claimed.map(vtxoIdString), { chainsRegistered: true });
        faultPoint("ln-recv:after-store-claimed");
        return { done: true, state: { ...s, phase: "settled", settledAtMs, lastError: undefined } };
      },
      deliver: async (s) => {
        faultPoint("ln-recv:deliver");
        const w = await rail();
        const claimed = vtxosOf(s.claimed);
        const info = (await w.server.connect()).arkInfo;
        const deliveries = checkArkoorAddress(decodeArkAddress(s.claimAddress!), { network: protocolNetworkOf(w.network), serverPubkey: info.serverPubkey });
        let delivered = false;
        let lastError: unknown;
        for (const d of deliveries) {
          if (d.type !== "server-mailbox") continue;
          try {
            await w.server.postArkoorMessage(d.blindedId, claimed.map((v) => encodeVtxo(v)));
            delivered = true;
            break;
          } catch (e) {
            if (isNotReady(e)) throw e;
            lastError = e;
          }
        }
        if (!delivered) return retryLater(s, lastError ?? new Error("no mailbox delivery"), 60_000);
        faultPoint("ln-recv:after-deliver");
        const settledAtMs = s.settledAtMs ?? Date.now();
        await w.db.transaction(async () => {
          await w.vtxos.markSpent(vtxosOf(s.htlcs).map(vtxoIdString));
          if (s.movementId !== null) {
            const amount = claimed.reduce((a, v) => a + v.amount, 0n);
            await w.movements.update(s.movementId, {
              status: "successful", metadata: { payment_preimage: s.preimage }, effectiveBalanceSat: 0,
              sentTo: [{ destination: { type: "ark", value: s.claimAddress! }, amount_sat: Number(amount) }],
            });
          }
        });
        return { done: true, state: { ...s, phase: "settled", settledAtMs, lastError: undefined } };
      },
      // the server refuses the claim near the HTLC expiry: the HTLC-recv VTXOs go out on chain with the preimage
      ...receiveExitSteps(rail),
      abandon: async (s) => {
        const w = await rail();
        await w.db.transaction(async () => {
          await w.vtxos.markSpent(vtxosOf(s.htlcs).map(vtxoIdString));
        });
        await cancelOnServer(w, s);
        return { failed: s.lastError ?? "HTLCs abandoned", state: s };
      },
    },
    onEnd: async (_id, outcome, s) => {
      const w = await rail();
      await dropCancelRequest(w, s);
      // a receive whose HTLCs went on chain has its movement finished by the hand-over's steps
      if (outcome === "failed" && s.movementId !== null && !handedOver(s)) {
        await w.movements.update(s.movementId, { status: "canceled", effectiveBalanceSat: 0, offchainFeeSat: 0 });
      }
    },
  };
}

/** Whether a hex string is the preimage of a payment hash. */
export function isPreimageOf(preimageHex: string, paymentHashHex: string): boolean {
  return toHex(sha256(fromHex(preimageHex))) === paymentHashHex;
}
