/**
 * Loading an exit kit: every field is checked against the others before anything is broadcast,
 * so a kit that was edited, truncated or made for another network is refused with the reason.
 *
 * | Check | Rule |
 * |---|---|
 * | shape | `format`, `version`, known `network` (and the expected one), no unknown fields anywhere |
 * | exit txs | the hex decodes canonically to a signed v3 tx with one input whose txid is `txid`, spending `parent_txid`; `anchor` is its P2A output |
 * | chain | each tx spends a non-anchor output of the previous one, with zero fee (outputs sum to the spent value); a key-path signature verifies against the spent output |
 * | claim | `outpoint` is the VTXO id and an output of the last tx with `amount_sat` and `script_pubkey`; `leaf_script` is the clause of `pubkey` and the delays; the control block commits that leaf to `script_pubkey` |
 * | key | `key_path` is `m/350'/0'/i` |
 */
import { ExitKitError, EXIT_KIT_FORMAT, EXIT_KIT_VERSION, type ExitKitClaim } from "./exit-kit.js";
import { bytesEqual, displayHex, fromHex, parseOutPoint, toHex, type OutPoint, type TxOut } from "./encoding.js";
import { taprootSighash } from "./sighash.js";
import { verifySchnorr } from "./schnorr.js";
import { clauseScript, type Clause } from "./clause.js";
import { parsePubkey, toXOnly } from "./keys.js";
import { NETWORKS, type Network } from "./network.js";
import { P2A_SCRIPT, p2trScript } from "./script.js";
import { TAPSCRIPT_LEAF_VERSION, tapBranchHash, tapLeafHash, tapTweakHash, tweakXOnly } from "./taproot.js";
import { decodeTx, encodeTx, txidHex, type Transaction } from "./tx.js";

/** A checked exit transaction. */
export interface KitStep {
  txid: string;
  hex: string;
  tx: Transaction;
  parentTxid: string;
  anchorVout: number;
  anchorValue: bigint;
}

/** A checked claim. */
export interface KitClaim {
  outpoint: OutPoint;
  amount: bigint;
  scriptPubKey: Uint8Array;
  leafScript: Uint8Array;
  leafHash: Uint8Array;
  controlBlock: Uint8Array;
  csvDelta: number;
  cltvHeight: number;
  /** Compressed public key. */
  pubkey: Uint8Array;
  keyPath: string;
  keyIndex: number;
}

/** A checked VTXO of a kit. */
export interface KitVtxo {
  id: string;
  amount: bigint;
  steps: KitStep[];
  claim: KitClaim;
}

/** A checked kit. */
export interface ParsedExitKit {
  network: Network;
  vtxos: KitVtxo[];
}

type Obj = Record<string, unknown>;

function fail(where: string, msg: string): never {
  throw new ExitKitError(`${where}: ${msg}`);
}

function object(v: unknown, where: string, keys: readonly string[]): Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail(where, "not an object");
  const o = v as Obj;
  for (const k of Object.keys(o)) if (!keys.includes(k)) fail(where, `unknown field ${k}`);
  for (const k of keys) if (!(k in o)) fail(where, `missing field ${k}`);
  return o;
}

function str(v: unknown, where: string): string {
  if (typeof v !== "string") fail(where, "not a string");
  return v;
}

function int(v: unknown, where: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0 || v > max) fail(where, "not a non-negative integer in range");
  return v;
}

function hex(v: unknown, where: string): Uint8Array {
  try {
    return fromHex(str(v, where));
  } catch {
    fail(where, "not hex");
  }
}

function txidField(v: unknown, where: string): string {
  const s = str(v, where);
  if (!/^[0-9a-f]{64}$/.test(s)) fail(where, "not a lowercase 64-hex txid");
  return s;
}

function step(v: unknown, where: string): KitStep {
  const o = object(v, where, ["txid", "tx", "parent_txid", "anchor"]);
  const txid = txidField(o.txid, `${where}.txid`);
  const parentTxid = txidField(o.parent_txid, `${where}.parent_txid`);
  const bytes = hex(o.tx, `${where}.tx`);
  let tx: Transaction;
  try {
    tx = decodeTx(bytes);
  } catch (e) {
    fail(`${where}.tx`, `does not decode (${e instanceof Error ? e.message : String(e)})`);
  }
  if (!bytesEqual(encodeTx(tx), bytes)) fail(`${where}.tx`, "not canonically encoded");
  if (txidHex(tx) !== txid) fail(`${where}.tx`, `its txid is ${txidHex(tx)}, the kit says ${txid}`);
  if (tx.version !== 3) fail(`${where}.tx`, "not version 3");
  if (tx.inputs.length !== 1) fail(`${where}.tx`, "must have exactly one input");
  if (tx.inputs[0]!.witness.length === 0) fail(`${where}.tx`, "not signed");
  if (displayHex(tx.inputs[0]!.prevout.txid) !== parentTxid) fail(`${where}.parent_txid`, "is not the transaction the input spends");
  const a = object(o.anchor, `${where}.anchor`, ["vout", "amount_sat"]);
  const anchorVout = int(a.vout, `${where}.anchor.vout`, 0xffffffff);
  const out = tx.outputs[anchorVout];
  if (!out || !bytesEqual(out.script, P2A_SCRIPT)) fail(`${where}.anchor`, "is not a P2A output of the transaction");
  if (out.value !== BigInt(int(a.amount_sat, `${where}.anchor.amount_sat`))) fail(`${where}.anchor.amount_sat`, "does not match the output");
  return { txid, hex: toHex(bytes), tx, parentTxid, anchorVout, anchorValue: out.value };
}

/** The clause the kit's fields describe. */
function clauseOf(kind: ExitKitClaim["clause"], key: Uint8Array, csv: number, cltv: number, where: string): Clause {
  switch (kind) {
    case "delayed-sign":
      if (cltv !== 0) fail(where, "a delayed-sign clause has no cltv_height");
      return { kind, key, delta: csv };
    case "timelock-sign":
      if (csv !== 0) fail(where, "a timelock-sign clause has no csv_delta");
      return { kind, key, height: cltv };
    case "delayed-timelock-sign":
      return { kind, key, height: cltv, delta: csv };
    default:
      fail(`${where}.clause`, `unsupported clause ${String(kind)}`);
  }
}

/** The P2TR output key the control block proves `leafScript` under (or a refusal). */
function controlBlockScript(cb: Uint8Array, leafScript: Uint8Array, where: string): { scriptPubKey: Uint8Array; leafHash: Uint8Array } {
  if (cb.length < 33 || (cb.length - 33) % 32 !== 0 || cb.length > 33 + 128 * 32) fail(where, "malformed control block");
  if ((cb[0]! & 0xfe) !== TAPSCRIPT_LEAF_VERSION) fail(where, "unsupported leaf version");
  const internal = cb.slice(1, 33);
  const leafHash = tapLeafHash(leafScript, TAPSCRIPT_LEAF_VERSION);
  let node = leafHash;
  for (let i = 33; i < cb.length; i += 32) node = tapBranchHash(node, cb.slice(i, i + 32));
  let tweaked;
  try {
    tweaked = tweakXOnly(internal, tapTweakHash(internal, node));
  } catch {
    fail(where, "invalid internal key");
  }
  if (tweaked.parity !== (cb[0]! & 1)) fail(where, "parity bit does not match the output key");
  return { scriptPubKey: p2trScript(tweaked.outputKey), leafHash };
}

function claim(v: unknown, where: string, last: KitStep, vtxoId: string, amount: bigint): KitClaim {
  const o = object(v, where, ["outpoint", "amount_sat", "script_pubkey", "clause", "leaf_script", "control_block", "csv_delta", "cltv_height", "pubkey", "key_path"]);
  if (str(o.outpoint, `${where}.outpoint`) !== vtxoId) fail(`${where}.outpoint`, "is not the VTXO id");
  const outpoint = parseOutPoint(vtxoId);
  if (displayHex(outpoint.txid) !== last.txid) fail(`${where}.outpoint`, "is not an output of the last exit transaction");
  const out = last.tx.outputs[outpoint.vout];
  if (!out) fail(`${where}.outpoint`, "no such output in the last exit transaction");
  const value = BigInt(int(o.amount_sat, `${where}.amount_sat`));
  if (value !== amount || out.value !== amount) fail(`${where}.amount_sat`, "does not match the VTXO output");
  const scriptPubKey = hex(o.script_pubkey, `${where}.script_pubkey`);
  if (!bytesEqual(out.script, scriptPubKey)) fail(`${where}.script_pubkey`, "is not the script of the VTXO output");
  let pubkey: Uint8Array;
  try {
    pubkey = parsePubkey(hex(o.pubkey, `${where}.pubkey`));
  } catch {
    fail(`${where}.pubkey`, "not a compressed public key");
  }
  const csvDelta = int(o.csv_delta, `${where}.csv_delta`, 0xffff);
  const cltvHeight = int(o.cltv_height, `${where}.cltv_height`, 499_999_999);
  const clause = clauseOf(str(o.clause, `${where}.clause`) as ExitKitClaim["clause"], toXOnly(pubkey), csvDelta, cltvHeight, where);
  const leafScript = hex(o.leaf_script, `${where}.leaf_script`);
  if (!bytesEqual(clauseScript(clause), leafScript)) fail(`${where}.leaf_script`, "is not the clause of this key and these delays");
  const controlBlock = hex(o.control_block, `${where}.control_block`);
  const proved = controlBlockScript(controlBlock, leafScript, `${where}.control_block`);
  if (!bytesEqual(proved.scriptPubKey, scriptPubKey)) fail(`${where}.control_block`, "does not commit the leaf to the VTXO output");
  const keyPath = str(o.key_path, `${where}.key_path`);
  const m = /^m\/350'\/0'\/(\d{1,10})$/.exec(keyPath);
  const keyIndex = m ? Number(m[1]) : -1;
  if (!m || keyIndex >= 0x80000000) fail(`${where}.key_path`, "is not a VTXO key path m/350'/0'/i");
  return { outpoint, amount, scriptPubKey, leafScript, leafHash: proved.leafHash, controlBlock, csvDelta, cltvHeight, pubkey, keyPath, keyIndex };
}

/**
 * A key-path spend (one 64-byte signature) of a P2TR output must verify against its output key;
 * script-path witnesses, and the first tx (its prevout is on chain, not in the kit), are left to
 * the network's own checks at broadcast.
 */
function checkKeySpend(tx: Transaction, spent: TxOut, where: string): void {
  const witness = tx.inputs[0]!.witness;
  if (witness.length !== 1 || witness[0]!.length !== 64 || spent.script.length !== 34 || spent.script[0] !== 0x51 || spent.script[1] !== 0x20) return;
  if (!verifySchnorr(witness[0]!, taprootSighash(tx, 0, [spent]), spent.script.slice(2))) fail(where, "its signature does not verify");
}

function vtxo(v: unknown, where: string): KitVtxo {
  const o = object(v, where, ["vtxo_id", "amount_sat", "exit_transactions", "claim"]);
  const id = str(o.vtxo_id, `${where}.vtxo_id`);
  try {
    parseOutPoint(id);
  } catch {
    fail(`${where}.vtxo_id`, "not a txid:vout");
  }
  const amount = BigInt(int(o.amount_sat, `${where}.amount_sat`));
  if (!Array.isArray(o.exit_transactions) || o.exit_transactions.length === 0) fail(`${where}.exit_transactions`, "not a non-empty array");
  const steps = o.exit_transactions.map((t, i) => step(t, `${where}.exit_transactions[${i}]`));
  steps.forEach((s, i) => {
    if (i === 0) return;
    const prev = steps[i - 1]!;
    const w = `${where}.exit_transactions[${i}]`;
    if (s.parentTxid !== prev.txid) fail(w, "does not spend the previous exit transaction");
    const vout = s.tx.inputs[0]!.prevout.vout;
    const spent = prev.tx.outputs[vout];
    if (!spent || vout === prev.anchorVout) fail(w, "spends no continuing output of the previous exit transaction");
    if (s.tx.outputs.reduce((t, x) => t + x.value, 0n) !== spent.value) fail(w, "does not have a zero fee");
    checkKeySpend(s.tx, spent, w);
  });
  return { id, amount, steps, claim: claim(o.claim, `${where}.claim`, steps[steps.length - 1]!, id, amount) };
}

/**
 * Checks a kit (parsed JSON) and answers its decoded form; throws {@link ExitKitError} with the
 * first problem found. `network`, when given, is the network the kit must be for.
 */
export function parseExitKit(json: unknown, network?: Network): ParsedExitKit {
  const o = object(json, "kit", ["format", "version", "network", "created_at", "vtxos"]);
  if (o.format !== EXIT_KIT_FORMAT) fail("kit.format", `not ${EXIT_KIT_FORMAT}`);
  if (o.version !== EXIT_KIT_VERSION) fail("kit.version", `unsupported version ${String(o.version)} (this program reads ${EXIT_KIT_VERSION})`);
  const net = str(o.network, "kit.network") as Network;
  if (!NETWORKS.includes(net)) fail("kit.network", `unknown network ${net}`);
  if (network !== undefined && net !== network) fail("kit.network", `the kit is for ${net}, the chain is ${network}`);
  str(o.created_at, "kit.created_at");
  if (!Array.isArray(o.vtxos) || o.vtxos.length === 0) fail("kit.vtxos", "not a non-empty array");
  const vtxos = o.vtxos.map((v, i) => vtxo(v, `kit.vtxos[${i}]`));
  const ids = new Set(vtxos.map((v) => v.id));
  if (ids.size !== vtxos.length) fail("kit.vtxos", "a VTXO appears twice");
  return { network: net, vtxos };
}

/** {@link parseExitKit} over the kit's JSON text. */
export function parseExitKitText(text: string, network?: Network): ParsedExitKit {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ExitKitError(`kit: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  return parseExitKit(json, network);
}

