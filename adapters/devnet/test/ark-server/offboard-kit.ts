/**
 * An offboard client for server tests, built only from the protocol core and the gRPC Ark server
 * port: it computes the fee as a wallet does, attests the inputs, prepares, checks the offboard
 * tx, signs the forfeits and finishes.
 */
import {
  blocksToExpiry, checkSignedOffboardTx, decodeTx, encodeTx, offboardAttestation, offboardFee, reverseBytes, satPerKvbToSatPerKwuCeil, signAttestation,
  signOffboardForfeits, compareBytes, connectorScript, pubkeyFromSecret, txid, validateOffboardTx, vtxoId, type Transaction, type Vtxo,
} from "@tender/ark-protocol";
import type { ArkInfo, ArkServer as ArkServerPort, FinishOffboardRequest, OffboardRequestMessage, PrepareOffboardRequest } from "@tender/ark-protocol/server";
import type { DevnetNode } from "../../src/node/devnet-node.js";
import type { WalletKit } from "./wallet-kit.js";

/** A key-path P2TR destination script of the key with secret `fill` × 32 (nobody spends it in these tests). */
export function p2trDestination(fill = 0x42): Uint8Array {
  return connectorScript(pubkeyFromSecret(new Uint8Array(32).fill(fill)));
}

/** What the wallet would ask for. */
export interface OffboardPlan {
  readonly request: PrepareOffboardRequest;
  readonly vtxos: Vtxo[];
  readonly feeSat: bigint;
}

/**
 * Plans an offboard of `vtxos` to `script`: whole VTXOs (fee deducted) by default, or with
 * `sendSat` an exact on-chain amount with the fee on top. Inputs are sorted by id as a wallet does.
 */
export async function planOffboard(port: ArkServerPort, info: ArkInfo, node: DevnetNode, kit: WalletKit, vtxos: readonly Vtxo[], script: Uint8Array, opts: { sendSat?: bigint; feeRateSatPerKwu?: bigint } = {}): Promise<OffboardPlan> {
  const rate = opts.feeRateSatPerKwu ?? satPerKvbToSatPerKwuCeil(await port.offboardFeeRateSatPerKvb());
  const sorted = [...vtxos].sort((a, b) => compareBytes(vtxoId(a), vtxoId(b)));
  const tip = node.tipHeight();
  const inputs = sorted.map((v) => ({ amount: v.amount, blocksToExpiry: blocksToExpiry(v.expiryHeight, tip) }));
  const gross = sorted.reduce((s, v) => s + v.amount, 0n);
  const deduct = opts.sendSat === undefined;
  const chargeable = deduct ? gross : opts.sendSat!;
  const feeSat = offboardFee(info.fees.offboard, chargeable, script, rate, inputs);
  const offboard: OffboardRequestMessage = { netAmountSat: deduct ? gross - feeSat : opts.sendSat!, script, deductFeesFromGrossAmount: deduct, feeRateSatPerKwu: rate };
  return { request: attested(kit, offboard, sorted), vtxos: sorted, feeSat };
}

/** The prepare request for `offboard` with one attestation per input. */
export function attested(kit: WalletKit, offboard: OffboardRequestMessage, vtxos: readonly Vtxo[]): PrepareOffboardRequest {
  const ids = vtxos.map((v) => vtxoId(v));
  const msg = offboardAttestation({ value: offboard.netAmountSat, script: offboard.script }, ids);
  return { offboard, inputVtxoIds: ids, attestations: vtxos.map((v) => signAttestation(msg, kit.secretFor(v.policy.userPubkey))) };
}

/** A prepared offboard: the checked unsigned tx and the finish request the kit signed. */
export interface PreparedKitOffboard {
  readonly tx: Transaction;
  readonly txid: string;
  readonly finish: FinishOffboardRequest;
}

/** Prepares on the server, checks the tx as a wallet does and signs the forfeits (fresh nonces). */
export async function prepareAndSign(port: ArkServerPort, kit: WalletKit, plan: OffboardPlan): Promise<PreparedKitOffboard> {
  const prepared = await port.prepareOffboard(plan.request);
  const tx = decodeTx(prepared.offboardTx);
  validateOffboardTx(tx, { netAmountSat: plan.request.offboard.netAmountSat, script: plan.request.offboard.script }, plan.vtxos.length);
  const sigs = signOffboardForfeits(tx, plan.vtxos, plan.vtxos.map((v) => kit.secretFor(v.policy.userPubkey)), prepared.forfeitCosignNonces);
  const id = txid(tx);
  return {
    tx, txid: Buffer.from(reverseBytes(id)).toString("hex"),
    finish: { offboardTxid: id, userNonces: sigs.pubNonces, partialSignatures: sigs.partialSigs },
  };
}

/** The whole offboard: prepare, sign, finish; returns the signed tx (checked as a wallet does). */
export async function offboard(port: ArkServerPort, kit: WalletKit, plan: OffboardPlan): Promise<{ signed: Transaction; txid: string; raw: Uint8Array }> {
  const p = await prepareAndSign(port, kit, plan);
  const raw = await port.finishOffboard(p.finish);
  const signed = decodeTx(raw);
  checkSignedOffboardTx(signed, p.tx);
  return { signed, txid: p.txid, raw: encodeTx(signed) };
}
