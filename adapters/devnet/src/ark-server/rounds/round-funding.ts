/**
 * The round funding tx, paid by the server's on-chain wallet (one key-path P2TR address):
 * the tree output at vout 0, change back to the wallet, fee rate "fast" from the node's
 * estimate (1-block target).
 *
 * Only trusted coins are spent: confirmed with at least `min_trusted_confs` confirmations, or
 * outputs of the server's own round funding txs (its change). Coins spent by a stored round
 * funding tx that is not confirmed yet are never reused, even when the node dropped that tx
 * (it is re-broadcast), so a later round cannot invalidate an earlier one. Across the attempts of one round the first input is pinned, so that only
 * one attempt's funding tx can ever confirm.
 */
import {
  encodeTx,
  fromHex,
  reverseBytes,
  signSchnorr,
  taprootSighash,
  tweakSecretKey,
  type OutPoint,
  type Transaction,
  type TxIn,
  type TxOut,
} from "@tender/ark-protocol";
import type { ServerContext } from "../server-context.js";
import type { RoundStore } from "./round-store.js";

/** The wallet has not enough trusted coins (the round fails, the next one may succeed). */
export class InsufficientFundsError extends Error {
  constructor(needed: bigint, available: bigint) {
    super(`Insufficient funds: needed ${needed} sat, ${available} sat trusted`);
  }
}

/** The pinned input of earlier attempts is no longer unspent. */
export class PinnedInputLostError extends Error {}

/** A wallet coin. */
export interface WalletCoin {
  readonly txid: string;
  readonly vout: number;
  readonly amount: bigint;
}

/** An unsigned funding tx with the coins it spends (in input order). */
export interface RoundFunding {
  readonly tx: Transaction;
  readonly coins: readonly WalletCoin[];
}

const CHANGE_DUST = 330n;
const DUMMY_SIG = new Uint8Array(64);

const outpointOf = (c: WalletCoin): OutPoint => ({ txid: reverseBytes(fromHex(c.txid)), vout: c.vout });
const sameCoin = (a: WalletCoin, b: WalletCoin) => a.txid === b.txid && a.vout === b.vout;

function vsize(tx: Transaction): number {
  const withSigs = { ...tx, inputs: tx.inputs.map((i) => ({ ...i, witness: [DUMMY_SIG] })) };
  const weight = encodeTx(withSigs, false).length * 3 + encodeTx(withSigs, true).length;
  return Math.ceil(weight / 4);
}

/** The "fast" fee rate in sat/vB. */
export async function fastFeeRate(ctx: ServerContext): Promise<number> {
  try {
    const r = await ctx.chain.estimateFeeRate(1);
    if (r > 0) return r;
  } catch {
    // no estimate: the fallback below
  }
  return ctx.config.fastFeeRateSatPerVb;
}

/** Unspent wallet coins the rounds may spend now. */
export async function trustedWalletCoins(ctx: ServerContext, rounds: RoundStore): Promise<WalletCoin[]> {
  const tip = await ctx.chain.tipHeight();
  const reserved = await rounds.reservedFundingInputs(async (txid) => (await ctx.chain.getTxStatus(txid))?.confirmed === true);
  const out: WalletCoin[] = [];
  const held = await ctx.walletCoinHolds.all();
  for (const u of await ctx.chain.utxosForScript(ctx.keys.walletScript)) {
    if (reserved.has(`${u.txid}:${u.vout}`) || held.has(`${u.txid}:${u.vout}`)) continue;
    const confs = u.status.confirmed && u.status.blockHeight !== undefined ? tip - u.status.blockHeight + 1 : 0;
    const trusted = (u.status.confirmed && confs >= ctx.config.minTrustedConfs) || (await rounds.isRoundFundingTx(u.txid));
    if (trusted) out.push({ txid: u.txid, vout: u.vout, amount: u.amountSat });
  }
  return out;
}

/**
 * Builds the unsigned funding tx for `treeOutput`. With `pinned`, that coin must be (and is) its
 * first input. Throws {@link InsufficientFundsError} or {@link PinnedInputLostError}.
 */
export async function buildRoundFunding(ctx: ServerContext, rounds: RoundStore, treeOutput: TxOut, pinned?: WalletCoin): Promise<RoundFunding> {
  const coins = await trustedWalletCoins(ctx, rounds);
  if (pinned && !coins.some((c) => sameCoin(c, pinned))) throw new PinnedInputLostError(`pinned round input ${pinned.txid}:${pinned.vout} is no longer available`);
  const rest = coins.filter((c) => !pinned || !sameCoin(c, pinned)).sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1));
  const ordered = pinned ? [pinned, ...rest] : rest;
  const rate = await fastFeeRate(ctx);
  const change: TxOut = { value: 0n, script: ctx.keys.walletScript };
  const picked: WalletCoin[] = [];
  let total = 0n;
  for (const c of ordered) {
    picked.push(c);
    total += c.amount;
    const draft = txOf(picked, [treeOutput, change]);
    const fee = BigInt(Math.ceil(vsize(draft) * rate));
    if (total < treeOutput.value + fee) continue;
    const left = total - treeOutput.value - fee;
    if (left >= CHANGE_DUST) return { tx: txOf(picked, [treeOutput, { ...change, value: left }]), coins: picked };
    // no change output: its fee share goes to the miner
    const bare = txOf(picked, [treeOutput]);
    if (total >= treeOutput.value + BigInt(Math.ceil(vsize(bare) * rate))) return { tx: bare, coins: picked };
  }
  const needed = treeOutput.value + BigInt(Math.ceil(vsize(txOf(ordered.length ? ordered : [], [treeOutput, change])) * rate));
  throw new InsufficientFundsError(needed, coins.reduce((s, c) => s + c.amount, 0n));
}

function txOf(coins: readonly WalletCoin[], outputs: readonly TxOut[]): Transaction {
  const inputs: TxIn[] = coins.map((c) => ({ prevout: outpointOf(c), scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }));
  return { version: 2, locktime: 0, inputs, outputs: [...outputs] };
}

/** Signs every input by key path with the wallet key (SIGHASH_DEFAULT). */
export function signRoundFunding(ctx: ServerContext, funding: RoundFunding): Transaction {
  const prevouts: TxOut[] = funding.coins.map((c) => ({ value: c.amount, script: ctx.keys.walletScript }));
  const sk = tweakSecretKey(ctx.keys.walletSecret, null);
  const inputs = funding.tx.inputs.map((input, i) => ({ ...input, witness: [signSchnorr(taprootSighash(funding.tx, i, prevouts), sk)] }));
  return { ...funding.tx, inputs };
}
