import { createHash } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { p2wpkh, Transaction } from "@scure/btc-signer";

/** Bitcoin Core's regtest address parameters. */
export const REGTEST = { bech32: "bcrt", pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef } as const;

/** A coin a test can spend. */
export interface Coin {
  readonly txid: string;
  readonly vout: number;
  readonly valueSat: bigint;
}

/** A signed transaction. */
export interface SignedTx {
  readonly hex: string;
  readonly txid: string;
}

/** An output to create: to a wallet, an address or a raw script. */
export type Payee = { readonly address: string; readonly valueSat: bigint } | { readonly scriptHex: string; readonly valueSat: bigint };

/**
 * A single-key P2WPKH wallet for tests, derived from a label (same label → same key), that
 * signs transactions spending its coins.
 */
export class TestWallet {
  private readonly priv: Uint8Array;
  private readonly pub: Uint8Array;
  readonly address: string;
  readonly scriptHex: string;

  constructor(label: string) {
    this.priv = Uint8Array.from(createHash("sha256").update(`tender-test-wallet:${label}`).digest());
    this.pub = secp256k1.getPublicKey(this.priv, true);
    const pay = p2wpkh(this.pub, REGTEST);
    this.address = pay.address!;
    this.scriptHex = Buffer.from(pay.script).toString("hex");
  }

  /** Spends `coins` (all this wallet's) to `payees`; whatever is left is the fee. */
  spend(coins: readonly Coin[], payees: readonly Payee[], opts: { version?: number; sequence?: number; locktime?: number } = {}): SignedTx {
    const tx = new Transaction({ version: opts.version ?? 2, lockTime: opts.locktime ?? 0, allowUnknownOutputs: true });
    for (const c of coins) {
      tx.addInput({
        txid: c.txid,
        index: c.vout,
        sequence: opts.sequence ?? 0xfffffffd,
        witnessUtxo: { script: Buffer.from(this.scriptHex, "hex"), amount: c.valueSat },
      });
    }
    for (const p of payees) {
      if ("address" in p) tx.addOutputAddress(p.address, p.valueSat, REGTEST);
      else tx.addOutput({ script: Buffer.from(p.scriptHex, "hex"), amount: p.valueSat });
    }
    tx.sign(this.priv);
    tx.finalize();
    return { hex: tx.hex, txid: tx.id };
  }
}
