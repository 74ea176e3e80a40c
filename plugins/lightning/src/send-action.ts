import { NoWalletError, faultPoint, type ActionDefinition, type StepOutcome } from "@tender/core";
import {
  decodeVtxo, encodeOutPoint, encodeVtxo, fromHex, htlcSendOutputs, isHtlcSendPolicy, parseOutPoint, ProtocolError, revocationOutputs, sha256,
  toHex, vtxoId, vtxoIdString, type Vtxo,
} from "@tender/ark-protocol";
import { ArkClientClosedError, ArkServerRejectedError } from "@tender/ark-protocol/server";
import { arkKeySecrets, completeArkoorCosign, mailboxAuthorization, NoWalletKeysError, VtxoNotSpendableError } from "@tender/plugin-ark";
import type { Movement } from "@tender/plugin-history";
import { HTLC_EXIT_STEP, sendExitSteps, sendHandoverDue } from "./htlc-exit-handover.js";
import type { LightningRail, LightningRailSource } from "./lightning-rail.js";
import { recordPaidInvoice } from "./paid-invoice-row.js";
import { htlcEvidence, type HtlcEvidence } from "./send-htlc-evidence.js";
import { checkedPreimage, type LightningSendState } from "./send-state.js";

/** Kind of the Lightning send action in the kernel's ActionEngine. */
export const LIGHTNING_SEND_ACTION = "lightning.send";

/** Subsystem of Lightning send movements, as barkd names it. */
export const LIGHTNING_SEND_SUBSYSTEM = { name: "bark.lightning_send", kind: "send" } as const;

/**
 * Fault points (`TENDER_FAULT_INJECT`) of a send, in order: one at the start of every step, one
 * after each server call that changes state, and one after each step's own database writes
 * (committed, but the step not yet recorded as done: the step runs again after a restart).
 */
export const LIGHTNING_SEND_FAULT_POINTS = [
  "ln-send:lock", "ln-send:movement", "ln-send:register-inputs", "ln-send:cosign", "ln-send:after-cosign", "ln-send:store-htlcs",
  "ln-send:after-store-htlcs", "ln-send:initiate", "ln-send:after-initiate", "ln-send:check", "ln-send:settle", "ln-send:after-settle",
  "ln-send:revoke", "ln-send:after-revoke", "ln-send:store-revoked", "ln-send:after-store-revoked",
] as const;

/** Pause between checks of a payment in flight. */
export const CHECK_INTERVAL_MS = 2_000;
/** Pause before a step retries after the server did not answer, or refused a revocation. */
export const SERVER_RETRY_MS = 3_000;
const RECOVERY_AUTH_SECS = 60;

/** No wallet is loaded (or it is being unloaded): the step is simply run again later. */
function isNotReady(e: unknown): boolean {
  return e instanceof NoWalletError || e instanceof ArkClientClosedError || e instanceof NoWalletKeysError;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const retryLater = (s: LightningSendState, e: unknown, waitMs = SERVER_RETRY_MS): StepOutcome<LightningSendState> => ({ waitMs, state: { ...s, lastError: message(e) } });
const vtxosOf = (hex: readonly string[] | null) => (hex ?? []).map((h) => decodeVtxo(fromHex(h)));

/** What the server's spend state of the send's HTLCs says; `unknown` when it did not answer. */
async function evidenceOf(w: LightningRail, s: LightningSendState): Promise<HtlcEvidence | "unknown"> {
  try {
    return await htlcEvidence(w, s);
  } catch (e) {
    if (isNotReady(e)) throw e;
    w.logger.warn(`lightning send ${s.paymentHash}: reading the spend state of the HTLC VTXOs: ${message(e)}`);
    return "unknown";
  }
}

const PAID_BY_ANOTHER = "the server reports this invoice paid, but this wallet's HTLC VTXOs were not spent by the payment (another payer paid it)";

/** The preimage quoted by a refused revocation ("invoice has already been paid, preimage: <hex>" / "…has completed. preimage: <hex>"). */
function preimageInRefusal(s: LightningSendState, e: unknown): string | undefined {
  const m = /preimage: ([0-9a-f]{64})/i.exec(message(e));
  return m ? checkedPreimage(s, m[1]!.toLowerCase()) : undefined;
}

async function storedInputs(w: LightningRail, s: LightningSendState): Promise<Vtxo[]> {
  const out: Vtxo[] = [];
  for (const id of s.inputIds) {
    const v = await w.vtxos.get(id);
    if (!v) throw new Error(`input VTXO ${id} is missing from the store`);
    out.push(v.vtxo);
  }
  return out;
}

async function backUp(w: LightningRail, vtxos: readonly Vtxo[]): Promise<void> {
  if (vtxos.length === 0) return;
  const key = w.keys.recoveryMailboxKey();
  try {
    await w.server.postRecoveryVtxoIds({
      mailboxId: key.publicKey, vtxoIds: vtxos.map((v) => encodeOutPoint(parseOutPoint(vtxoIdString(v)))),
      authorization: mailboxAuthorization({ mailboxKey: () => key }, RECOVERY_AUTH_SECS),
    });
  } catch (e) {
    w.logger.warn(`lightning send: recovery backup of ${vtxos.length} VTXO(s) failed: ${message(e)}`);
  }
}

function isPendingSendOf(m: Movement, s: LightningSendState): boolean {
  return m.subsystem.name === LIGHTNING_SEND_SUBSYSTEM.name && m.status === "pending" && m.metadata?.payment_hash === s.paymentHash;
}

/**
 * The height past which a payment still pending is revoked: the wallet's refresh threshold
 * before the HTLC expiry, so the money is asked back while there is time to exit the HTLCs.
 */
function revocationHeight(s: LightningSendState, w: LightningRail): number {
  return s.htlcExpiry - w.settings.vtxo_refresh_expiry_threshold;
}

/**
 * A Lightning send as a crash-safe action: lock the inputs and open the movement, register the
 * inputs' chains, get the HTLC package cosigned (checkpoints; HTLC of amount + fee to the key H,
 * change to H) and save the signed VTXOs, store them (HTLCs held by the action, change
 * spendable, inputs spent), hand the invoice and the HTLCs to the server, then follow the
 * payment (the kernel resumes the check every {@link CHECK_INTERVAL_MS}; a `LightningSendFinished`
 * message drives it at once). Success records the preimage for good; failure — or a payment
 * still pending within `vtxo_refresh_expiry_threshold` blocks of the HTLC expiry — revokes the
 * HTLCs to a fresh VTXO of key R (the server refuses while the payment is in flight and the
 * HTLCs have not expired: the revocation is asked again every {@link CHECK_INTERVAL_MS}). The send
 * never gives up between the cosign and the end: a revocation the server refuses is retried
 * ("revocation-stuck"), and one refused because the payment went through settles it as paid.
 * The server's status and refusals speak of the payment hash, which another wallet paying the same
 * invoice shares: "paid" is recorded only when the server also reports this send's own HTLC VTXOs
 * spent; still spendable, the success is the other payer's and the HTLCs are asked back.
 * Refused past `vtxo_refresh_expiry_threshold` before the HTLC expiry, the HTLCs are exited on chain
 * (`htlc-exit-handover.ts`).
 */
export function lightningSendAction(rail: LightningRailSource): ActionDefinition<LightningSendState> {
  return {
    kind: LIGHTNING_SEND_ACTION,
    firstStep: "lock",
    localSteps: ["recordRevoked"],
    steps: {
      lock: async (s, { id }) => {
        faultPoint("ln-send:lock");
        const w = await rail();
        try {
          await w.locks.lock(s.inputIds, id);
        } catch (e) {
          if (e instanceof VtxoNotSpendableError) return { failed: e.message, state: s };
          throw e;
        }
        return { next: "movement", state: s };
      },
      movement: async (s) => {
        faultPoint("ln-send:movement");
        const w = await rail();
        const existing = (await w.movements.list()).find((m) => isPendingSendOf(m, s));
        const amount = Number(s.amountSat);
        const fee = Number(s.feeSat);
        const m = existing ?? await w.movements.create({
          subsystem: LIGHTNING_SEND_SUBSYSTEM,
          metadata: { payment_hash: s.paymentHash },
          intendedBalanceSat: -amount,
          effectiveBalanceSat: -(amount + fee),
          offchainFeeSat: fee,
          sentTo: [{ destination: { type: "invoice", value: s.invoice }, amount_sat: amount }],
          inputVtxos: s.inputIds,
        });
        return { next: "registerInputs", state: { ...s, movementId: m.id } };
      },
      registerInputs: async (s) => {
        faultPoint("ln-send:register-inputs");
        const w = await rail();
        try {
          await w.server.registerVtxoTransactions((await storedInputs(w, s)).map((v) => encodeVtxo(v)));
        } catch (e) {
          if (isNotReady(e)) throw e;
          return { failed: message(e), state: s }; // nothing cosigned yet: giving up is safe
        }
        return { next: "cosign", state: s };
      },
      cosign: async (s) => {
        faultPoint("ln-send:cosign");
        const w = await rail();
        const inputs = await storedInputs(w, s);
        const info = (await w.server.connect()).arkInfo;
        const h = w.keys.deriveVtxoKey(s.htlcKeyIndex).publicKey;
        let signed: Vtxo[];
        try {
          const outputs = htlcSendOutputs({
            amountSat: BigInt(s.amountSat), feeSat: BigInt(s.feeSat), userPubkey: h, paymentHash: fromHex(s.paymentHash),
            htlcExpiry: s.htlcExpiry, change: s.changeAmounts.map(BigInt),
          });
          signed = await completeArkoorCosign(arkKeySecrets(w.keys), inputs, outputs, { maxExitDepth: info.maxVtxoExitDepth || undefined },
            (parts) => w.server.requestLightningPayHtlcCosign(parts));
        } catch (e) {
          if (e instanceof ArkServerRejectedError || e instanceof ProtocolError) return { failed: message(e), state: s };
          if (isNotReady(e)) throw e;
          // the server may have cosigned: never unlock now, ask again with the same package
          return retryLater(s, e);
        }
        faultPoint("ln-send:after-cosign");
        const isHtlc = (v: Vtxo) => isHtlcSendPolicy(v.policy);
        return {
          next: "storeHtlcs",
          state: {
            ...s, phase: "htlc-received", lastError: undefined,
            htlcs: signed.filter(isHtlc).map((v) => toHex(encodeVtxo(v))),
            change: signed.filter((v) => !isHtlc(v)).map((v) => toHex(encodeVtxo(v))),
          },
        };
      },
      storeHtlcs: async (s, { id }) => {
        faultPoint("ln-send:store-htlcs");
        const w = await rail();
        const htlcs = vtxosOf(s.htlcs);
        const change = vtxosOf(s.change);
        try {
          await w.server.registerVtxoTransactions([...htlcs, ...change].map((v) => encodeVtxo(v)));
        } catch (e) {
          if (isNotReady(e)) throw e;
          return retryLater(s, e); // the server pays only registered HTLCs
        }
        await w.db.transaction(async () => {
          for (const v of htlcs) await w.vtxos.add(v, "locked", id);
          for (const v of change) await w.vtxos.add(v, "spendable");
          await w.vtxos.markSpent(s.inputIds);
          if (s.movementId !== null) {
            await w.movements.update(s.movementId, { outputVtxos: change.map(vtxoIdString), metadata: { htlc_vtxos: htlcs.map(vtxoIdString) } });
          }
        });
        await backUp(w, change);
        faultPoint("ln-send:after-store-htlcs");
        return { next: "initiate", state: s };
      },
      initiate: async (s) => {
        faultPoint("ln-send:initiate");
        const w = await rail();
        const ids = vtxosOf(s.htlcs).map((v) => vtxoId(v)).sort((a, b) => Buffer.compare(a, b));
        try {
          await w.server.initiateLightningPayment({ invoice: s.invoice, htlcVtxoIds: ids, paymentAmountSat: BigInt(s.amountSat), mailboxId: w.keys.mailboxKey().publicKey });
        } catch (e) {
          if (isNotReady(e)) throw e;
          w.logger.warn(`lightning send ${s.paymentHash}: initiating the payment: ${message(e)}`);
          if (e instanceof ArkServerRejectedError) {
            // refused (a replay of our own attempt is answered ok): no attempt holds these HTLCs, and what the
            // server says about this payment hash (another wallet paying the same invoice) is not about them
            faultPoint("ln-send:after-initiate");
            return { next: "revoke", state: { ...s, phase: "revocable-htlcs", initiateRefused: message(e) } };
          }
          // unanswered: the check tells whether a payment is under way; none found is revoked
        }
        faultPoint("ln-send:after-initiate");
        return { next: "check", state: { ...s, phase: "payment-initiated" } };
      },
      check: async (s) => {
        faultPoint("ln-send:check");
        const w = await rail();
        let status;
        try {
          status = await w.server.checkLightningPayment(fromHex(s.paymentHash), false);
        } catch (e) {
          if (isNotReady(e)) throw e;
          // the server knows of no payment for these HTLCs: nothing can go out any more, take the money back
          if (e instanceof ArkServerRejectedError && /payment attempt not found/i.test(e.message)) return { next: "revoke", state: { ...s, phase: "revocable-htlcs" } };
          status = { status: "pending" as const }; // unanswered counts as pending
        }
        if (status.status === "success") {
          const preimage = checkedPreimage(s, status.preimage);
          // the status is the payment hash's: paid only if the payment spent this send's own HTLCs
          const evidence = preimage ? await evidenceOf(w, s) : "unknown";
          if (preimage && evidence === "taken") return { next: "settle", state: { ...s, preimage } };
          if (evidence === "held") return { next: "revoke", state: { ...s, phase: "revocable-htlcs", paidByAnother: PAID_BY_ANOTHER } };
          // no answer or no clear state: keep checking (near the HTLC expiry the revocation below decides)
        }
        if (status.status === "failed") return { next: "revoke", state: { ...s, phase: "revocable-htlcs" } };
        // still pending this close to the HTLC expiry: ask for the money back (the server grants it once the HTLCs expired)
        if (await w.tipHeight().then((tip) => tip > revocationHeight(s, w), () => false)) return { next: "revoke", state: { ...s, phase: "revocable-htlcs" } };
        return { waitMs: CHECK_INTERVAL_MS, state: s };
      },
      settle: async (s) => {
        faultPoint("ln-send:settle");
        const w = await rail();
        const htlcIds = vtxosOf(s.htlcs).map(vtxoIdString);
        await w.db.transaction(async () => {
          await recordPaidInvoice(w.db, { paymentHash: s.paymentHash, invoice: s.invoice, preimage: s.preimage! });
          await w.vtxos.markSpent(htlcIds);
          if (s.movementId !== null) await w.movements.update(s.movementId, { status: "successful", metadata: { payment_preimage: s.preimage } });
        });
        faultPoint("ln-send:after-settle");
        return { done: true, state: { ...s, phase: "paid", lastError: undefined } };
      },
      revoke: async (s) => {
        faultPoint("ln-send:revoke");
        const w = await rail();
        if (s.revocationKeyIndex === null) {
          const r = await w.keys.nextVtxoKey();
          return { next: "revoke", state: { ...s, revocationKeyIndex: r.index } };
        }
        const htlcs = vtxosOf(s.htlcs);
        let back: Vtxo[];
        try {
          back = await completeArkoorCosign(arkKeySecrets(w.keys), htlcs, revocationOutputs(htlcs, w.keys.deriveVtxoKey(s.revocationKeyIndex).publicKey),
            { requirePubkeyInputs: false }, (parts) => w.server.requestLightningPayHtlcRevocation(parts));
        } catch (e) {
          if (isNotReady(e)) throw e;
          // it was paid after all, if the payment spent these HTLCs: the refusal quotes the hash's preimage,
          // which another payer's payment of the same invoice reveals as well, so the server's spend state
          // of this send's own HTLCs decides — also after a refused initiate (a replay of our own attempt,
          // sent before a crash, may be refused while that attempt goes through) or an earlier reading
          // that another payer had paid
          const quoted = preimageInRefusal(s, e);
          if (quoted) {
            const evidence = await evidenceOf(w, s);
            if (evidence === "taken") return { next: "settle", state: { ...s, preimage: quoted } };
            if (evidence === "held") s = { ...s, paidByAnother: PAID_BY_ANOTHER };
          }
          if (await sendHandoverDue(w, s, e)) return { next: HTLC_EXIT_STEP, state: { ...s, phase: "revocation-stuck", lastError: message(e) } };
          if (e instanceof ArkServerRejectedError && /not eligible for revocation yet/i.test(e.message)) {
            // still in flight and the HTLCs not expired: ask again; a payment that went through meanwhile
            // is refused with its preimage (settled above), one that failed is revoked
            return { waitMs: CHECK_INTERVAL_MS, state: { ...s, phase: "revocable-htlcs", lastError: message(e) } };
          }
          w.logger.warn(`lightning send ${s.paymentHash}: revocation failed, retrying: ${message(e)}`);
          return retryLater({ ...s, phase: "revocation-stuck" }, e);
        }
        faultPoint("ln-send:after-revoke");
        return { next: "storeRevoked", state: { ...s, revoked: back.map((v) => toHex(encodeVtxo(v))), lastError: undefined } };
      },
      storeRevoked: async (s) => {
        faultPoint("ln-send:store-revoked");
        const w = await rail();
        const back = vtxosOf(s.revoked);
        try {
          await w.server.registerVtxoTransactions(back.map((v) => encodeVtxo(v)));
        } catch (e) {
          if (isNotReady(e)) throw e;
          return retryLater(s, e);
        }
        await backUp(w, back);
        return { next: "recordRevoked", state: s };
      },
      // local: the revocation output, the spent HTLCs, the failed movement and the end of the send
      // commit together, so no reader sees the money both back and still pending
      recordRevoked: async (s) => {
        const w = await rail();
        const back = vtxosOf(s.revoked);
        for (const v of back) await w.vtxos.add(v, "spendable");
        await w.vtxos.markSpent(vtxosOf(s.htlcs).map(vtxoIdString));
        if (s.movementId !== null) {
          const m = await w.movements.get(s.movementId);
          // run again after a crash, the revocation outputs are already listed: list each once
          const outputs = [...new Set([...(m?.output_vtxos ?? []), ...back.map(vtxoIdString)])];
          await w.movements.update(s.movementId, { status: "failed", effectiveBalanceSat: 0, offchainFeeSat: 0, outputVtxos: outputs });
        }
        faultPoint("ln-send:after-store-revoked");
        return { done: true, state: { ...s, phase: "revoked" } };
      },
      // the server refuses the revocation near the HTLC expiry: the HTLCs go out on chain
      ...sendExitSteps(rail),
    },
    // only a send that never got its HTLCs cosigned fails: its inputs go back
    onEnd: async (id, outcome, s) => {
      if (outcome !== "failed") return;
      const w = await rail();
      await w.locks.release(id);
      if (s.movementId !== null) await w.movements.update(s.movementId, { status: "failed", effectiveBalanceSat: 0, offchainFeeSat: 0 });
    },
  };
}
