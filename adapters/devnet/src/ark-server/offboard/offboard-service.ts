/**
 * Offboards on the server side (captaind's connector swaps): `GetOffboardFeeRate`,
 * `PrepareOffboard` and `FinishOffboard`, and the background task that expires sessions and hands
 * stored offboards to the chain.
 *
 * `PrepareOffboard` checks, in this order, with captaind's texts: at most `max_offboard_inputs`
 * inputs ("too many inputs"); a standard destination output ("invalid offboard request: …");
 * inputs not locked by another operation — an identical pending request whose attestations
 * verify replays its session ("some VTXO is already locked by another process"); no duplicate ids
 * and one attestation per input; the inputs exist (NOT_FOUND) and are spendable `pubkey` VTXOs,
 * not banned, not exited; the destination is not blocklisted; the fee rate is not above every
 * recent "regular" estimate; the amounts against the offboard fee; the attestations. It then
 * builds the offboard tx from the server wallet's trusted coins and keeps a session with one
 * server nonce per input and a fresh connector key.
 *
 * `FinishOffboard` signs a session once: it verifies and completes every forfeit, signs the
 * offboard tx, asks the node's `testmempoolaccept`, stores the offboard with its forfeits and
 * marks the inputs spent in one transaction, and only then broadcasts.
 */
import { randomBytes } from "node:crypto";
import {
  OffboardError, OffboardForfeitSignatureError, blocksToExpiry, bytesEqual, checkOffboardRequest, connectorScript, decodeTx, destinationDustLimit, encodeTx,
  finalizeOffboardForfeits, formatOutPoint, musigNonceGen, offboardAttestation, offboardFee, pubkeyFromSecret, reverseBytes, toHex, txidHex, verifyAttestation,
  type OffboardRequest, type Transaction, type TxOut, type Vtxo,
} from "@tender/ark-protocol";
import { AsyncLock } from "@tender/core";
import { vtxoIdText } from "../request-decoding.js";
import { trustedWalletCoins, signRoundFunding } from "../rounds/round-funding.js";
import { spendableRoundInputs } from "../rounds/round-inputs.js";
import type { RoundStore } from "../rounds/round-store.js";
import type { ServerContext } from "../server-context.js";
import { BadUserInputError, NotFoundError, RequestConversionError, UnavailableError } from "../server-errors.js";
import { blockedAddressOf } from "./offboard-blocklist.js";
import { FeeRateHistory } from "./fee-rate-history.js";
import { buildOffboardFunding } from "./offboard-funding.js";
import { OffboardSessions, type OffboardSession } from "./offboard-sessions.js";
import { OffboardStore } from "./offboard-store.js";

/** The protocol version that made multi-input offboards safe; older clients may offboard one VTXO. */
const PROTOCOL_VERSION_OFFBOARD_FIX = 2;
const UPDATE_MESSAGE = "YOU NEED TO UPDATE YOUR WALLET VERSION FOR THIS OPERATION";

/** `PrepareOffboardRequest` as plain data (bytes as they came). */
export interface PrepareOffboardData {
  readonly offboard: OffboardRequest | undefined;
  readonly inputVtxoIds: readonly Uint8Array[];
  readonly attestations: readonly Uint8Array[];
}

/** `PrepareOffboardResponse` as plain data. */
export interface PreparedOffboardData {
  readonly offboardTx: Uint8Array;
  readonly forfeitCosignNonces: Uint8Array[];
}

/** `FinishOffboardRequest` as plain data. */
export interface FinishOffboardData {
  readonly offboardTxid: Uint8Array | undefined;
  readonly userNonces: readonly Uint8Array[];
  readonly partialSignatures: readonly Uint8Array[];
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

function requestKey(r: OffboardRequest, ids: readonly string[]): string {
  return [r.netAmountSat, toHex(r.script), r.deductFeesFromGrossAmount, r.feeRateSatPerKwu, ...ids].join("|");
}

/** The server's offboards. */
export class OffboardService {
  readonly store: OffboardStore;
  readonly sessions = new OffboardSessions();
  readonly feeRates: FeeRateHistory;
  private readonly building = new AsyncLock();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly ctx: ServerContext,
    private readonly rounds: RoundStore,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.store = new OffboardStore(ctx.store);
    this.feeRates = new FeeRateHistory(nowMs);
  }

  // ---- fee rate ---------------------------------------------------------------------

  /** The "regular" estimate in sat/kvB, without recording it. */
  private async currentFeeRate(): Promise<bigint> {
    let satPerVb = this.ctx.config.regularFeeRateSatPerVb;
    try {
      satPerVb = (await this.ctx.chain.estimateFeeRate(3)) || satPerVb;
    } catch {
      // no estimate: the configured fallback stays
    }
    return BigInt(Math.ceil(satPerVb * 1000));
  }

  /** `GetOffboardFeeRate` (and `ArkInfo.offboard_feerate_sat_vkb`): the "regular" estimate in sat/kvB, recorded for the fee-rate check. */
  async feeRateSatPerKvb(): Promise<bigint> {
    const rate = await this.currentFeeRate();
    this.feeRates.record(rate);
    return rate;
  }

  // ---- prepare ----------------------------------------------------------------------

  /** `PrepareOffboard`. */
  async prepare(req: PrepareOffboardData, pver: number): Promise<PreparedOffboardData> {
    const c = this.ctx.config;
    const offboard = req.offboard;
    if (!offboard) throw new RequestConversionError("missing offboard request");
    if (req.inputVtxoIds.length === 0) throw new BadUserInputError("no input vtxos");
    if (req.inputVtxoIds.length > c.maxOffboardInputs) throw new BadUserInputError("too many inputs");
    try {
      checkOffboardRequest({ netAmountSat: offboard.netAmountSat, script: offboard.script });
    } catch (e) {
      if (e instanceof OffboardError) throw new BadUserInputError(e.message);
      throw e;
    }
    if (pver < PROTOCOL_VERSION_OFFBOARD_FIX && req.inputVtxoIds.length > 1) throw new UnavailableError(UPDATE_MESSAGE);
    const ids = req.inputVtxoIds.map((b) => vtxoIdText(b));
    const key = requestKey(offboard, ids);
    const busy = ids.filter((id) => this.ctx.locks.isLocked(id));
    if (busy.length) {
      const replay = this.sessions.pendingFor(key);
      if (replay && (await this.attestationsVerify(offboard, req, replay.vtxos)) === null) return this.answerOf(replay);
      throw new BadUserInputError(`some VTXO is already locked by another process: ${busy.join(", ")}`);
    }
    this.ctx.locks.acquire(ids);
    let handedOver = false;
    try {
      const prepared = await this.prepareLocked(offboard, req, ids, key);
      handedOver = true;
      return prepared;
    } finally {
      if (!handedOver) this.ctx.locks.release(ids);
    }
  }

  private async prepareLocked(offboard: OffboardRequest, req: PrepareOffboardData, ids: readonly string[], key: string): Promise<PreparedOffboardData> {
    const c = this.ctx.config;
    if (new Set(ids).size !== ids.length) throw new BadUserInputError("duplicate input vtxo");
    if (req.attestations.length !== ids.length) throw new BadUserInputError("wrong number of attestations");
    const vtxos = await spendableRoundInputs(this.ctx, ids, "input vtxo(s) not spendable");
    const blocked = blockedAddressOf(c, offboard.script);
    if (blocked) throw new BadUserInputError(`requested output address is blocked: ${blocked}`);
    const current = await this.feeRateSatPerKvb();
    const expected = this.feeRates.check(offboard.feeRateSatPerKwu, c.offboardAcceptableFeeRateDurationMs, current);
    if (expected !== null) throw new BadUserInputError(`fee rate is no longer valid: provided = ${offboard.feeRateSatPerKwu}, expected = ${expected}`);
    await this.checkAmounts(offboard, vtxos);
    const bad = await this.attestationsVerify(offboard, req, vtxos);
    if (bad !== null) throw new BadUserInputError(`invalid attestations for vtxo ${bad}`);
    return this.building.run(() => this.openSession(offboard, ids, vtxos, key));
  }

  /** The deduct / add amount rules against the offboard fee at the current tip. */
  private async checkAmounts(offboard: OffboardRequest, vtxos: readonly Vtxo[]): Promise<void> {
    const tip = await this.ctx.chain.tipHeight();
    const inputs = vtxos.map((v) => ({ amount: v.amount, blocksToExpiry: blocksToExpiry(v.expiryHeight, tip) }));
    const gross = vtxos.reduce((s, v) => s + v.amount, 0n);
    const params = this.ctx.config.fees.offboard;
    if (offboard.deductFeesFromGrossAmount) {
      const fee = offboardFee(params, gross, offboard.script, offboard.feeRateSatPerKwu, inputs);
      const dust = destinationDustLimit(offboard.script);
      // as captaind: the fee check's failure is an internal error, not tagged as bad input
      if (gross - fee < dust) throw new Error(`Amount after fee (${gross - fee} sat) is below dust limit (${dust} sat): inputs ${gross} sat, fee ${fee} sat`);
      if (offboard.netAmountSat > gross - fee) throw new BadUserInputError(`offboard net amount does not match expected amount: net ${offboard.netAmountSat} sat, expected at most ${gross - fee} sat`);
    } else {
      const fee = offboardFee(params, offboard.netAmountSat, offboard.script, offboard.feeRateSatPerKwu, inputs);
      if (offboard.netAmountSat + fee > gross) throw new BadUserInputError(`offboard gross amount does not match expected amount: inputs ${gross} sat, needed ${offboard.netAmountSat + fee} sat`);
    }
  }

  /** `null` when every attestation verifies, else the id of the first input whose does not. */
  private async attestationsVerify(offboard: OffboardRequest, req: PrepareOffboardData, vtxos: readonly Vtxo[]): Promise<string | null> {
    if (req.attestations.length !== vtxos.length) return vtxos[0] ? formatOutPoint(vtxos[0].point) : "";
    const msg = offboardAttestation({ value: offboard.netAmountSat, script: offboard.script }, req.inputVtxoIds);
    for (const [i, v] of vtxos.entries()) {
      const sig = req.attestations[i]!;
      if (sig.length !== 64 || !verifyAttestation(sig, msg, v.policy.userPubkey)) return formatOutPoint(v.point);
    }
    return null;
  }

  /** Wallet coins the offboard tx may spend: trusted, and held by no session nor stored offboard still unconfirmed. */
  async availableCoins(): Promise<Awaited<ReturnType<typeof trustedWalletCoins>>> {
    const held = this.sessions.heldCoins();
    for (const c of await this.reservedByStoredOffboards()) held.add(c);
    return (await trustedWalletCoins(this.ctx, this.rounds)).filter((c) => !held.has(`${c.txid}:${c.vout}`));
  }

  /** Wallet coins (`txid:vout`) spent by stored offboards that are not confirmed: never reused, even when the node dropped the offboard. */
  async reservedByStoredOffboards(): Promise<Set<string>> {
    const out = new Set<string>();
    for (const o of await this.store.recent()) {
      if ((await this.ctx.chain.getTxStatus(o.txid))?.confirmed) continue;
      for (const input of decodeTx(o.signedTx).inputs) out.add(`${toHex(reverseBytes(input.prevout.txid))}:${input.prevout.vout}`);
    }
    return out;
  }

  /** Every wallet coin (`txid:vout`) offboards hold now (for round funding to leave alone). */
  async heldWalletCoins(): Promise<Set<string>> {
    const held = this.sessions.heldCoins();
    for (const c of await this.reservedByStoredOffboards()) held.add(c);
    return held;
  }

  private async openSession(offboard: OffboardRequest, ids: readonly string[], vtxos: readonly Vtxo[], key: string): Promise<PreparedOffboardData> {
    const connectorSecret = new Uint8Array(randomBytes(32));
    const connector: TxOut = { value: 330n * BigInt(vtxos.length), script: connectorScript(pubkeyFromSecret(connectorSecret)) };
    const funding = buildOffboardFunding(await this.availableCoins(), { value: offboard.netAmountSat, script: offboard.script }, connector, this.ctx.keys.walletScript, offboard.feeRateSatPerKwu);
    const nonces = vtxos.map(() => musigNonceGen({ pubkey: this.ctx.keys.serverPubkey, secretKey: this.ctx.keys.serverSecret }));
    const session: OffboardSession = {
      txid: txidHex(funding.tx), requestKey: key, request: offboard, inputIds: [...ids], vtxos: [...vtxos], unsignedTx: funding.tx, coins: funding.coins,
      connectorSecret, nonces, expiresAtMs: this.nowMs() + this.ctx.config.offboardSessionTimeoutMs, state: "prepared", holdsInputs: true,
    };
    this.sessions.add(session);
    this.ctx.logger.debug(`offboard session ${session.txid}: ${ids.length} input(s), ${offboard.netAmountSat} sat on chain`);
    return this.answerOf(session);
  }

  private answerOf(s: OffboardSession): PreparedOffboardData {
    return { offboardTx: encodeTx(s.unsignedTx), forfeitCosignNonces: s.nonces.map((n) => n.pubNonce) };
  }

  // ---- finish -----------------------------------------------------------------------

  /** `FinishOffboard`: the signed offboard tx. */
  async finish(req: FinishOffboardData): Promise<Uint8Array> {
    if (!req.offboardTxid || req.offboardTxid.length !== 32) throw new RequestConversionError("invalid offboard txid");
    const txid = toHex(reverseBytes(req.offboardTxid));
    const s = this.sessions.get(txid);
    if (s?.state === "finished" && s.signedTx) return s.signedTx;
    if (!s || s.state !== "prepared") throw new NotFoundError("unknown offboard txid", [txid]);
    s.state = "signing"; // one signing chance: a failure below leaves a tombstone until expiry
    const n = s.vtxos.length;
    if (req.userNonces.length !== n) throw new BadUserInputError("incorrect number of public nonces");
    if (req.partialSignatures.length !== n) throw new BadUserInputError("incorrect number of partial signatures");
    let finalized;
    try {
      finalized = finalizeOffboardForfeits({
        offboardTx: s.unsignedTx, vtxos: s.vtxos, serverSecretKey: this.ctx.keys.serverSecret, connectorSecretKey: s.connectorSecret,
        serverNonces: s.nonces, userPubNonces: req.userNonces, userPartialSigs: req.partialSignatures,
      });
    } catch (e) {
      if (e instanceof OffboardForfeitSignatureError || e instanceof OffboardError) throw new BadUserInputError(`invalid partial forfeit signatures: ${e.message}`);
      throw new BadUserInputError(`invalid partial forfeit signatures: ${errorText(e)}`);
    }
    const signed = signRoundFunding(this.ctx, { tx: s.unsignedTx, coins: s.coins });
    const raw = encodeTx(signed);
    const [verdict] = await this.ctx.chain.testMempoolAccept([raw]);
    if (!verdict?.allowed) throw new Error(`mempool rejected offboard tx: ${verdict?.rejectReason ?? "no verdict"}`);
    await this.store.recordOffboard({ signedTx: signed, inputIds: s.inputIds, forfeits: finalized.forfeits, ...(finalized.fanout ? { connectorTx: finalized.fanout } : {}) });
    s.signedTx = raw;
    s.state = "finished";
    this.releaseInputs(s);
    await this.commit(txid, signed);
    return raw;
  }

  /** Hands a stored offboard to the chain; a failure is left to the background task. */
  private async commit(txid: string, signed: Transaction): Promise<void> {
    try {
      await this.ctx.chain.submitTransaction(encodeTx(signed));
      await this.store.markCommitted(txid);
      this.ctx.logger.debug(`offboard ${txid} broadcast`);
    } catch (e) {
      if (await this.ctx.chain.getTxStatus(txid).catch(() => undefined)) {
        await this.store.markCommitted(txid);
        return;
      }
      this.ctx.logger.warn(`offboard ${txid}: broadcast failed, retried in the background: ${errorText(e)}`);
    }
  }

  private releaseInputs(s: OffboardSession): void {
    if (!s.holdsInputs) return;
    s.holdsInputs = false;
    this.ctx.locks.release(s.inputIds);
  }

  // ---- background -------------------------------------------------------------------

  /** One run of the background task: expire sessions, retry uncommitted offboards, record the fee estimate. */
  async tick(): Promise<void> {
    for (const s of this.sessions.takeExpired(this.nowMs())) {
      this.releaseInputs(s);
      if (s.state !== "finished") this.ctx.logger.debug(`offboard session ${s.txid} expired unsigned: its inputs and wallet coins are free again`);
    }
    for (const o of await this.store.uncommitted()) await this.commit(o.txid, decodeTx(o.signedTx));
    await this.feeRateSatPerKvb();
  }

  /** Starts the background task (every `offboard_check_interval`). */
  start(): void {
    if (this.timer) return;
    const schedule = () => {
      this.timer = setTimeout(() => {
        this.ticking = this.tick()
          .catch((e: unknown) => this.ctx.logger.warn(`offboard task: ${errorText(e)}`))
          .finally(() => {
            this.ticking = undefined;
            if (this.timer) schedule();
          });
      }, this.ctx.config.offboardCheckIntervalMs);
      this.timer.unref?.();
    };
    schedule();
  }

  /** Stops the background task (waits for a running tick) and drops every session, releasing its locks. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
    for (const s of this.sessions.clear()) this.releaseInputs(s);
  }

  /** Whether `bytes` is the signed tx of stored offboard `txid` (tests). */
  async isStored(txid: string, bytes: Uint8Array): Promise<boolean> {
    const o = await this.store.get(txid);
    return !!o && bytesEqual(o.signedTx, bytes);
  }
}
