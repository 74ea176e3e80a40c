/**
 * Delegated (non-interactive) round participation (bark's `join_next_round_delegated` and
 * `check_round_matches_participation`): the server joins the next round (or the first at or after
 * `scheduled_height`) for the wallet, which only signs ownership now and checks the result later.
 *
 * | Step | Function | Checks |
 * |---|---|---|
 * | `SubmitRoundParticipation` | {@link prepareDelegatedParticipation} | inputs owned and unique, outputs ≥ dust, scheduled inputs expire after the scheduled height; one delegated attestation per input |
 * | status `issued` / `released` | {@link checkDelegatedOutputs} | outputs in request order and count (amount, policy), server key, exit delta, expiry ≥ scheduled height + 1 (else ≥ max input expiry + 1), valid against the funding tx up to the hash-locked leaf transition (v0 or v1 scripts) |
 *
 * After the check, the hArk swap of round-swap.ts makes the outputs spendable.
 *
 * @example
 * ```ts
 * const unlockHash = await server.submitRoundParticipation(prepareDelegatedParticipation({ inputs, outputs, mailboxId }));
 * const status = await server.roundParticipationStatus(unlockHash);
 * if (status.status !== "pending") {
 *   const { fundingTxid, vtxos } = checkDelegatedOutputs({ status, outputs, server: params, inputs: inputs.map((i) => i.vtxo), unlockHash });
 * }
 * ```
 */
import { randomBytes } from "@noble/hashes/utils.js";
import { bytesEqual, displayHex, toHex } from "./encoding.js";
import { encodePolicy } from "./policy.js";
import { decodeTx, txid, type Transaction } from "./tx.js";
import { delegatedRoundAttestation, signAttestation } from "./signatures.js";
import { decodeVtxo, vtxoId, vtxoIdString, type Vtxo } from "./vtxo.js";
import { unlockHash as unlockHashOf } from "./vtxo-genesis.js";
import type { RoundParticipationRequest } from "./server/round-messages.js";
import {
  RoundFinishedError,
  RoundParticipationError,
  btcDisplay,
  checkOwnedInputs,
  checkRoundOutputs,
  checkRoundTreeParams,
  checkVtxoAwaitingUnlock,
  type OwnedRoundInput,
  type RoundOutput,
  type RoundServerParams,
} from "./round-client.js";

/**
 * Builds `SubmitRoundParticipation`: one delegated attestation per input over its id and the
 * outputs. With `scheduledHeight` every input must expire after it (the server refuses
 * otherwise). `rand` (default: crypto randomness) feeds the signatures' aux data.
 */
export function prepareDelegatedParticipation(p: {
  inputs: readonly OwnedRoundInput[];
  outputs: readonly RoundOutput[];
  mailboxId?: Uint8Array;
  scheduledHeight?: number;
  rand?: (n: number) => Uint8Array;
}): RoundParticipationRequest {
  const rand = p.rand ?? randomBytes;
  checkOwnedInputs(p.inputs);
  checkRoundOutputs(p.outputs);
  if (p.mailboxId !== undefined && p.mailboxId.length !== 33) throw new RoundParticipationError("mailbox id must be 33 bytes");
  const h = p.scheduledHeight;
  if (h !== undefined) {
    if (!Number.isSafeInteger(h) || h < 0) throw new RoundParticipationError(`invalid scheduled height ${h}`);
    for (const { vtxo } of p.inputs) {
      if (vtxo.expiryHeight <= h) {
        throw new RoundParticipationError(`input vtxo ${vtxoIdString(vtxo)} expires at height ${vtxo.expiryHeight}, before the scheduled refresh height ${h}`);
      }
    }
  }
  return {
    inputs: p.inputs.map(({ vtxo, secretKey }) => {
      const id = vtxoId(vtxo);
      return { vtxoId: id, attestation: signAttestation(delegatedRoundAttestation(id, p.outputs), secretKey, rand(32)) };
    }),
    outputs: p.outputs.map((o) => ({ amount: o.amount, policy: encodePolicy(o.policy) })),
    ...(p.mailboxId ? { mailboxId: p.mailboxId } : {}),
    ...(h !== undefined ? { scheduledHeight: h } : {}),
  };
}

/**
 * Checks the output VTXOs of an issued (or released) delegated participation against the
 * request and returns them decoded, in request order. Throws {@link RoundFinishedError}.
 * `unlockHash`, when given, must lock every output.
 */
export function checkDelegatedOutputs(p: {
  status: { readonly roundFundingTx: Uint8Array; readonly outputVtxos: readonly Uint8Array[] };
  outputs: readonly RoundOutput[];
  server: RoundServerParams;
  inputs: readonly Vtxo[];
  scheduledHeight?: number;
  unlockHash?: Uint8Array;
}): { fundingTxid: string; vtxos: Vtxo[] } {
  let fundingTx: Transaction;
  let vtxos: Vtxo[];
  try {
    fundingTx = decodeTx(p.status.roundFundingTx);
    vtxos = p.status.outputVtxos.map((b) => decodeVtxo(b));
  } catch (e) {
    throw new RoundFinishedError(`invalid output VTXOs from server: ${(e as Error).message}`);
  }
  if (vtxos.length !== p.outputs.length) throw new RoundFinishedError(`unexpected number of VTXOs: got ${vtxos.length}, expected ${p.outputs.length}`);
  const minExpiryHeight = (p.scheduledHeight ?? p.inputs.reduce((m, v) => Math.max(m, v.expiryHeight), 1)) + 1;
  vtxos.forEach((vtxo, i) => {
    const req = p.outputs[i]!;
    if (vtxo.amount !== req.amount) throw new RoundFinishedError(`unexpected VTXO amount: got ${btcDisplay(vtxo.amount)}, expected ${btcDisplay(req.amount)}`);
    const got = encodePolicy(vtxo.policy);
    const expected = encodePolicy(req.policy);
    if (!bytesEqual(got, expected)) throw new RoundFinishedError(`unexpected VTXO policy: got ${toHex(got)}, expected ${toHex(expected)}`);
    checkRoundTreeParams(vtxo, { serverPubkey: p.server.serverPubkey, exitDelta: p.server.vtxoExitDelta, minExpiryHeight }, RoundFinishedError);
    checkVtxoAwaitingUnlock(vtxo, fundingTx, RoundFinishedError);
    if (p.unlockHash) {
      const last = vtxo.genesis.at(-1)!.transition;
      if (last.kind === "hash-locked-cosigned" || last.kind === "hash-locked-cosigned-v1") {
        if (!bytesEqual(unlockHashOf(last.unlock), p.unlockHash)) throw new RoundFinishedError(`VTXO ${vtxoIdString(vtxo)} is locked by another unlock hash than ours`);
      }
    }
  });
  return { fundingTxid: displayHex(txid(fundingTx)), vtxos };
}
