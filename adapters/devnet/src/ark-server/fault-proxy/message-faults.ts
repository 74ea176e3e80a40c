/**
 * The messages the fault proxy reads or alters, decoded with the generated ts-proto types of
 * `@tender/ark-grpc`; every other message passes through as raw bytes.
 */
import {
  GetVtxoRequest, GetVtxoResponse, GetVtxoStatusRequest, MailboxMessages, MailboxRequest, RegisterVtxoTransactionsRequest,
} from "@tender/ark-grpc";
import { decodeExact, decodeVtxo, encodeVtxo, formatOutPoint, readOutPoint, toHex, vtxoIdString, type GenesisItem, type Vtxo } from "@tender/ark-protocol";

/** A response the proxy cannot alter as asked (answered INTERNAL, so the test sees its misuse). */
export class FaultApplicationError extends Error {}

const idText = (bytes: Uint8Array): string | undefined => {
  try {
    return formatOutPoint(decodeExact(bytes, readOutPoint));
  } catch {
    return undefined;
  }
};

const vtxoText = (bytes: Uint8Array): string | undefined => {
  try {
    return vtxoIdString(decodeVtxo(bytes));
  } catch {
    return undefined;
  }
};

/** The VTXO ids a request of `method` names (empty for methods the proxy does not read). */
export function requestVtxoIds(method: string, request: Buffer): string[] {
  const ids = (() => {
    switch (method) {
      case "GetVtxo":
        return [idText(GetVtxoRequest.decode(request).vtxoId)];
      case "GetVtxoStatus":
        return [idText(GetVtxoStatusRequest.decode(request).vtxoId)];
      case "RegisterVtxoTransactions":
        return RegisterVtxoTransactionsRequest.decode(request).vtxos.map(vtxoText);
      default:
        return [];
    }
  })();
  return ids.filter((id): id is string => id !== undefined);
}

/** The mailbox id (hex) a `ReadMailbox` request reads. */
export function readMailboxId(request: Buffer): string {
  return toHex(MailboxRequest.decode(request).mailboxId);
}

/**
 * A `ReadMailbox` answer with one more message in front: recovery ids `ids`, at the checkpoint
 * the request read from, so it moves the reader's checkpoint nowhere.
 */
export function withInjectedRecoveryIds(request: Buffer, response: Buffer, ids: readonly Uint8Array[]): Buffer {
  const page = MailboxMessages.decode(response);
  const checkpoint = MailboxRequest.decode(request).checkpoint;
  page.messages.unshift({ checkpoint, message: { $case: "recoveryVtxoIds", value: { vtxoIds: [...ids] } } });
  return Buffer.from(MailboxMessages.encode(page).finish());
}

/** A 64-byte signature with one bit flipped: no longer valid for its message and key. */
function altered(sig: Uint8Array): Uint8Array {
  const out = sig.slice();
  out[out.length - 1]! ^= 0x01;
  return out;
}

/**
 * A `GetVtxo` answer whose VTXO has its last genesis signature altered. The id does not depend on
 * signatures, so it is the same VTXO id, and only a signature check tells it apart.
 */
export function withInvalidSignature(response: Buffer): Buffer {
  const vtxo = decodeVtxo(GetVtxoResponse.decode(response).vtxo);
  const at = vtxo.genesis.findLastIndex((g) => g.transition.signature !== null);
  if (at < 0) throw new FaultApplicationError(`VTXO ${vtxoIdString(vtxo)} carries no signature to invalidate`);
  const genesis: GenesisItem[] = vtxo.genesis.map((g, i) =>
    i === at ? { ...g, transition: { ...g.transition, signature: altered(g.transition.signature!) } } : g,
  );
  const changed: Vtxo = { ...vtxo, genesis };
  return Buffer.from(GetVtxoResponse.encode({ vtxo: encodeVtxo(changed) }).finish());
}
