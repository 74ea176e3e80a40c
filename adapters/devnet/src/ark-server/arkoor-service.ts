/**
 * `RequestArkoorCosign` on the server side: captaind's checks in captaind's order,
 * then — under the inputs' flux locks — the spend-state check, the atomic spend record
 * (inputs spent by their checkpoint txid, virtual txs, unregistered outputs), and only then the
 * server's nonces and partial signatures.
 *
 * | Step | Refusal |
 * |---|---|
 * | inputs known | NOT_FOUND, identifiers = unknown ids |
 * | inputs `pubkey` | "server htlc send/recv vtxo not supported" |
 * | checkpoints used by every part | "should use arkoor checkpoints" |
 * | part well formed (balance, amounts, nonce count, attestation) | "invalid cosign request at index #i: …" |
 * | exit depth < max | "… exit depth D meets or exceeds the maximum of M; …" |
 * | outputs per input ≤ fan-out | "too many outputs for input …" |
 * | no dust / non-dust mix | "invalid mix of dust and non-dust outputs …" |
 * | not locked by another request | "some VTXO is already locked by another process: …" |
 * | spendable (or spent by the same checkpoint txid: replay) | "has exited onchain" / "is not spendable (state: S)" / "is banned until block H" |
 *
 * The server signs with BIP-327 deterministic signing (it is always the last signer and answers
 * right after seeing the user's nonce), so replaying an identical request returns identical bytes.
 * The signatures are computed on the signing threads ({@link CosignPool}) while the spend
 * commits (concurrent requests' spends share one commit: `recordArkoorSpend`), and are handed out
 * only once the commit is durable; if it fails they are dropped (a deterministic nonce is bound to
 * the message and the user's nonce, so nothing secret is kept or can be reused).
 */
import {
  VTXO_DUST_SAT,
  arkoorCosignAttestation,
  arkoorOutputVtxos,
  buildArkoorPart,
  encodeTx,
  encodeVtxo,
  formatOutPoint,
  policyUserPubkey,
  toHex,
  txidHex,
  verifyAttestation,
  encodeOutPoint,
  type ArkoorPart,
  type MusigCosignResponse,
  type OutPoint,
  type Vtxo,
  type VtxoPolicy,
} from "@tender/ark-protocol";
import { VtxoLockedError } from "./async-lock.js";
import { sharedCosignPool, type CosignPool } from "./cosign-pool.js";
import { musigNonceFromBytes, policyFromBytes, vtxoFromBytes, vtxoIdFromBytes } from "./request-decoding.js";
import { BadUserInputError, NotFoundError, UnusableInputsError } from "./server-errors.js";
import type { ServerContext } from "./server-context.js";
import { checkpointOutputs } from "./arkoor-checkpoints.js";
import { DoubleSpendError, type InternalSpentVtxo, type NewVtxo, type StoredTx } from "./server-store.js";

/** `ArkoorDestination` as plain data. */
export interface ArkoorDestinationRequest {
  totalAmount: bigint;
  policy?: Uint8Array;
}

/** `ArkoorCosignRequest` (one part per input) as plain data. */
export interface ArkoorCosignPartRequest {
  inputVtxoId?: Uint8Array;
  outputs: ArkoorDestinationRequest[];
  userPubNonces: Uint8Array[];
  isolatedOutputs: ArkoorDestinationRequest[];
  useCheckpoint: boolean;
  attestation?: Uint8Array;
}

/** `ArkoorCosignResponse` of one part. */
export interface ArkoorCosignPartResponse {
  serverPubNonces: Uint8Array[];
  serverPartialSigs: Uint8Array[];
}

interface DecodedPart {
  point: OutPoint;
  id: string;
  normal: { amount: bigint; policy: VtxoPolicy }[];
  isolated: { amount: bigint; policy: VtxoPolicy }[];
  nonces: Uint8Array[];
  attestation: Uint8Array;
}

const U64_MAX = (1n << 64n) - 1n;

/**
 * How a cosign request is checked, for the flows built on arkoor: a payment (the default) spends
 * `pubkey` VTXOs within the exit-depth and dust-mix rules; a Lightning-send revocation spends the
 * HTLC-send VTXOs, and a Lightning-receive claim the HTLC-recv VTXOs, one output per input,
 * exempt from both rules.
 */
export interface ArkoorRules {
  readonly inputs?: "pubkey" | "htlc-send" | "htlc-recv";
  readonly exitDepthLimit?: boolean;
  readonly dustMixRule?: boolean;
  readonly onePerInput?: boolean;
  /** Runs under the inputs' locks, right before the spend is recorded (a last check of the flow). */
  readonly beforeRecord?: () => Promise<void>;
}

/**
 * Where the time of the cosign requests went, summed over requests (ms of wall time per stage;
 * stages of concurrent requests overlap). The bench divides them by the request count.
 */
export interface ArkoorCosignTimings {
  requests: number;
  /** Decoding, the reads of the inputs and every check before the locks (package rebuild, attestation). */
  checksMs: number;
  /** Under the locks: the spend-state re-read and the flow's last check. */
  spendCheckMs: number;
  /** The spend's record until its (group) commit is durable. */
  commitMs: number;
  /** Waiting for the signatures after the commit (they are made while it runs). */
  signWaitMs: number;
  /** From the start of the signing to the last signature of the request. */
  signMs: number;
}

/** The server's arkoor co-signing. */
export class ArkoorService {
  /** Summed stage times of the requests served (see {@link ArkoorCosignTimings}). */
  readonly timings: ArkoorCosignTimings = { requests: 0, checksMs: 0, spendCheckMs: 0, commitMs: 0, signWaitMs: 0, signMs: 0 };

  constructor(
    private readonly ctx: ServerContext,
    private readonly signer: CosignPool = sharedCosignPool(),
  ) {
    // the threads load their code now rather than in the first requests
    void signer.warm();
  }

  /** `RequestArkoorCosign`. */
  async requestArkoorCosign(parts: readonly ArkoorCosignPartRequest[], rules: ArkoorRules = {}): Promise<ArkoorCosignPartResponse[]> {
    const decoded = parts.map((p) => this.decodePart(p));
    const dup = decoded.find((d, k) => decoded.findIndex((e) => e.id === d.id) !== k);
    if (dup) throw new BadUserInputError(`duplicate input vtxo ${dup.id}`, undefined, [dup.id]);
    const stored = await Promise.all(decoded.map((d) => this.ctx.store.getVtxo(d.id)));
    const missing = decoded.filter((_, k) => !stored[k]).map((d) => d.id);
    if (missing.length) throw new NotFoundError("input vtxo not found", missing);
    const t0 = performance.now();
    const inputs = stored.map((s) => vtxoFromBytes(s!.bytes));
    for (const v of inputs) {
      const htlcSend = v.policy.type === "server-htlc-send" || v.policy.type === "server-htlc-send-v1";
      const htlcRecv = v.policy.type === "server-htlc-receive" || v.policy.type === "server-htlc-receive-v1";
      if (rules.inputs === "htlc-recv") {
        if (!htlcRecv) throw new BadUserInputError("all inputs must be HTLC-recv VTXOs");
        continue;
      }
      if (rules.inputs === "htlc-send" && !htlcSend) throw new BadUserInputError("all inputs must be HTLC-send VTXOs");
      if (rules.inputs !== "htlc-send" && htlcSend) throw new BadUserInputError("server htlc send vtxo not supported");
      if (htlcRecv) throw new BadUserInputError("server htlc recv vtxo not supported");
    }
    if (parts.length === 0 || parts.some((p) => !p.useCheckpoint)) throw new BadUserInputError("should use arkoor checkpoints");

    const built = decoded.map((d, i) => this.checkPart(i, d, inputs[i]!));
    const { maxVtxoExitDepth, maxArkoorFanout } = this.ctx.config;
    if (rules.onePerInput) {
      decoded.forEach((d) => {
        if (d.normal.length + d.isolated.length !== 1) throw new BadUserInputError(`expected exactly one output for input ${d.id}`);
      });
    }
    if (rules.exitDepthLimit !== false) decoded.forEach((d, i) => {
      const depth = inputs[i]!.genesis.length;
      if (depth >= maxVtxoExitDepth) {
        throw new BadUserInputError(`input vtxo ${d.id} exit depth ${depth} meets or exceeds the maximum of ${maxVtxoExitDepth}; refresh the VTXO in a round to reset its exit depth`, undefined, [d.id]);
      }
    });
    decoded.forEach((d) => {
      const n = d.normal.length + d.isolated.length;
      if (n > maxArkoorFanout) throw new BadUserInputError(`too many outputs for input ${d.id}: ${n} (max is ${maxArkoorFanout})`);
    });
    if (rules.dustMixRule !== false) decoded.forEach((d) => {
      for (const list of [d.normal, d.isolated]) {
        const dust = list.some((o) => o.amount < VTXO_DUST_SAT);
        const large = list.some((o) => o.amount >= 2n * VTXO_DUST_SAT);
        if (dust && large) throw new BadUserInputError(`invalid mix of dust and non-dust outputs for input ${d.id}`);
      }
    });

    const ids = decoded.map((d) => d.id);
    const t1 = performance.now();
    try {
      return await this.ctx.locks.with(ids, async () => {
        await this.checkSpendable(built);
        await rules.beforeRecord?.();
        const t2 = performance.now();
        // signed while the spend commits; handed out only after the commit
        const signing = this.sign(built, decoded);
        signing.catch(() => undefined); // awaited below once the spend is recorded
        await this.recordSpend(built);
        const t3 = performance.now();
        this.ctx.logger.debug(`arkoor cosign: ${ids.join(", ")} → ${built.map((p) => txidHex(p.checkpointTx!)).join(", ")}`);
        const { answers, ms } = await signing;
        const t4 = performance.now();
        const t = this.timings;
        t.requests++;
        t.checksMs += t1 - t0;
        t.spendCheckMs += t2 - t1;
        t.commitMs += t3 - t2;
        t.signWaitMs += t4 - t3;
        t.signMs += ms;
        return answers;
      });
    } catch (e) {
      if (e instanceof VtxoLockedError) throw new BadUserInputError(e.message, undefined, e.ids);
      if (e instanceof DoubleSpendError) throw new UnusableInputsError(e.message, undefined, [e.id]);
      throw e;
    }
  }

  private decodePart(p: ArkoorCosignPartRequest): DecodedPart {
    const point = vtxoIdFromBytes(p.inputVtxoId);
    const dest = (o: ArkoorDestinationRequest) => ({ amount: o.totalAmount, policy: policyFromBytes(o.policy) });
    return {
      point,
      id: formatOutPoint(point),
      normal: p.outputs.map(dest),
      isolated: p.isolatedOutputs.map(dest),
      nonces: p.userPubNonces.map((n) => musigNonceFromBytes(n)),
      attestation: p.attestation ?? new Uint8Array(0),
    };
  }

  /** The "well formed" checks of one part; returns the rebuilt part. */
  private checkPart(index: number, d: DecodedPart, input: Vtxo): ArkoorPart {
    const bad = (reason: string) => new BadUserInputError(`invalid cosign request at index #${index}: ${reason}`);
    const all = [...d.normal, ...d.isolated];
    if (all.length === 0) throw bad("no outputs");
    let total = 0n;
    for (const o of all) {
      if (o.amount <= 0n || o.amount > U64_MAX) throw bad(`invalid output amount ${o.amount}`);
      total += o.amount;
    }
    if (total !== input.amount) throw bad(`Unbalanced { input: ${input.amount}, output: ${total} }`);
    if (d.isolated.length > 0) {
      const s = d.isolated.reduce((a, o) => a + o.amount, 0n);
      if (s < VTXO_DUST_SAT) throw bad(`isolated outputs sum to ${s}, below dust`);
    }
    const part = buildArkoorPart(input, { normal: d.normal, isolated: d.isolated }, { useCheckpoint: true, skipChecks: true });
    if (d.nonces.length !== part.signing.length) throw bad(`wrong number of user nonces: expected ${part.signing.length}, got ${d.nonces.length}`);
    const msg = arkoorCosignAttestation(encodeOutPoint(d.point), d.normal, d.isolated);
    if (d.attestation.length !== 64 || !verifyAttestation(d.attestation, msg, input.policy.userPubkey)) throw bad("Invalid attestation");
    return part;
  }

  /** Re-reads each input's state under the locks (an earlier request may have spent it). */
  private async checkSpendable(parts: readonly ArkoorPart[]): Promise<void> {
    const tip = await this.ctx.chain.tipHeight();
    for (const part of parts) {
      const id = formatOutPoint(part.input.point);
      const row = await this.ctx.store.getVtxo(id);
      if (!row) throw new NotFoundError("input vtxo not found", [id]);
      const spendTxid = txidHex(part.checkpointTx!);
      if ((await this.ctx.chain.getTxStatus(row.id.split(":")[0]!))?.confirmed) {
        throw new UnusableInputsError(`vtxo ${row.id} has exited onchain`, undefined, [row.id]);
      }
      if (row.state === "spent" && row.oorSpentTxid === spendTxid && (await this.sameArkoorTxs(part))) continue;
      if (row.state !== "spendable") throw new UnusableInputsError(`vtxo ${row.id} is not spendable (state: ${row.state})`, undefined, [row.id]);
      if (row.bannedUntilHeight !== null && tip < row.bannedUntilHeight) {
        throw new UnusableInputsError(`vtxo ${row.id} is banned until block ${row.bannedUntilHeight}`, undefined, [row.id]);
      }
    }
  }

  /** Whether an already recorded spend of this checkpoint tx went to the same arkoor txs (replay). */
  private async sameArkoorTxs(part: ArkoorPart): Promise<boolean> {
    for (const c of checkpointOutputs(part)) {
      const spender = await this.ctx.store.spentBy(formatOutPoint(c.vtxo.point));
      if (spender !== null && spender !== c.spentBy) return false;
    }
    return true;
  }

  private async recordSpend(parts: readonly ArkoorPart[]): Promise<void> {
    const inputs = parts.map((p) => ({ id: formatOutPoint(p.input.point), spendTxid: txidHex(p.checkpointTx!) }));
    const outputs: NewVtxo[] = parts.flatMap((p) =>
      arkoorOutputVtxos(p, p.signing.map(() => null)).map((v) => {
        const user = policyUserPubkey(v.policy);
        return { id: formatOutPoint(v.point), bytes: encodeVtxo(v), state: "unregistered" as const, userPubkey: user ? toHex(user) : null, policyType: v.policy.type };
      }),
    );
    const txs: StoredTx[] = parts.flatMap((p) =>
      [p.checkpointTx!, ...p.arkoorTxs, ...(p.fanoutTx ? [p.fanoutTx] : [])].map((t) => ({ txid: txidHex(t), raw: encodeTx(t), signed: false, isFunding: false })),
    );
    const internal: InternalSpentVtxo[] = parts.flatMap((p) =>
      checkpointOutputs(p).map((c) => ({
        vtxo: { id: formatOutPoint(c.vtxo.point), bytes: encodeVtxo(c.vtxo), state: "spent" as const, userPubkey: null, policyType: c.vtxo.policy.type },
        spentBy: c.spentBy,
        inputId: formatOutPoint(p.input.point),
      })),
    );
    await this.ctx.store.recordArkoorSpend(inputs, internal, outputs, txs);
  }

  /** The server's nonces and partial signatures of every part (on the signing threads), and how long they took. */
  private async sign(parts: readonly ArkoorPart[], decoded: readonly DecodedPart[]): Promise<{ answers: ArkoorCosignPartResponse[]; ms: number }> {
    const start = performance.now();
    const { serverSecret, serverPubkey } = this.ctx.keys;
    const jobs = parts.flatMap((part, k) =>
      part.signing.map((s, i) => ({ secretKey: serverSecret, pubkey: serverPubkey, otherPubkey: part.signers[0], otherPubNonce: decoded[k]!.nonces[i]!, message: s.sighash, tweak: s.tweak })),
    );
    const signed: MusigCosignResponse[] = await this.signer.sign(jobs);
    let at = 0;
    const answers = parts.map((part) => {
      const mine = signed.slice(at, (at += part.signing.length));
      return { serverPubNonces: mine.map((a) => a.pubNonce), serverPartialSigs: mine.map((a) => a.partialSig) };
    });
    return { answers, ms: performance.now() - start };
  }
}
