/**
 * Offboards (connector swaps): the server pays an on-chain output and adds a connector output;
 * the user's forfeit txs spend the VTXO together with a connector, so they only become valid
 * once the server's offboard tx confirms.
 *
 * | Part | Layout |
 * |---|---|
 * | offboard tx (server-built) | vout 0 = destination with the net amount; vout 1 = connector P2TR (key path only, a fresh key per session) worth 330 × inputs; further outputs = server change |
 * | connector fan-out (inputs > 1) | v3, locktime 0, spends offboard vout 1 (sequence `0xffffffff`), outputs = N × 330 to the connector script, then a zero-value P2A anchor; output `i` is input `i`'s connector |
 * | forfeit tx (one per input) | v3, locktime 0, inputs `[VTXO, connector]` (sequence `0xffffffff`), outputs `[P2TR(server key, no script) worth VTXO + 330, P2A 0]` |
 * | forfeit signatures | VTXO input: MuSig2(user, server), key path, VTXO TapTweak, SIGHASH_DEFAULT over both prevouts; connector input: the tweaked connector key |
 *
 * The forfeit layout is the one stock bark clients sign (its sequence and output values differ
 * from some written descriptions of the flow; the signatures only verify with these bytes).
 *
 * @example
 * ```ts
 * validateOffboardTx(offboardTx, request, vtxos.length);            // client, after PrepareOffboard
 * const sigs = signOffboardForfeits(offboardTx, vtxos, userSecretKeys, serverNonces);
 * const forfeits = finalizeOffboardForfeits({ offboardTx, vtxos, ... }); // server, in FinishOffboard
 * ```
 */
import { ProtocolError } from "./errors.js";
import { compareBytes, toHex, type OutPoint, type TxOut } from "./encoding.js";
import { toXOnly } from "./keys.js";
import { MusigSession, musigNonceAgg, musigNonceGen, musigTweakedKey } from "./musig.js";
import { policyTaproot } from "./policy.js";
import { classifyScript, P2A_SCRIPT } from "./script.js";
import { signSchnorr, tweakSecretKey, verifySchnorr } from "./schnorr.js";
import { taprootSighash } from "./sighash.js";
import { taprootOutput } from "./taproot.js";
import { txid, type Transaction } from "./tx.js";
import { DUST_LIMITS, isStandardOutput } from "./vtxo-validate.js";
import { vtxoPolicyContext, vtxoIdString, type BareVtxo } from "./vtxo.js";
import type { VtxoPolicy } from "./policy.js";

/** Output index of the destination output in the offboard tx. */
export const OFFBOARD_OUTPUT_VOUT = 0;
/** Output index of the connector output in the offboard tx. */
export const OFFBOARD_CONNECTOR_VOUT = 1;
/** Value of one connector (the P2TR dust limit). */
export const CONNECTOR_VALUE = 330n;

/** An offboard that cannot be built, does not match its request, or does not verify. */
export class OffboardError extends ProtocolError {}

/** A user's partial forfeit signature that does not verify. */
export class OffboardForfeitSignatureError extends OffboardError {
  constructor(readonly vtxoId: string) {
    super(`invalid partial forfeit signature for vtxo ${vtxoId}`);
  }
}

/** `OffboardRequest` as plain data. */
export interface OffboardRequest {
  /** Value of the on-chain output the user receives. */
  readonly netAmountSat: bigint;
  /** Destination scriptPubKey. */
  readonly script: Uint8Array;
  /** true: the fee comes out of the inputs' total (offboard whole VTXOs); false: the fee is on top of the net amount (send-onchain). */
  readonly deductFeesFromGrossAmount: boolean;
  readonly feeRateSatPerKwu: bigint;
}

/** The VTXO fields an offboard forfeit needs. */
export type OffboardableVtxo = Pick<BareVtxo<VtxoPolicy>, "point" | "amount" | "policy" | "serverPubkey" | "exitDelta" | "expiryHeight">;

/** The request's on-chain output. */
export function offboardTxOut(r: Pick<OffboardRequest, "netAmountSat" | "script">): TxOut {
  return { value: r.netAmountSat, script: r.script };
}

/** Throws "invalid offboard request: non-standard output" when the destination output would not relay. */
export function checkOffboardRequest(r: Pick<OffboardRequest, "netAmountSat" | "script">): void {
  if (!isStandardOutput(offboardTxOut(r))) throw new OffboardError("invalid offboard request: non-standard output");
}

/**
 * The dust limit of an output paying `script`: an output below it is not relayed (OP_RETURN: 0).
 * Throws for a script no standard output can have.
 */
export function destinationDustLimit(script: Uint8Array): bigint {
  const kind = classifyScript(script);
  if (kind === "op_return") return 0n;
  if (kind === "p2a" || kind === "nonstandard") throw new OffboardError("invalid offboard request: non-standard output");
  return DUST_LIMITS[kind];
}

/** The connector output script of a connector key (33-byte or x-only): key-path-only P2TR. */
export function connectorScript(connectorPubkey: Uint8Array): Uint8Array {
  return taprootOutput(connectorPubkey.length === 33 ? toXOnly(connectorPubkey) : connectorPubkey, null).scriptPubKey;
}

/** The P2TR output script of the server key without scripts (where forfeited value goes). */
export function serverForfeitScript(serverPubkey: Uint8Array): Uint8Array {
  return taprootOutput(toXOnly(serverPubkey), null).scriptPubKey;
}

/** The connector fan-out tx splitting the connector output `prev` into `n` connectors. */
export function connectorFanoutTx(prev: OutPoint, n: number, script: Uint8Array): Transaction {
  if (!Number.isSafeInteger(n) || n < 1) throw new OffboardError("a connector fan-out needs at least one output");
  return {
    version: 3,
    locktime: 0,
    inputs: [{ prevout: prev, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }],
    outputs: [...Array.from({ length: n }, () => ({ value: CONNECTOR_VALUE, script })), { value: 0n, script: P2A_SCRIPT }],
  };
}

/** Where each input's connector is: offboard vout 1 itself for one input, else outputs of the fan-out tx. */
export interface OffboardConnectors {
  /** One connector outpoint per input, in input order. */
  readonly points: OutPoint[];
  /** Every connector's output (all connectors are alike: 330 sat to the connector script). */
  readonly txOut: TxOut;
  /** The fan-out tx (unsigned) when there are several inputs. */
  readonly fanout?: Transaction;
}

/** The connectors of an offboard tx with `n` inputs. */
export function offboardConnectors(offboardTx: Transaction, n: number): OffboardConnectors {
  const out = offboardTx.outputs[OFFBOARD_CONNECTOR_VOUT];
  if (!out) throw new OffboardError("invalid offboard transaction: missing connector output");
  const prev: OutPoint = { txid: txid(offboardTx), vout: OFFBOARD_CONNECTOR_VOUT };
  const txOut = { value: CONNECTOR_VALUE, script: out.script };
  if (n === 1) return { points: [prev], txOut };
  const fanout = connectorFanoutTx(prev, n, out.script);
  const fanoutTxid = txid(fanout);
  return { points: Array.from({ length: n }, (_, i) => ({ txid: fanoutTxid, vout: i })), txOut, fanout };
}

/**
 * The client's check of the server's offboard tx: vout 0 pays the request's script and amount,
 * vout 1 holds 330 sat per input. Throws {@link OffboardError} naming the mismatch.
 */
export function validateOffboardTx(tx: Transaction, request: Pick<OffboardRequest, "netAmountSat" | "script">, nInputs: number): void {
  const out = tx.outputs[OFFBOARD_OUTPUT_VOUT];
  if (!out) throw new OffboardError("invalid offboard transaction: missing offboard output");
  if (compareBytes(out.script, request.script) !== 0) {
    throw new OffboardError(`invalid offboard transaction: offboard output scriptPubkey doesn't match: got=${toHex(out.script)}, expected=${toHex(request.script)}`);
  }
  if (out.value !== request.netAmountSat) throw new OffboardError(`invalid offboard transaction: offboard output amount doesn't match: got=${out.value}, expected=${request.netAmountSat}`);
  const conn = tx.outputs[OFFBOARD_CONNECTOR_VOUT];
  if (!conn) throw new OffboardError("invalid offboard transaction: missing connector output");
  const need = CONNECTOR_VALUE * BigInt(nInputs);
  if (conn.value !== need) throw new OffboardError(`invalid offboard transaction: insufficient connector amount: got=${conn.value}, need=${need}`);
}

/**
 * The client's check of `FinishOffboard`'s answer: the same txid as the prepared tx and every
 * input signed. Throws {@link OffboardError}.
 */
export function checkSignedOffboardTx(signed: Transaction, prepared: Transaction): void {
  if (compareBytes(txid(signed), txid(prepared)) !== 0) throw new OffboardError("signed offboard tx has a different txid than the prepared one");
  signed.inputs.forEach((input, i) => {
    if (input.witness.length === 0 && input.scriptSig.length === 0) throw new OffboardError(`signed offboard tx has an unsigned input (input ${i})`);
  });
}

/** One forfeit tx with what signing its VTXO input needs. */
export interface OffboardForfeit {
  readonly tx: Transaction;
  /** [VTXO output, connector output] — the sighash commits to both. */
  readonly prevouts: readonly [TxOut, TxOut];
  /** Sighash of input 0 (the VTXO). */
  readonly sighash: Uint8Array;
  /** TapTweak of the VTXO's output (the MuSig2 x-only tweak). */
  readonly tweak: Uint8Array;
  /** [user, server]. */
  readonly signers: readonly [Uint8Array, Uint8Array];
}

/** The forfeit tx of `vtxo` against the connector at `connector` (output `connectorTxOut`). */
export function offboardForfeit(vtxo: OffboardableVtxo, connector: OutPoint, connectorTxOut: TxOut): OffboardForfeit {
  const own = policyTaproot(vtxo.policy, vtxoPolicyContext(vtxo as BareVtxo<VtxoPolicy>));
  const prevouts: [TxOut, TxOut] = [{ value: vtxo.amount, script: own.scriptPubKey }, connectorTxOut];
  const tx: Transaction = {
    version: 3,
    locktime: 0,
    inputs: [
      { prevout: vtxo.point, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] },
      { prevout: connector, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] },
    ],
    outputs: [
      { value: vtxo.amount + connectorTxOut.value, script: serverForfeitScript(vtxo.serverPubkey) },
      { value: 0n, script: P2A_SCRIPT },
    ],
  };
  return { tx, prevouts, sighash: taprootSighash(tx, 0, prevouts), tweak: own.tweak, signers: [vtxo.policy.userPubkey, vtxo.serverPubkey] };
}

/** The forfeits of every input (in order) of an offboard tx. */
export function offboardForfeits(offboardTx: Transaction, vtxos: readonly OffboardableVtxo[]): OffboardForfeit[] {
  if (vtxos.length === 0) throw new OffboardError("an offboard needs at least one input");
  const c = offboardConnectors(offboardTx, vtxos.length);
  return vtxos.map((v, i) => offboardForfeit(v, c.points[i]!, c.txOut));
}

/** The user's half of the forfeit signatures: one public nonce and one partial signature per input. */
export interface OffboardForfeitSignatures {
  readonly pubNonces: Uint8Array[];
  readonly partialSigs: Uint8Array[];
}

/**
 * The user signs the forfeits with fresh nonces (never stored; a new attempt makes new ones).
 * `secretKeys[i]` is the key of `vtxos[i]`'s user pubkey; `serverPubNonces[i]` its server nonce.
 */
export function signOffboardForfeits(
  offboardTx: Transaction,
  vtxos: readonly OffboardableVtxo[],
  secretKeys: readonly Uint8Array[],
  serverPubNonces: readonly Uint8Array[],
): OffboardForfeitSignatures {
  if (secretKeys.length !== vtxos.length || serverPubNonces.length !== vtxos.length) throw new OffboardError("one key and one server nonce per input are needed");
  const pubNonces: Uint8Array[] = [];
  const partialSigs: Uint8Array[] = [];
  offboardForfeits(offboardTx, vtxos).forEach((f, i) => {
    const [user, server] = f.signers;
    const nonce = musigNonceGen({ pubkey: user, secretKey: secretKeys[i]!, aggregateKey: musigTweakedKey(f.signers, f.tweak), message: f.sighash });
    const session = new MusigSession({ pubkeys: [user, server], aggNonce: musigNonceAgg([nonce.pubNonce, serverPubNonces[i]!]), message: f.sighash, tweak: f.tweak });
    pubNonces.push(nonce.pubNonce);
    partialSigs.push(session.sign(nonce.secNonce, secretKeys[i]!));
  });
  return { pubNonces, partialSigs };
}

/** What the server completes the forfeits with. */
export interface OffboardFinalizeInput {
  readonly offboardTx: Transaction;
  readonly vtxos: readonly OffboardableVtxo[];
  readonly serverSecretKey: Uint8Array;
  /** The session's connector secret key (untweaked). */
  readonly connectorSecretKey: Uint8Array;
  /** The server's nonces of the session, one per input. */
  readonly serverNonces: readonly { pubNonce: Uint8Array; secNonce: Uint8Array }[];
  readonly userPubNonces: readonly Uint8Array[];
  readonly userPartialSigs: readonly Uint8Array[];
}

/** The server's result: every forfeit signed, and the signed connector fan-out tx (several inputs). */
export interface FinalizedOffboardForfeits {
  readonly forfeits: Transaction[];
  readonly fanout?: Transaction;
}

/**
 * The server checks every user partial signature and completes the forfeits (VTXO input by
 * MuSig2, connector input by the connector key). Throws {@link OffboardForfeitSignatureError}
 * for the first input whose signature does not verify. Consumes the server's secret nonces.
 */
export function finalizeOffboardForfeits(p: OffboardFinalizeInput): FinalizedOffboardForfeits {
  const n = p.vtxos.length;
  if (p.serverNonces.length !== n || p.userPubNonces.length !== n || p.userPartialSigs.length !== n) throw new OffboardError("one nonce and one partial signature per input are needed");
  const connectorKey = tweakSecretKey(p.connectorSecretKey, null);
  const connectors = offboardConnectors(p.offboardTx, n);
  const forfeits = offboardForfeits(p.offboardTx, p.vtxos).map((f, i) => {
    const vtxo = p.vtxos[i]!;
    const id = vtxoIdString(vtxo as BareVtxo<VtxoPolicy>);
    const [user, server] = f.signers;
    const userNonce = p.userPubNonces[i]!;
    const serverNonce = p.serverNonces[i]!;
    let session: MusigSession;
    try {
      session = new MusigSession({ pubkeys: [user, server], aggNonce: musigNonceAgg([userNonce, serverNonce.pubNonce]), message: f.sighash, tweak: f.tweak });
    } catch {
      throw new OffboardForfeitSignatureError(id);
    }
    const ok = session.verifyPartial(p.userPartialSigs[i]!, user, [
      { pubkey: user, pubNonce: userNonce },
      { pubkey: server, pubNonce: serverNonce.pubNonce },
    ]);
    if (!ok) throw new OffboardForfeitSignatureError(id);
    const vtxoSig = session.aggregate([p.userPartialSigs[i]!, session.sign(serverNonce.secNonce, p.serverSecretKey)]);
    if (!verifySchnorr(vtxoSig, f.sighash, f.prevouts[0].script.subarray(2))) throw new OffboardForfeitSignatureError(id);
    const connSig = signSchnorr(taprootSighash(f.tx, 1, f.prevouts), connectorKey);
    const [vin, cin] = f.tx.inputs as [Transaction["inputs"][number], Transaction["inputs"][number]];
    return { ...f.tx, inputs: [{ ...vin, witness: [vtxoSig] }, { ...cin, witness: [connSig] }] };
  });
  if (!connectors.fanout) return { forfeits };
  const offboardConnector = p.offboardTx.outputs[OFFBOARD_CONNECTOR_VOUT]!;
  const fanoutSig = signSchnorr(taprootSighash(connectors.fanout, 0, [offboardConnector]), connectorKey);
  const fanout = { ...connectors.fanout, inputs: [{ ...connectors.fanout.inputs[0]!, witness: [fanoutSig] }] };
  return { forfeits, fanout };
}
