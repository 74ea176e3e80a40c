/**
 * Loading what a participation works with from the ports: its inputs with their owners' secret
 * keys, its requested outputs as policies, the server parameters.
 */
import { fromHex, type Vtxo } from "@tender/ark-protocol";
import type { Participation, RequestedOutput } from "./participation.js";
import type { OwnedRoundInput, RoundKeys, RoundOutput, RoundServerInfo, RoundServerParams, RoundVtxos } from "./round-ports.js";

/** The requested outputs as round outputs (`pubkey` policies). */
export function roundOutputs(outputs: readonly RequestedOutput[]): RoundOutput[] {
  return outputs.map((o) => ({ amount: o.amountSat, policy: { type: "pubkey", userPubkey: fromHex(o.pubkey) } }));
}

/** The parameters the round client checks the server's trees against. */
export function serverParams(i: RoundServerInfo): RoundServerParams {
  return { serverPubkey: i.serverPubkey, vtxoExitDelta: i.vtxoExitDelta, vtxoLifetime: i.vtxoLifetime, nbRoundNonces: i.nbRoundNonces, refreshFees: i.refreshFees };
}

/** The stored input VTXOs of `p`, in order. */
export async function inputVtxos(vtxos: RoundVtxos, p: Pick<Participation, "inputs">): Promise<Vtxo[]> {
  const out: Vtxo[] = [];
  for (const id of p.inputs) {
    const v = await vtxos.get(id);
    if (!v) throw new Error(`round input VTXO ${id} is missing from the wallet`);
    out.push(v.vtxo);
  }
  return out;
}

/** The user key of a VTXO (round inputs are `pubkey` VTXOs of the wallet). */
function userKeyOf(v: Vtxo): Uint8Array {
  const policy = v.policy as { userPubkey?: Uint8Array };
  if (!policy.userPubkey) throw new Error(`VTXO policy ${v.policy.type} has no user key`);
  return policy.userPubkey;
}

/** The inputs of `p` with their owners' secret keys. */
export async function ownedInputs(vtxos: RoundVtxos, keys: RoundKeys, p: Pick<Participation, "inputs">): Promise<OwnedRoundInput[]> {
  const out: OwnedRoundInput[] = [];
  for (const vtxo of await inputVtxos(vtxos, p)) {
    const secretKey = await keys.secretKeyFor(userKeyOf(vtxo));
    if (!secretKey) throw new Error("round input is not signable by this wallet (no key for its user pubkey)");
    out.push({ vtxo, secretKey });
  }
  return out;
}

/** The secret key of the wallet's output key behind VTXO `v`. */
export async function outputSecretKey(keys: RoundKeys, v: Vtxo): Promise<Uint8Array> {
  const sk = await keys.secretKeyFor(userKeyOf(v));
  if (!sk) throw new Error("round output key is not one of the wallet's keys");
  return sk;
}
