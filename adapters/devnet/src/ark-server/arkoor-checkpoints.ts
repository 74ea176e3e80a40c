/**
 * The server-internal VTXOs of a checkpointed arkoor part, recorded as already spent by their
 * arkoor txs (as captaind does): checkpoint output j (spent by arkoor tx j)
 * and, with dust isolation, the isolation output (spent by the fan-out tx). Recording them makes
 * a second package that reuses the same checkpoint tx with other destinations a double spend.
 *
 * Not in the protocol core (it only builds the user-visible outputs); derived here from those.
 */
import { arkoorOutputVtxos, checkpointPolicyOf, txid, txidHex, type ArkoorPart, type ServerVtxo } from "@tender/ark-protocol";

/** One checkpoint output as a VTXO and the txid that spends it. */
export interface CheckpointOutput {
  readonly vtxo: ServerVtxo;
  readonly spentBy: string;
}

/** The checkpoint outputs of a part built in checkpoint mode (empty in direct mode). */
export function checkpointOutputs(part: ArkoorPart): CheckpointOutput[] {
  if (!part.useCheckpoint || !part.checkpointTx) return [];
  const cp = part.checkpointTx;
  const cpTxid = txid(cp);
  const outs = arkoorOutputVtxos(part, part.signing.map(() => null));
  const policy = checkpointPolicyOf(part.input);
  const m = part.normal.length;
  const result: CheckpointOutput[] = part.normal.map((d, j) => ({
    vtxo: { ...outs[j]!, amount: d.amount, policy, genesis: outs[j]!.genesis.slice(0, -1), point: { txid: cpTxid, vout: j } },
    spentBy: txidHex(part.arkoorTxs[j]!),
  }));
  if (part.fanoutTx && part.isolated.length) {
    const first = outs[m]!;
    const amount = part.isolated.reduce((s, d) => s + d.amount, 0n);
    result.push({ vtxo: { ...first, amount, policy, genesis: first.genesis.slice(0, -1), point: { txid: cpTxid, vout: m } }, spentBy: txidHex(part.fanoutTx) });
  }
  return result;
}

