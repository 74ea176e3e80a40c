/** Helpers of the controls that mine chosen transactions: their fees, and a faucet-signed conflict. */
import type { Mempool } from "../policy/mempool.js";
import { PolicyError } from "../policy/policy-error.js";
import { displayHex, toHex } from "../consensus/bytes.js";
import { sha256d } from "./bytes.js";
import type { ChainState } from "./chain-state.js";
import { decodeTx, encodeTx, type Tx } from "./consensus-port.js";
import type { FaucetWallet } from "./faucet-wallet.js";
import { ControlError } from "./node-errors.js";

/**
 * Fees of transactions about to be mined together (for the coinbase amount); inputs resolve
 * against the chain and earlier transactions of the list.
 * @throws PolicyError `bad-txns-inputs-missingorspent` when an input is neither
 */
export function withListedFees(chain: ChainState, txs: readonly Tx[]): { tx: Tx; fee: bigint }[] {
  const created = new Map<string, bigint>();
  return txs.map((tx) => {
    let valueIn = 0n;
    for (const input of tx.inputs) {
      const prev = displayHex(input.prevTxid);
      const value = created.get(`${prev}:${input.prevVout}`) ?? chain.coin(prev, input.prevVout)?.value;
      if (value === undefined) throw new PolicyError("bad-txns-inputs-missingorspent", `input ${prev}:${input.prevVout} not in the chain`);
      valueIn += value;
    }
    const id = displayHex(sha256d(encodeTx(tx, false)));
    tx.outputs.forEach((o, i) => created.set(`${id}:${i}`, o.value));
    const fee = valueIn - tx.outputs.reduce((n, o) => n + o.value, 0n);
    // a negative fee is left for block validation to refuse (bad-txns-in-belowout)
    return { tx, fee: fee < 0n ? 0n : fee };
  });
}

/**
 * A faucet-signed transaction double-spending a confirmed faucet coin that mempool transaction
 * `txid` (or one of its ancestors: dropping it drops `txid` too) spends.
 * @throws ControlError when no such coin exists
 */
export function faucetConflict(mempool: Mempool, wallet: FaucetWallet, txid: string): Tx {
  const target = mempool.get(txid);
  if (!target) throw new ControlError(`transaction ${txid} is not in the mempool`);
  const faucetScript = toHex(wallet.script);
  const candidates = [target, ...mempool.topoSort(mempool.ancestors(txid)).map((t) => mempool.get(t)!)];
  const coin = candidates.flatMap((e) => e.spent).find((c) => c.height !== undefined && toHex(c.scriptPubKey) === faucetScript);
  if (!coin) throw new ControlError(`no confirmed input of ${txid} or its ancestors belongs to the faucet; pass a signed conflicting transaction`);
  return decodeTx(wallet.pay([{ txid: coin.txid, vout: coin.vout, value: coin.value, confirmed: true }], wallet.script, coin.value - 1000n));
}
