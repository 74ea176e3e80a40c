/**
 * The interactive side of a round attempt: `SubmitPayment` during sign-up and
 * `ProvideVtxoSignatures` during signing, with captaind's checks in captaind's order (cheap
 * checks first).
 *
 * | Check | Refusal | Code |
 * |---|---|---|
 * | sign-up open | "Round already started. Message arrived late or round was full." | INVALID_ARGUMENT |
 * | pver ≥ 5 | update-needed text | INVALID_ARGUMENT |
 * | `nb_round_nonces` nonces per output | "need exactly N public nonces" | INVALID_ARGUMENT |
 * | no offboard requests | "offboards in rounds are no longer supported" | UNIMPLEMENTED |
 * | at least one output | "invalid request: no outputs" | INVALID_ARGUMENT |
 * | cosign keys unique (request and round) | "duplicate cosign key …" | INTERNAL |
 * | output ≤ maximum | "output exceeds maximum vtxo amount of X" | INVALID_ARGUMENT |
 * | room in the round | "not enough outputs left in this round, try next round" | INTERNAL |
 * | inputs unique / not registered yet | "user provided duplicate inputs" / "vtxo X already registered" | INTERNAL |
 * | input allowed after a failed attempt | "input vtxo X has been banned for this round" | INTERNAL |
 * | inputs not locked | "input VTXO already locked" | INVALID_ARGUMENT |
 * | inputs exist / spendable | "vtxo does not exist" / "input vtxo(s) not spendable" | NOT_FOUND / INVALID_ARGUMENT |
 * | attestations | "attestation is invalid: …" | INTERNAL |
 * | amounts, policy, balance, refresh fee | see `round-requests.ts` | INVALID_ARGUMENT |
 */
import { randomBytes } from "node:crypto";
import { formatOutPoint, roundAttemptAttestation, sha256, toHex, verifyAttestation, encodeOutPoint, type Vtxo } from "@tender/ark-protocol";
import { VtxoLockedError } from "../async-lock.js";
import { musigNonceFromBytes, policyFromBytes, pubkeyFromBytes, vtxoIdFromBytes } from "../request-decoding.js";
import { BadUserInputError, UnimplementedError } from "../server-errors.js";
import type { ServerContext } from "../server-context.js";
import { checkRoundBalance, checkRoundOutputs, checkRoundPver, RoundInternalRefusal } from "./round-requests.js";
import { spendableRoundInputs } from "./round-inputs.js";
import type { RoundAttempt, SignedOutput } from "./round-attempt.js";
import { BranchSignatureError } from "./round-tree.js";

/** `SubmitPaymentRequest` as plain data. */
export interface SubmitPaymentData {
  readonly inputs: readonly { vtxoId?: Uint8Array; attestation?: Uint8Array }[];
  readonly outputs: readonly { amount: bigint; policy?: Uint8Array; cosignPubkey?: Uint8Array; pubNonces: readonly Uint8Array[] }[];
  /** Number of (deprecated) offboard requests; must be 0. */
  readonly offboardRequests: number;
  readonly mailboxId?: Uint8Array;
}

const LATE = "Round already started. Message arrived late or round was full.";

/** Refuses when `attempt` is not the running attempt in sign-up. */
function checkSignupOpen(attempt: RoundAttempt | undefined): RoundAttempt {
  if (!attempt || attempt.phase === "done") throw new BadUserInputError("no round is running: wait for the next round attempt");
  if (attempt.phase !== "signup") throw new BadUserInputError(LATE);
  return attempt;
}

/**
 * `SubmitPayment`: joins the attempt `current()` returns; resolves to the unlock hash. `onJoined`
 * is called after a successful sign-up (the coordinator ends the window early when full).
 */
export async function submitPayment(ctx: ServerContext, current: () => RoundAttempt | undefined, req: SubmitPaymentData, pver: number, onJoined: () => void): Promise<Uint8Array> {
  const attempt = checkSignupOpen(current());
  checkRoundPver(pver);
  const points = req.inputs.map((i) => vtxoIdFromBytes(i.vtxoId));
  const outputs: SignedOutput[] = req.outputs.map((o) => {
    const nonces = o.pubNonces.map((n) => musigNonceFromBytes(n));
    if (nonces.length !== attempt.nbRoundNonces) throw new BadUserInputError(`need exactly ${attempt.nbRoundNonces} public nonces`);
    return { amount: o.amount, policy: policyFromBytes(o.policy), cosignPubkey: pubkeyFromBytes(o.cosignPubkey), nonces };
  });
  if (req.offboardRequests > 0) throw new UnimplementedError("offboards in rounds are no longer supported");
  if (outputs.length === 0) throw new BadUserInputError("invalid request: no outputs");
  const keys = outputs.map((o) => toHex(o.cosignPubkey));
  const dupKey = keys.find((k, i) => keys.indexOf(k) !== i || attempt.hasCosignKey(k));
  if (dupKey) throw new RoundInternalRefusal(`duplicate cosign key ${dupKey}`);
  const maxVtxoAmount = ctx.config.maxVtxoAmount;
  for (const o of outputs) if (maxVtxoAmount !== undefined && o.amount > maxVtxoAmount) throw new BadUserInputError(`output exceeds maximum vtxo amount of ${maxVtxoAmount}`);
  if (attempt.outputCount + outputs.length > attempt.capacity) throw new RoundInternalRefusal("not enough outputs left in this round, try next round");
  const ids = points.map(formatOutPoint);
  if (new Set(ids).size !== ids.length) throw new RoundInternalRefusal("user provided duplicate inputs");
  const registered = ids.find((id) => attempt.holds(id));
  if (registered) throw new RoundInternalRefusal(`vtxo ${registered} already registered`);
  const banned = ids.find((id) => attempt.excluded.has(id));
  if (banned) throw new RoundInternalRefusal(`input vtxo ${banned} has been banned for this round`);
  try {
    attempt.lock(ids);
  } catch (e) {
    if (e instanceof VtxoLockedError) throw new BadUserInputError("input VTXO already locked", undefined, e.ids);
    throw e;
  }
  try {
    const vtxos = await spendableRoundInputs(ctx, ids, "input vtxo(s) not spendable");
    checkAttestations(attempt, req, points.map(encodeOutPoint), vtxos, outputs);
    checkRoundOutputs(outputs, maxVtxoAmount);
    checkRoundBalance(vtxos, outputs, ctx.config.fees.refresh, await ctx.chain.tipHeight());
    // the window may have closed (or the round filled up) while the inputs were read
    if (current() !== attempt || attempt.phase !== "signup") throw new BadUserInputError(LATE);
    if (attempt.outputCount + outputs.length > attempt.capacity) throw new RoundInternalRefusal("not enough outputs left in this round, try next round");
    const lateDup = keys.find((k) => attempt.hasCosignKey(k));
    if (lateDup) throw new RoundInternalRefusal(`duplicate cosign key ${lateDup}`);
    const unlockPreimage = new Uint8Array(randomBytes(32));
    const unlockHash = sha256(unlockPreimage);
    attempt.addParticipant({ unlockPreimage, unlockHash, inputs: ids, inputVtxos: vtxos, outputs, mailboxId: req.mailboxId?.length ? toHex(req.mailboxId) : null });
    ctx.logger.debug(`round ${attempt.roundSeq}.${attempt.attemptSeq}: payment of ${ids.length} input(s) → ${outputs.length} output(s) signed up`);
    onJoined();
    return unlockHash;
  } catch (e) {
    attempt.unlock(ids);
    throw e;
  }
}

function checkAttestations(attempt: RoundAttempt, req: SubmitPaymentData, ids: readonly Uint8Array[], vtxos: readonly Vtxo[], outputs: readonly SignedOutput[]): void {
  vtxos.forEach((v, i) => {
    const msg = roundAttemptAttestation(attempt.challenge, ids[i]!, outputs);
    const sig = req.inputs[i]!.attestation ?? new Uint8Array(0);
    if (sig.length !== 64 || !verifyAttestation(sig, msg, v.policy.userPubkey)) throw new RoundInternalRefusal(`attestation is invalid: invalid signature for vtxo ${formatOutPoint(v.point)}`);
  });
}

/** `ProvideVtxoSignatures`: one cosigner's branch partial signatures. `onSigned` wakes the coordinator. */
export function provideVtxoSignatures(attempt: RoundAttempt | undefined, pubkeyBytes: Uint8Array | undefined, signatures: readonly Uint8Array[], pver: number, onSigned: () => void): void {
  if (!attempt || attempt.phase === "done") throw new BadUserInputError("unexpected message. no round is running");
  if (attempt.phase === "signup") throw new BadUserInputError("unexpected message. current step is payment registration");
  if (attempt.phase !== "signing" || !attempt.signingState) throw new BadUserInputError("unexpected message. current step is round finalization");
  checkRoundPver(pver);
  const pubkey = pubkeyFromBytes(pubkeyBytes);
  const key = toHex(pubkey);
  const state = attempt.signingState;
  if (state.partials.has(key)) throw new BadUserInputError("duplicate signatures for pubkey");
  if (!state.waiting.has(key)) throw new BadUserInputError("pubkey is not part of cosigner group");
  try {
    if (signatures.some((s) => s.length !== 32)) throw new BranchSignatureError("partial signatures are 32 bytes");
    state.signing.verifyBranch(pubkey, signatures);
  } catch (e) {
    if (e instanceof BranchSignatureError) throw new BadUserInputError(`invalid partial signatures: ${e.message}`);
    throw e;
  }
  state.partials.set(key, [...signatures]);
  state.waiting.delete(key);
  onSigned();
}
