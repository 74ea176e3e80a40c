/**
 * The offboard tx, paid by the server's on-chain wallet: vout 0 = the destination with the net
 * amount, vout 1 = the session's connector (330 sat per input), then change back to the wallet.
 * Its fee rate is the offboard request's (the rate the wallet's fee was computed with). Coins are
 * picked largest first from the trusted coins the caller offers.
 */
import { encodeTx, fromHex, reverseBytes, type Transaction, type TxIn, type TxOut } from "@tender/ark-protocol";
import { InsufficientFundsError, type WalletCoin } from "../rounds/round-funding.js";

const CHANGE_DUST = 330n;
const DUMMY_SIG = new Uint8Array(64);

function weightOf(tx: Transaction): bigint {
  const withSigs = { ...tx, inputs: tx.inputs.map((i) => ({ ...i, witness: [DUMMY_SIG] })) };
  return BigInt(encodeTx(withSigs, false).length * 3 + encodeTx(withSigs, true).length);
}

function txOf(coins: readonly WalletCoin[], outputs: readonly TxOut[]): Transaction {
  const inputs: TxIn[] = coins.map((c) => ({ prevout: { txid: reverseBytes(fromHex(c.txid)), vout: c.vout }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }));
  return { version: 2, locktime: 0, inputs, outputs: [...outputs] };
}

const feeAt = (tx: Transaction, satPerKwu: bigint) => (weightOf(tx) * satPerKwu + 999n) / 1000n;

/** An unsigned offboard tx with the wallet coins it spends (in input order). */
export interface OffboardFunding {
  readonly tx: Transaction;
  readonly coins: readonly WalletCoin[];
}

/** Builds the offboard tx; throws {@link InsufficientFundsError} when the coins do not cover it. */
export function buildOffboardFunding(coins: readonly WalletCoin[], destination: TxOut, connector: TxOut, changeScript: Uint8Array, satPerKwu: bigint): OffboardFunding {
  const ordered = [...coins].sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1));
  const paid = destination.value + connector.value;
  const picked: WalletCoin[] = [];
  let total = 0n;
  for (const c of ordered) {
    picked.push(c);
    total += c.amount;
    const withChange = txOf(picked, [destination, connector, { value: 0n, script: changeScript }]);
    const fee = feeAt(withChange, satPerKwu);
    if (total < paid + fee) continue;
    const left = total - paid - fee;
    if (left >= CHANGE_DUST) return { tx: txOf(picked, [destination, connector, { value: left, script: changeScript }]), coins: picked };
    const bare = txOf(picked, [destination, connector]);
    if (total >= paid + feeAt(bare, satPerKwu)) return { tx: bare, coins: picked };
  }
  throw new InsufficientFundsError(paid + feeAt(txOf(ordered, [destination, connector]), satPerKwu), total);
}
