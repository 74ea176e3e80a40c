/**
 * Test helpers: deterministic keys and transactions built and signed with @scure/btc-signer
 * (P2WPKH, P2TR key path, P2A anchors with empty witnesses), independent of the node's code
 * (only the consensus codec is used, to size transactions btc-signer will not size).
 */
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { Transaction, p2tr, p2wpkh } from "@scure/btc-signer";
import { decodeTx, txVsize } from "../../src/consensus/index.js";
import type { DevnetNode } from "../../src/node/devnet-node.js";

/** Regtest parameters for btc-signer. */
export const REGTEST = { bech32: "bcrt", pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };

/** The pay-to-anchor script `OP_1 <0x4e73>`. */
export const P2A_SCRIPT = Uint8Array.of(0x51, 0x02, 0x4e, 0x73);

/** A deterministic test key with its P2WPKH and P2TR outputs. */
export class TestKey {
  readonly priv: Uint8Array;
  readonly wpkh: { script: Uint8Array; address: string };
  readonly tr: { script: Uint8Array; address: string };
  readonly xonly: Uint8Array;

  constructor(label: string) {
    this.priv = sha256(new TextEncoder().encode(`tender-devnet-test/${label}`));
    const w = p2wpkh(secp256k1.getPublicKey(this.priv, true), REGTEST);
    this.wpkh = { script: w.script, address: w.address! };
    this.xonly = schnorr.getPublicKey(this.priv);
    const t = p2tr(this.xonly, undefined, REGTEST);
    this.tr = { script: t.script, address: t.address! };
  }
}

/** A coin to spend: P2WPKH or P2TR of `key`, or a P2A anchor when `key` is absent. */
export interface Coin {
  readonly txid: string;
  readonly vout: number;
  readonly amount: bigint;
  readonly script: Uint8Array;
  readonly key?: TestKey;
  /** Spend by taproot key path (script must be key.tr.script). */
  readonly taproot?: boolean;
  /** A ready witness for an input without a key (P2WSH scripts, a P2A spend that should not be empty). */
  readonly witness?: readonly Uint8Array[];
}

/** What to build. */
export interface TxSpec {
  readonly version?: number;
  readonly inputs: readonly (Coin & { sequence?: number })[];
  readonly outputs: readonly { script: Uint8Array; amount: bigint }[];
  readonly locktime?: number;
  /** Flip a byte inside input 0's signature after signing (an invalid signature). */
  readonly corruptSignature?: boolean;
}

/** A built transaction. */
export interface BuiltTx {
  readonly hex: string;
  readonly txid: string;
  readonly vsize: number;
  /** Output `vout` as a spendable coin for `key`. */
  coin(vout: number, key?: TestKey, taproot?: boolean): Coin;
}

/** Builds and signs a transaction; P2A inputs get an empty witness. */
export function buildTx(spec: TxSpec): BuiltTx {
  const tx = new Transaction({
    version: spec.version ?? 2,
    lockTime: spec.locktime ?? 0,
    allowUnknownOutputs: true,
    allowUnknownInputs: true,
    allowLegacyWitnessUtxo: true,
    allowUnknownVersion: true,
  });
  for (const c of spec.inputs) {
    tx.addInput({
      txid: c.txid,
      index: c.vout,
      sequence: c.sequence ?? 0xfffffffd,
      witnessUtxo: { script: c.script, amount: c.amount },
      ...(c.taproot && c.key ? { tapInternalKey: c.key.xonly } : {}),
    });
  }
  for (const o of spec.outputs) tx.addOutput({ script: o.script, amount: o.amount });
  spec.inputs.forEach((c, i) => {
    if (c.key) {
      tx.signIdx(c.key.priv, i);
      tx.finalizeIdx(i);
    } else if (c.witness) {
      tx.updateInput(i, { finalScriptWitness: c.witness.map((w) => Uint8Array.from(w)) }, true);
    }
  });
  if (spec.corruptSignature) {
    const witness = tx.getInput(0).finalScriptWitness!.map((w) => Uint8Array.from(w));
    witness[0]![10]! ^= 0x01;
    tx.updateInput(0, { finalScriptWitness: witness }, true);
  }
  const hex = tx.hex;
  const txid = tx.id;
  // unfinalized P2A inputs serialize with an empty witness; btc-signer only sizes finalized txs
  const vsize = txVsize(decodeTx(tx.toBytes(true, true)));
  return {
    hex,
    txid,
    vsize,
    coin(vout, key, taproot) {
      const out = spec.outputs[vout]!;
      return { txid, vout, amount: out.amount, script: out.script, ...(key ? { key } : {}), ...(taproot ? { taproot } : {}) };
    },
  };
}

/** Pays `amount` from the node's faucet to `key` (P2WPKH, or P2TR when `taproot`), optionally mining it. */
export function fund(node: DevnetNode, key: TestKey, amount: bigint, opts: { mine?: boolean; taproot?: boolean } = {}): Coin {
  const script = opts.taproot ? key.tr.script : key.wpkh.script;
  const txid = node.faucet(script, amount);
  if (opts.mine ?? true) node.mine(1);
  const vout = node.getTransaction(txid)!.vout.findIndex((o) => o.amountSat === amount && Buffer.from(o.scriptPubKey).equals(script));
  return { txid, vout, amount, script, key, ...(opts.taproot ? { taproot: true } : {}) };
}

/** Expects `fn` to throw a PolicyError-like error with this reason; returns it. */
export function refusal(fn: () => unknown): { reason: string; debug?: string; message: string } {
  try {
    fn();
  } catch (err) {
    const e = err as { reason?: string; debug?: string; message: string };
    if (typeof e.reason !== "string") throw err;
    return e as { reason: string; debug?: string; message: string };
  }
  throw new Error("expected a refusal, but the call succeeded");
}

/** Rewrites one output amount in a raw transaction (leaves signatures stale: for checks that come before scripts). */
export function patchOutputAmount(hex: string, from: bigint, to: bigint): string {
  const le = (v: bigint): string => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(v);
    return b.toString("hex");
  };
  if (!hex.includes(le(from))) throw new Error("amount not found in transaction");
  return hex.replace(le(from), le(to));
}
