/**
 * Instruments of the round benchmark, all outside the coordinator (nothing in it changes):
 *
 * | Instrument | What it records |
 * |---|---|
 * | {@link recordRoundEvents} | when the server published `attempt`, `vtxo-proposal` and `finished` (an in-process subscriber of its event channel) |
 * | {@link timeTreeSigning} | time spent in the server's tree-signing methods (`AttemptTreeSigning`): branch checks of each `ProvideVtxoSignatures` and the final signatures |
 * | {@link musigSession} | one complete 2-signer MuSig2 session, the unit the round is compared with |
 *
 * Times are absolute (`performance.timeOrigin + performance.now()`), comparable across threads.
 */
import { MusigSession, musigNonceAgg, musigNonceGen, musigTweakedKey, sha256, type MusigNonce } from "@tender/ark-protocol";
import type { RoundEventChannel } from "../../src/ark-server/rounds/round-events.js";
import { AttemptTreeSigning } from "../../src/ark-server/rounds/round-tree.js";
import { newKey } from "../ark-server/wallet-kit.js";

/** Absolute milliseconds, comparable between the worker and the main thread. */
export const nowMs = (): number => performance.timeOrigin + performance.now();

/** Publication times of one round's events (0 = not seen). */
export interface RoundEventTimes {
  attempt: number;
  proposal: number;
  finished: number;
}

/**
 * Subscribes to the server's round event channel from now on and records when each event of
 * the next round was published; resolves at `finished`, rejects at `failed`.
 */
export function recordRoundEvents(channel: RoundEventChannel): { times: RoundEventTimes; finished: Promise<RoundEventTimes>; stop: () => void } {
  const times: RoundEventTimes = { attempt: 0, proposal: 0, finished: 0 };
  const abort = new AbortController();
  const finished = (async () => {
    let armed = false;
    for await (const e of channel.subscribe(abort.signal)) {
      const t = nowMs();
      if (e.kind === "attempt") {
        armed = true;
        if (times.attempt === 0) times.attempt = t;
      }
      if (!armed) continue; // the last event of an earlier round, replayed first
      if (e.kind === "vtxo-proposal") times.proposal = t;
      if (e.kind === "failed") throw new Error(`round ${e.roundSeq} failed`);
      if (e.kind === "finished") {
        times.finished = t;
        return times;
      }
    }
    throw new Error("the server stopped before the round finished");
  })();
  finished.catch(() => undefined);
  return { times, finished, stop: () => abort.abort() };
}

/** Time spent in the server's tree-signing methods while instrumented. */
export interface TreeSigningTimes {
  /** Total ms of the cosigners' branch partial-signature checks (one call per `ProvideVtxoSignatures`). */
  branchChecksMs: number;
  /** When the last branch check ended (absolute ms; the last signature accepted). */
  lastBranchCheckAt: number;
  /** ms of the server's partial signature on every internal node and the aggregation of all partials. */
  finalSignaturesMs: number;
}

/**
 * Times `AttemptTreeSigning.verifyBranch` and `finalSignatures` until `restore` is called; the
 * methods run unchanged (same arguments, results and errors).
 */
export function timeTreeSigning(): { times: TreeSigningTimes; restore: () => void } {
  const proto = AttemptTreeSigning.prototype;
  const { verifyBranch, finalSignatures } = proto;
  const times: TreeSigningTimes = { branchChecksMs: 0, lastBranchCheckAt: 0, finalSignaturesMs: 0 };
  const timed = <A extends unknown[], R>(fn: (...a: A) => R, add: (ms: number, end: number) => void) =>
    function (this: AttemptTreeSigning, ...args: A): R {
      const t = nowMs();
      try {
        return fn.apply(this, args);
      } finally {
        const end = nowMs();
        add(end - t, end);
      }
    };
  proto.verifyBranch = timed(verifyBranch, (ms, end) => {
    times.branchChecksMs += ms;
    times.lastBranchCheckAt = end;
  });
  proto.finalSignatures = timed(finalSignatures, (ms) => (times.finalSignaturesMs += ms));
  return {
    times,
    restore: () => {
      proto.verifyBranch = verifyBranch;
      proto.finalSignatures = finalSignatures;
    },
  };
}

/**
 * One complete MuSig2 session of two signers, as in a round tree node: key aggregation with a
 * taproot tweak (a new tweak each call, so the memoised KeyAgg never answers), a nonce per
 * signer, nonce aggregation, two partial signatures and their aggregation.
 */
export function musigSession(): () => Uint8Array {
  const a = newKey();
  const b = newKey();
  const message = sha256(new TextEncoder().encode("round bench message"));
  let i = 0;
  return () => {
    const tweak = sha256(new TextEncoder().encode(`round bench tweak ${i++}`));
    const aggregateKey = musigTweakedKey([a.pk, b.pk], tweak);
    const nonces: MusigNonce[] = [a, b].map((k) => musigNonceGen({ pubkey: k.pk, secretKey: k.sk, aggregateKey, message }));
    const session = new MusigSession({ pubkeys: [a.pk, b.pk], aggNonce: musigNonceAgg(nonces.map((n) => n.pubNonce)), message, tweak });
    return session.aggregate([session.sign(nonces[0]!.secNonce, a.sk), session.sign(nonces[1]!.secNonce, b.sk)]);
  };
}
