/**
 * The end of a participation whose round happened (status `finished`, then `forfeiting`): wait
 * for the funding transaction's confirmations, then the hArk swap — leaf co-signatures, forfeit
 * nonces, forfeits in exchange for the unlock preimage — and store the unlocked VTXOs.
 *
 * Every server call of the swap may be repeated. The participation is marked `forfeiting` before
 * the forfeits are sent: from then on it never fails, it is retried until the server released the
 * preimage and the new VTXOs are stored. Before that, an error leaves it `finished` and the next
 * sync tries again (the inputs stay held: the round's funding transaction spends the server's
 * coins for our outputs, only our forfeits are missing).
 */
import { decodeVtxo, fromHex, toHex, vtxoId, type Vtxo } from "@tender/ark-protocol";
import { faultPoint } from "@tender/core";
import type { Participation } from "./participation.js";
import type { ParticipationStore } from "./participation-store.js";
import type { RoundOutcomes } from "./round-outcomes.js";
import { outputSecretKey, ownedInputs, inputVtxos } from "./round-materials.js";
import type { RoundPorts } from "./round-ports.js";
import type { RoundStatusJson } from "./round-status.js";

/** Most input ids one forfeit-nonce request may carry. */
export const MAX_FORFEIT_NONCE_IDS = 1000;

/** Fault points of the confirmation wait and the swap, in order. */
export const COMPLETION_FAULT_POINTS = ["round-swap:start", "round-swap:forfeiting", "round-swap:forfeited", "round-swap:stored"] as const;

export class RoundCompletion {
  constructor(private readonly store: ParticipationStore, private readonly ports: RoundPorts, private readonly outcomes: RoundOutcomes) {}

  /**
   * Whether the funding tx has the wallet's `round_tx_required_confirmations` (0: the mempool is
   * enough). A transaction the chain source does not know is broadcast; a refusal is an error.
   */
  async fundingConfirmed(txid: string, hex: string): Promise<boolean> {
    const { chain, settings } = this.ports;
    const required = await settings.requiredConfirmations();
    const status = await chain.txStatus(txid);
    if (status?.confirmed) return required === 0 || (await chain.tipHeight()) - status.block.height + 1 >= required;
    if (status) return required === 0;
    try {
      await chain.broadcast(hex);
    } catch (e) {
      throw new Error(`round funding tx ${txid} the server sent is rejected by the mempool: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    return false;
  }

  /** Drives `p` (finished or forfeiting) as far as it goes now; throws on errors (the caller shows them as `sync-error`). */
  async progress(p: Participation): Promise<RoundStatusJson> {
    const txid = p.fundingTxid!;
    if (!(await this.fundingConfirmed(txid, p.fundingTx!))) return { status: "unconfirmed", funding_txid: txid };
    faultPoint("round-swap:start");
    const { server, keys, vtxos, protocol } = this.ports;
    const info = await server.info();
    const fundingTx = fromHex(p.fundingTx!);
    const unlockHash = fromHex(p.unlockHash!);
    const outputs = (p.outputVtxos ?? []).map((h) => decodeVtxo(fromHex(h)));
    let current = p;
    let preimage = p.unlockPreimage === null ? undefined : fromHex(p.unlockPreimage);
    if (!preimage) {
      const inputs = await ownedInputs(vtxos, keys, p);
      await server.registerVtxos(await inputVtxos(vtxos, p));
      // the leaves first: their signatures must be obtainable before anything is forfeited
      await this.leafSignatures(outputs, info.serverPubkey);
      const serverNonces: Uint8Array[] = [];
      for (let i = 0; i < inputs.length; i += MAX_FORFEIT_NONCE_IDS) {
        const chunk = inputs.slice(i, i + MAX_FORFEIT_NONCE_IDS);
        const nonces = await server.requestForfeitNonces(unlockHash, chunk.map((x) => vtxoId(x.vtxo)));
        if (nonces.length !== chunk.length) throw new Error(`server sent ${nonces.length} forfeit nonces, expected ${chunk.length}`);
        serverNonces.push(...nonces);
      }
      const bundles = protocol.forfeitBundles({ inputs, unlockHash, serverNonces });
      if (current.status !== "forfeiting") current = await this.store.update(p.id, { status: "forfeiting" });
      faultPoint("round-swap:forfeiting");
      preimage = await server.forfeitVtxos(bundles);
      current = await this.store.update(p.id, { unlockPreimage: toHex(preimage) });
      faultPoint("round-swap:forfeited");
    }
    const leafSigs = await this.leafSignatures(outputs, info.serverPubkey);
    const final = outputs.map((vtxo, i) => protocol.finalizeRoundVtxo({ vtxo, leafSignature: leafSigs[i]!, preimage: preimage!, unlockHash, fundingTx }));
    await server.registerVtxos(final);
    await this.outcomes.succeed(current, final);
    faultPoint("round-swap:stored");
    return { status: "confirmed", funding_txid: txid };
  }

  /** The server's co-signature of each output's hash-locked leaf, completed into the leaf signature. */
  private async leafSignatures(outputs: readonly Vtxo[], serverPubkey: Uint8Array): Promise<Uint8Array[]> {
    const { server, keys, protocol } = this.ports;
    const sigs: Uint8Array[] = [];
    for (const vtxo of outputs) {
      const secretKey = await outputSecretKey(keys, vtxo);
      const { request, secNonce } = protocol.leafCosignNonce({ vtxo, secretKey });
      const response = await server.requestLeafVtxoCosign(request);
      sigs.push(protocol.completeLeafSignature({ vtxo, secretKey, secNonce, response, serverPubkey }));
    }
    return sigs;
  }
}
