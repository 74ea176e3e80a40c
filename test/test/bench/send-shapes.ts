/**
 * What each send of a phase was, read back from the two daemons after it: the VTXOs Alice spent
 * and the change she kept (her send movements), and the VTXOs Bob received from it. The raw crypto
 * the p50 goal compares with is then each send's own (`paymentRawCryptoCost`): the sends of the
 * bench spend one to three VTXOs and keep one to three change pieces — three to eight signatures
 * each — as the wallet's selection finds them, not the one-input payment a model would assume.
 *
 * Bob's receipts are matched to Alice's sends by the chain, not by order (he may still be storing
 * earlier payments when a phase starts): walking a received VTXO's exit chain back from its end,
 * the first transaction that spends an input of any send since the mark is its own send's
 * checkpoint (later sends' chains pass through earlier sends' inputs too, but only before their
 * own).
 */
import { decodeTx, decodeVtxo, exitChain, formatOutPoint, fromHex, reverseBytes, toHex, type Transaction, type Vtxo } from "@tender/ark-protocol";
import type { Daemon } from "../../src/daemon-process.js";
import { ok, type DevnetWithArk, type Movement } from "../ark-harness.js";
import type { PaymentCryptoShape } from "./arkoor-raw-crypto.js";

/** The newest movement ids of the sender and the receiver before a phase. */
export interface HistoryMarks {
  readonly sender: number;
  readonly receiver: number;
}

const isArkoor = (kind: "send" | "receive") => (m: Movement) => m.subsystem.name === "bark.arkoor" && m.subsystem.kind === kind;
const history = (d: Daemon) => ok<Movement[]>(d, "GET", "/api/v1/history");
const newest = (ms: readonly Movement[]) => ms.reduce((max, m) => Math.max(max, m.id), 0);

/** Marks the two histories before a phase. */
export async function historyMarks(sender: Daemon, receiver: Daemon): Promise<HistoryMarks> {
  return { sender: newest(await history(sender)), receiver: newest(await history(receiver)) };
}

/** VTXO `id` of daemon `d`, as it stores it. */
export async function encodedVtxo(d: Daemon, id: string): Promise<Vtxo> {
  return decodeVtxo(fromHex((await ok<{ encoded: string }>(d, "GET", `/api/v1/wallet/vtxos/${id}/encoded`)).encoded));
}

/** The chain anchor transaction of `vtxo`, from the devnet's chain. */
export function anchorTxOf(devnet: DevnetWithArk, vtxo: Vtxo): Transaction {
  const anchorTxid = toHex(reverseBytes(vtxo.anchorPoint.txid));
  const raw = devnet.node.getTransaction(anchorTxid)?.raw;
  if (!raw) throw new Error(`the chain anchor ${anchorTxid} is not on the devnet`);
  return decodeTx(raw);
}

/**
 * The shapes of the first `count` arkoor sends `sender` made after `marks`, each with what
 * `receiver` got from it. Throws when a send finds no receipt (the phase was misread).
 */
export async function sendShapes(devnet: DevnetWithArk, sender: Daemon, receiver: Daemon, marks: HistoryMarks, count: number, payeeAmount: bigint): Promise<PaymentCryptoShape[]> {
  // every send since the mark, so that a later send's receipt is known for its own (its chain
  // also spends the inputs of the sends before it)
  const since = (await history(sender)).filter((m) => m.id > marks.sender && isArkoor("send")(m)).sort((a, b) => a.id - b.id);
  if (since.length < count) throw new Error(`the sender's history holds ${since.length} sends after the mark, ${count} expected`);
  const sendOfInput = new Map<string, number>();
  since.forEach((m, i) => m.input_vtxos.forEach((id) => sendOfInput.set(id, i)));
  const sends = since.slice(0, count);
  const received: { vtxo: Vtxo; anchor: Transaction }[][] = sends.map(() => []);
  const receipts = (await history(receiver)).filter((m) => m.id > marks.receiver && isArkoor("receive")(m)).sort((a, b) => a.id - b.id);
  for (const m of receipts) {
    for (const id of m.output_vtxos) {
      const vtxo = await encodedVtxo(receiver, id);
      // the chain only says which send it came from (the replay validates it, against this anchor)
      const spends = [...exitChain(vtxo)].reverse().map((e) => sendOfInput.get(formatOutPoint(e.prevout))).find((i) => i !== undefined);
      if (spends !== undefined && spends < count) received[spends]!.push({ vtxo, anchor: anchorTxOf(devnet, vtxo) });
    }
  }
  const shapes: PaymentCryptoShape[] = [];
  for (const [i, m] of sends.entries()) {
    if (received[i]!.length === 0) throw new Error(`send ${m.id}: none of the receiver's VTXOs comes from it`);
    const inputs = await Promise.all(m.input_vtxos.map((id) => encodedVtxo(sender, id)));
    const change = await Promise.all(m.output_vtxos.map(async (id) => (await encodedVtxo(sender, id)).amount));
    shapes.push({ inputs, payeeAmount, change, received: received[i]! });
  }
  return shapes;
}
