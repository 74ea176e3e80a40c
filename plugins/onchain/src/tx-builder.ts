import { Psbt, Transaction, type Network } from "bitcoinjs-lib";
import type { Bip86Keychain } from "./keychain.js";
import type { WalletUtxo } from "./tx-graph.js";
import { P2A_SCRIPT_HEX } from "./tx-size.js";

/** Input sequence: signals opt-in RBF (BIP-125), no relative locktime. */
export const RBF_SEQUENCE = 0xfffffffd;

/** An input the wallet does not sign: a pay-to-anchor output (spent with an empty witness). */
export interface AnchorInput {
  readonly txid: string;
  readonly vout: number;
  readonly valueSat: bigint;
}

/** What to build: wallet inputs, anchors, outputs, and the transaction version. */
export interface UnsignedSpend {
  readonly inputs: readonly WalletUtxo[];
  readonly anchors?: readonly AnchorInput[];
  readonly outputs: readonly { readonly script: Uint8Array; readonly valueSat: bigint }[];
  /** 2 by default; 3 for TRUC (v3) packages such as exit CPFP children. */
  readonly version?: number;
}

/** A signed transaction and what it pays. */
export interface SignedSpend {
  readonly txid: string;
  readonly hex: string;
  readonly feeSat: bigint;
  readonly vsize: number;
}

const P2A_SCRIPT = Buffer.from(P2A_SCRIPT_HEX, "hex");

/**
 * Builds and signs a transaction spending wallet outputs by the BIP-86 key path (and P2A anchors
 * with an empty witness). Inputs: anchors first, then the wallet inputs as given; outputs as given.
 */
export function signSpend(spend: UnsignedSpend, keychain: Bip86Keychain, network: Network): SignedSpend {
  const psbt = new Psbt({ network });
  psbt.setVersion(spend.version ?? 2);
  const anchors = spend.anchors ?? [];
  for (const a of anchors) {
    psbt.addInput({ hash: a.txid, index: a.vout, sequence: RBF_SEQUENCE, witnessUtxo: { script: P2A_SCRIPT, value: a.valueSat } });
  }
  for (const u of spend.inputs) {
    psbt.addInput({
      hash: u.txid, index: u.vout, sequence: RBF_SEQUENCE,
      witnessUtxo: { script: u.script, value: u.valueSat },
      tapInternalKey: keychain.key(u.keyIndex).internalKey,
    });
  }
  for (const o of spend.outputs) psbt.addOutput({ script: o.script, value: o.valueSat });
  spend.inputs.forEach((u, i) => psbt.signInput(anchors.length + i, keychain.signer(u.keyIndex)));
  anchors.forEach((_, i) => psbt.finalizeInput(i, () => ({ finalScriptSig: new Uint8Array(0), finalScriptWitness: new Uint8Array([0]) })));
  for (let i = anchors.length; i < anchors.length + spend.inputs.length; i++) psbt.finalizeInput(i);
  const tx: Transaction = psbt.extractTransaction(true);
  const inSum = spend.inputs.reduce((s, u) => s + u.valueSat, 0n) + anchors.reduce((s, a) => s + a.valueSat, 0n);
  const outSum = spend.outputs.reduce((s, o) => s + o.valueSat, 0n);
  return { txid: tx.getId(), hex: tx.toHex(), feeSat: inSum - outSum, vsize: tx.virtualSize() };
}
