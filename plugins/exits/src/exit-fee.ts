/**
 * The emergency exit fee estimate (`GET /exits/fee`): the broadcast leg replays the CPFP walk
 * over the exit txs still to go out (deduplicated across VTXOs; confirmed ones, and packages
 * already paying the target rate, cost nothing), each child funded from the confirmed coins as
 * the wallet would fund it (largest first; a child's change counts again for the txs after it,
 * which go out once it confirmed); the claim leg is the weight of the one signed claim of every VTXO.
 *
 * Tolerance against what progress and claim then spend, at unchanged fee rates: the claim leg is
 * exact (same transaction); each child of the broadcast leg may differ by 1 sat (the wallet
 * rounds the parent's and the child's share separately), so |spent − estimated| ≤ 1 sat per
 * exit tx broadcast. Replacements (RBF) are priced as new children at the target rate.
 */
import { BadRequestError } from "@tender/core";
import { buildClaimTx, type ClaimInput, type ExitStep } from "@tender/ark-protocol";
import { exitErrors, failedTo } from "./exit-errors.js";
import { packageFee } from "./exit-json.js";
import { kvbToKwu } from "./exit-claim.js";
import { claimInputOf, planOf } from "./exit-progress.js";

/** The highest nLockTime read as a block height. */
const LAST_BLOCK_HEIGHT = 499_999_999;
import type { ExitService } from "./exit-service.js";
import { exitRefusal } from "./exit-service.js";

/** A CPFP child with `n` wallet inputs: the anchor and `n` key-path inputs, one P2TR change output. */
export const childWeight = (n: number): number => (4 + 4 + 1 + 1) * 4 + 2 + 165 + 230 * n + 172;
/** The change a child keeps above dust (P2TR). */
const CHANGE_DUST_SAT = 330n;

/** barkd's `EmergencyExitFeeEstimateResponse`. */
export interface ExitFeeEstimate {
  exit_broadcast_fee_sat: number;
  claim_fee_sat: number;
  total_fee_sat: number;
  fee_rate_sat_per_vb: number;
  txs_to_broadcast: number;
  fundable: boolean;
}

const feeAt = (satPerKvb: bigint, vsize: number): bigint => (satPerKvb * BigInt(vsize) + 999n) / 1000n;

/** Estimates exiting `ids` (every spendable VTXO when omitted). */
export async function estimateExitFee(service: ExitService, ids: readonly string[] | undefined, satPerVb: bigint | undefined, destination: Uint8Array | undefined): Promise<ExitFeeEstimate> {
  const { ports, store } = service;
  const chosen = ids ?? (await ports.vtxos.listUnspent()).filter((v) => v.state === "spendable").map((v) => v.id);
  let broadcastRate: bigint;
  let claimRate: bigint;
  try {
    await ports.wallet.sync();
  } catch (e) {
    throw failedTo("error syncing on-chain wallet", e);
  }
  if (satPerVb !== undefined) broadcastRate = claimRate = satPerVb * 1000n;
  else ({ fastSatPerKvb: broadcastRate, regularSatPerKvb: claimRate } = await ports.wallet.feeRates());

  const parents: ExitStep[] = [];
  const seen = new Set<string>();
  const inputs: ClaimInput[] = [];
  try {
    for (const id of new Set(chosen)) {
      const view = await ports.vtxos.get(id);
      if (!view) throw new BadRequestError(`Provided VTXO ${id} is unknown`);
      if (view.vtxo.amount < 330n) throw new BadRequestError(`Provided VTXO ${id} is dust`);
      const exit = await store.exit(id);
      if (exit?.state.type === "claimed" || (view.state === "exited" && !exit)) throw new BadRequestError(`Provided VTXO ${id} has already exited`);
      if (exit?.state.type === "vtxo-already-spent" || view.state === "spent") throw new BadRequestError(`Provided VTXO ${id} has already been spent`);
      const refusal = exitRefusal(view);
      if (refusal) throw refusal;
      inputs.push(await claimInputOf(ports, store, view.vtxo, id));
      if (exit && ["awaiting-delta", "claimable", "claim-in-progress"].includes(exit.state.type)) continue;
      for (const step of planOf(view.vtxo, id)) {
        if (seen.has(step.txid)) continue;
        seen.add(step.txid);
        if (await costsNothing(service, step, broadcastRate)) continue;
        parents.push(step);
      }
    }
  } catch (e) {
    if (e instanceof BadRequestError) throw e;
    throw failedTo("Failed to estimate emergency exit fee", e);
  }

  // The walk: each child takes confirmed coins, largest first, until it pays the package and keeps its change above dust.
  const pool = (await ports.wallet.confirmedCoins()).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  let broadcastFee = 0n;
  let fundable = true;
  for (const p of parents) {
    const parentVsize = Math.ceil(p.weight / 4);
    let taken = 0n;
    let n = 0;
    let fee = feeAt(broadcastRate, parentVsize + Math.ceil(childWeight(1) / 4));
    while (fundable && taken + p.anchorValue < fee + CHANGE_DUST_SAT) {
      const coin = pool.shift();
      if (coin === undefined) {
        fundable = false;
        break;
      }
      taken += coin;
      n++;
      fee = feeAt(broadcastRate, parentVsize + Math.ceil(childWeight(n) / 4));
    }
    broadcastFee += fundable ? fee : feeAt(broadcastRate, parentVsize + Math.ceil(childWeight(1) / 4));
    if (!fundable) continue;
    // the child's change confirms with its package, before the next level of the chain needs funding
    pool.push(taken + p.anchorValue - fee);
    pool.sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  }

  let claimFee = 0n;
  if (inputs.length > 0) {
    try {
      const tip = await ports.chain.tip();
      const script = destination ?? (await ports.wallet.placeholderScript());
      // the weight alone: a timelocked clause (HTLC-send refund) not yet reached weighs the same
      const weight = buildClaimTx({ inputs, destinationScript: script, tipHeight: Math.max(tip.height, LAST_BLOCK_HEIGHT), feeRateSatPerKwu: 0n }).weight;
      claimFee = (kvbToKwu(claimRate) * BigInt(weight) + 999n) / 1000n;
    } catch (e) {
      throw failedTo("Failed to estimate emergency exit fee", e);
    }
  }
  return {
    exit_broadcast_fee_sat: Number(broadcastFee), claim_fee_sat: Number(claimFee), total_fee_sat: Number(broadcastFee + claimFee),
    fee_rate_sat_per_vb: Number((broadcastRate + 999n) / 1000n), txs_to_broadcast: parents.length, fundable,
  };
}

/** An exit tx that is confirmed, or out with a package paying at least `rate`. */
async function costsNothing(service: ExitService, step: ExitStep, rate: bigint): Promise<boolean> {
  const st = await service.ports.chain.txStatus(step.txid);
  if (st?.confirmed) return true;
  if (!st) return false;
  const child = (await service.store.children(step.txid)).filter((c) => c.status === "broadcast").at(-1);
  return child !== undefined && child.feeSat >= 0n && packageFee(child, Math.ceil(step.weight / 4)).satPerKvb >= rate;
}
