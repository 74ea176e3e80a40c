/**
 * The portable exit kit: a JSON document holding everything needed to take VTXOs out of Ark
 * without the wallet daemon or the Ark server — each VTXO's signed exit transactions in broadcast
 * order with their P2A anchors, and the clause that claims the VTXO output (leaf script, control
 * block, delays, and the derivation path of the key that signs it). It holds no secret: the claim
 * key is derived from the seed at run time, the destination is chosen at run time.
 *
 * | Field | Meaning |
 * |---|---|
 * | `format` / `version` | `"tender-exit-kit"` / 1 |
 * | `network` | bitcoin network of every transaction |
 * | `vtxos[].exit_transactions` | anchor-first; each spends an output of the previous one (the first: the chain anchor) |
 * | `vtxos[].claim` | the VTXO output (`outpoint` = the VTXO id) and how to spend it |
 *
 * @example
 * ```ts
 * const kit = buildExitKit("regtest", [{ vtxo, keyIndex: 3 }]);
 * const parsed = parseExitKit(JSON.parse(JSON.stringify(kit)), "regtest"); // throws ExitKitError when tampered
 * ```
 */
import { ProtocolError } from "./errors.js";
import { bytesEqual, formatOutPoint, toHex } from "./encoding.js";
import { toXOnly } from "./keys.js";
import { clauseLocktime, clauseNeedsPreimage, clauseScript, clauseSequence, type Clause } from "./clause.js";
import { exitClauses, isUserPolicy, policyTaproot, policyUserPubkey, type ServerVtxoPolicy } from "./policy.js";
import { encodeTx } from "./tx.js";
import { vtxoPolicyContext, type Vtxo } from "./vtxo.js";
import { exitPlan } from "./exit.js";
import type { Network } from "./network.js";

/** The kit's `format` marker. */
export const EXIT_KIT_FORMAT = "tender-exit-kit";
/** The kit format version this code writes and reads. */
export const EXIT_KIT_VERSION = 1;

/** A kit that is malformed, tampered with, or for another network. */
export class ExitKitError extends ProtocolError {}

/** One signed exit transaction of a kit. */
export interface ExitKitTransaction {
  /** Txid, display hex. */
  txid: string;
  /** The fully signed transaction, hex (version 3, zero fee). */
  tx: string;
  /** Txid of the transaction whose output this one spends (the chain anchor for the first). */
  parent_txid: string;
  /** Its P2A output, spent by the fee-paying child. */
  anchor: { vout: number; amount_sat: number };
}

/** How the VTXO output is claimed once the exit chain is confirmed. */
export interface ExitKitClaim {
  /** The VTXO output (`txid:vout`), an output of the last exit transaction. */
  outpoint: string;
  amount_sat: number;
  /** Its P2TR output script, hex. */
  script_pubkey: string;
  /** The clause kind (`delayed-sign`: the user's key after `csv_delta` blocks). */
  clause: "delayed-sign" | "timelock-sign" | "delayed-timelock-sign";
  /** Tapscript leaf of the clause, hex. */
  leaf_script: string;
  /** BIP-341 control block proving the leaf in the output, hex. */
  control_block: string;
  /** Relative timelock in blocks (the claim input's nSequence); 0 when none. */
  csv_delta: number;
  /** Absolute timelock height (the claim's minimum nLockTime); 0 when none. */
  cltv_height: number;
  /** The signing key, compressed public key hex. */
  pubkey: string;
  /** BIP-32 path of that key from the wallet's BIP-39 seed (empty passphrase). */
  key_path: string;
}

/** One VTXO of a kit. */
export interface ExitKitVtxo {
  vtxo_id: string;
  amount_sat: number;
  exit_transactions: ExitKitTransaction[];
  claim: ExitKitClaim;
}

/** The kit document. */
export interface ExitKit {
  format: typeof EXIT_KIT_FORMAT;
  version: typeof EXIT_KIT_VERSION;
  network: Network;
  created_at: string;
  vtxos: ExitKitVtxo[];
}

/** A VTXO to put in a kit, with the index of its user key under `m/350'/0'`. */
export interface ExitKitInput {
  vtxo: Vtxo<ServerVtxoPolicy>;
  keyIndex: number;
}

/** The path of VTXO key `index`. */
export const vtxoKeyPath = (index: number): string => `m/350'/0'/${index}`;

const num = (v: bigint): number => {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ExitKitError("amount too large");
  return Number(v);
};

/** The first clause the VTXO's owner signs alone (no preimage), as the wallet's claim would use. */
function ownerClause(vtxo: Vtxo<ServerVtxoPolicy>, id: string): Clause {
  const policy = vtxo.policy;
  const user = policyUserPubkey(policy);
  if (!isUserPolicy(policy) || !user) throw new ExitKitError(`VTXO ${id} has no user exit clause`);
  const key = toXOnly(user);
  const found = exitClauses(policy, vtxoPolicyContext(vtxo)).find((c) => c.signer === "user" && bytesEqual(c.clause.key, key) && !clauseNeedsPreimage(c.clause));
  if (!found) throw new ExitKitError(`VTXO ${id} can only be claimed with a hash preimage, which a kit cannot carry`);
  return found.clause;
}

/** The kit entry of one VTXO. Throws {@link ExitPlanError} for an unsigned or malformed exit chain. */
export function exitKitVtxo(input: ExitKitInput): ExitKitVtxo {
  const { vtxo, keyIndex } = input;
  if (!Number.isInteger(keyIndex) || keyIndex < 0 || keyIndex >= 0x80000000) throw new ExitKitError("invalid key index");
  const id = formatOutPoint(vtxo.point);
  const clause = ownerClause(vtxo, id);
  const tr = policyTaproot(vtxo.policy, vtxoPolicyContext(vtxo));
  const script = clauseScript(clause);
  const leaf = tr.leaves.find((l) => bytesEqual(l.script, script));
  if (!leaf) throw new ExitKitError(`VTXO ${id}: clause leaf missing from its taproot output`);
  const plan = exitPlan(vtxo);
  return {
    vtxo_id: id,
    amount_sat: num(vtxo.amount),
    exit_transactions: plan.map((s) => ({
      txid: s.txid,
      tx: toHex(encodeTx(s.tx)),
      parent_txid: s.parentTxid,
      anchor: { vout: s.anchorVout, amount_sat: num(s.anchorValue) },
    })),
    claim: {
      outpoint: id,
      amount_sat: num(vtxo.amount),
      script_pubkey: toHex(tr.scriptPubKey),
      clause: clause.kind as ExitKitClaim["clause"],
      leaf_script: toHex(leaf.script),
      control_block: toHex(leaf.controlBlock),
      csv_delta: clauseSequence(clause),
      cltv_height: clauseLocktime(clause),
      pubkey: toHex(policyUserPubkey(vtxo.policy)!),
      key_path: vtxoKeyPath(keyIndex),
    },
  };
}

/** A kit of `inputs` on `network`. */
export function buildExitKit(network: Network, inputs: readonly ExitKitInput[], now: Date = new Date()): ExitKit {
  if (inputs.length === 0) throw new ExitKitError("a kit needs at least one VTXO");
  return { format: EXIT_KIT_FORMAT, version: EXIT_KIT_VERSION, network, created_at: now.toISOString(), vtxos: inputs.map(exitKitVtxo) };
}
