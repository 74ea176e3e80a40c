/**
 * The node's internal faucet wallet: one deterministic P2WPKH key derived from the seed,
 * funded by premined coinbases. It spends confirmed mature coins first, then its own
 * unconfirmed change, and signs with @scure/btc-signer.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { Transaction, p2wpkh } from "@scure/btc-signer";
import type { Mempool } from "../policy/mempool.js";
import { REGTEST_NETWORK } from "./address.js";
import type { ChainState, Coin } from "./chain-state.js";
import { COINBASE_MATURITY } from "./coinbase.js";
import { ControlError } from "./node-errors.js";

/** Feerate the faucet pays, sat/vB. */
export const FAUCET_FEERATE_SAT_PER_VB = 2;
const CHANGE_DUST = 330n;

/** A spendable faucet coin. */
interface FaucetCoin {
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  readonly confirmed: boolean;
}

/** Deterministic single-key wallet behind {@link DevnetNode.faucet}. */
export class FaucetWallet {
  readonly privateKey: Uint8Array;
  readonly script: Uint8Array;
  readonly address: string;

  constructor(seed: Uint8Array) {
    this.privateKey = sha256(new Uint8Array([...new TextEncoder().encode("tender-devnet-faucet/"), ...seed]));
    const payment = p2wpkh(secp256k1.getPublicKey(this.privateKey, true), REGTEST_NETWORK);
    this.script = payment.script;
    this.address = payment.address!;
  }

  /** Coins the faucet may spend now, confirmed (oldest first) then its unconfirmed change. */
  spendable(chain: ChainState, mempool: Mempool): FaucetCoin[] {
    const nextHeight = chain.height + 1;
    const confirmed = chain
      .coinsForScript(this.script)
      .filter((c: Coin) => !c.coinbase || nextHeight - c.height >= COINBASE_MATURITY)
      .filter((c) => !mempool.spender(c.txid, c.vout))
      .sort((a, b) => a.height - b.height || a.txid.localeCompare(b.txid) || a.vout - b.vout)
      .map((c) => ({ txid: c.txid, vout: c.vout, value: c.value, confirmed: true }));
    const unconfirmed: FaucetCoin[] = [];
    for (const e of mempool.all()) {
      e.tx.outputs.forEach((o, vout) => {
        if (equal(o.scriptPubKey, this.script) && !mempool.spender(e.txid, vout)) {
          unconfirmed.push({ txid: e.txid, vout, value: o.value, confirmed: false });
        }
      });
    }
    return [...confirmed, ...unconfirmed];
  }

  /** Builds and signs a payment of `amount` to `script`; throws {@link ControlError} when funds are short. */
  pay(coins: readonly FaucetCoin[], script: Uint8Array, amount: bigint): Uint8Array {
    if (amount <= 0n) throw new ControlError("faucet amount must be positive");
    const picked: FaucetCoin[] = [];
    let total = 0n;
    let fee = 0n;
    for (const c of coins) {
      picked.push(c);
      total += c.value;
      fee = BigInt(Math.ceil((11 + 68 * picked.length + 43 * 2) * FAUCET_FEERATE_SAT_PER_VB));
      if (total >= amount + fee) break;
    }
    if (total < amount + fee) throw new ControlError(`faucet has ${total} sat spendable, needs ${amount + fee}`);
    const tx = new Transaction({ version: 2, allowUnknownOutputs: true });
    for (const c of picked) {
      tx.addInput({ txid: c.txid, index: c.vout, witnessUtxo: { script: this.script, amount: c.value }, sequence: 0xfffffffd });
    }
    tx.addOutput({ script, amount });
    const change = total - amount - fee;
    if (change >= CHANGE_DUST) tx.addOutput({ script: this.script, amount: change });
    tx.sign(this.privateKey);
    tx.finalize();
    return tx.extract();
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
