/**
 * VTXO queries and chain registration on the server side (as captaind):
 * `RegisterVtxoTransactions` (signed chains flip `unregistered` → `spendable`), `GetVtxo`,
 * `GetVtxoStatus` (owner-attested spend state).
 */
import {
  VtxoValidationError,
  bytesEqual,
  encodeTx,
  encodeVtxo,
  fromHex,
  reverseBytes,
  toHex,
  transitionHasAllWitnesses,
  validateVtxo,
  verifyAttestation,
  vtxoIdString,
  vtxoStatusAttestation,
  type ExitChainTx,
  type Vtxo,
} from "@tender/ark-protocol";
import { txFromBytes, vtxoFromBytes, vtxoIdText } from "./request-decoding.js";
import { BadUserInputError, NotFoundError } from "./server-errors.js";
import type { ServerContext } from "./server-context.js";
import type { StoredTx, VtxoSpendState } from "./server-store.js";

/** Client-visible spend states (the `VtxoSpendState` enum of the gRPC API). */
export const ClientSpendState = {
  UNSPECIFIED: 0,
  SPENDABLE: 1,
  SPENT: 2,
  UNCLAIMED: 3,
  UNREGISTERED: 4,
  HTLC_RECV_UNCLAIMED: 5,
} as const;

const STATE_MAP: Record<VtxoSpendState, number> = {
  spendable: ClientSpendState.SPENDABLE,
  spent: ClientSpendState.SPENT,
  unregistered: ClientSpendState.UNREGISTERED,
  unclaimed: ClientSpendState.UNCLAIMED,
  "htlc-recv-unclaimed": ClientSpendState.HTLC_RECV_UNCLAIMED,
};

/** Registration and lookup of VTXOs. */
export class VtxoRegistry {
  constructor(private readonly ctx: ServerContext) {}

  /**
   * `RegisterVtxoTransactions`: every VTXO must be known, fully signed and valid against its
   * stored chain anchor; one bad VTXO fails the whole batch. Duplicates are ignored.
   */
  async registerVtxoTransactions(list: readonly Uint8Array[]): Promise<void> {
    if (list.length === 0) throw new BadUserInputError("no vtxos provided");
    const unique = new Map<string, { vtxo: Vtxo; bytes: Uint8Array }>();
    for (const bytes of list) {
      const vtxo = vtxoFromBytes(bytes);
      unique.set(vtxoIdString(vtxo), { vtxo, bytes });
    }
    // the exit txs of every chain by txid: a payment's outputs share their chain up to the last tx
    const txs = new Map<string, ExitChainTx>();
    const fresh: { id: string; bytes: Uint8Array }[] = [];
    for (const [id, { vtxo, bytes: sent }] of unique) {
      const stored = await this.ctx.store.getVtxo(id);
      if (!stored) throw new NotFoundError("vtxo not found in database", [id]);
      if (!vtxo.genesis.every((g) => transitionHasAllWitnesses(g.transition))) throw new BadUserInputError(`vtxo ${id} is not fully signed`, undefined, [id]);
      // this very chain (same bytes, signatures included) was checked and stored before: a wallet
      // registering its inputs again, or a payee its received VTXO, costs a lookup only (the bytes
      // as sent are compared first; another encoding of the same VTXO is compared re-encoded)
      const registered = stored.state !== "unregistered";
      if (registered && bytesEqual(stored.bytes, sent)) continue;
      const bytes = encodeVtxo(vtxo);
      if (registered && bytesEqual(stored.bytes, bytes)) continue;
      fresh.push({ id, bytes });
      const anchorTxid = toHex(reverseBytes(vtxo.anchorPoint.txid));
      const anchor = await this.ctx.store.getTx(anchorTxid);
      if (!anchor) throw new BadUserInputError(`chain anchor tx not found: ${anchorTxid}`, undefined, [id]);
      if (!anchor.signed) throw new BadUserInputError(`chain anchor tx ${anchorTxid} has no signed_tx`, undefined, [id]);
      let chain;
      try {
        chain = validateVtxo(vtxo, txFromBytes(anchor.raw));
      } catch (e) {
        if (e instanceof VtxoValidationError) throw new BadUserInputError(`vtxo validation failed: ${e.message}`, undefined, [id]);
        throw e;
      }
      for (const e of chain) txs.set(toHex(reverseBytes(e.txid)), e);
    }
    if (fresh.length === 0) return;
    // a signed tx already stored stays as it is (the insert would keep it): only the others are encoded and written
    const stored = await this.ctx.store.signedTxids([...txs.keys()]);
    const missing: StoredTx[] = [];
    for (const [txid, e] of txs) if (!stored.has(txid)) missing.push({ txid, raw: encodeTx(e.tx), signed: true, isFunding: false });
    await this.ctx.store.registerChains(fresh, missing);
    this.ctx.logger.debug(`registered ${fresh.length} vtxo chain(s)`);
  }

  /** `GetVtxo`: the stored encoding. */
  async getVtxo(idBytes: Uint8Array | undefined): Promise<Uint8Array> {
    const id = vtxoIdText(idBytes);
    const row = await this.ctx.store.getVtxo(id);
    if (!row) throw new NotFoundError("vtxo not found", [id]);
    return row.bytes;
  }

  /** `GetVtxoStatus`: owner-attested spend state. */
  async getVtxoStatus(idBytes: Uint8Array | undefined, attestation: Uint8Array | undefined): Promise<number> {
    const id = vtxoIdText(idBytes);
    const row = await this.ctx.store.getVtxo(id);
    if (!row || !row.userPubkey) throw new NotFoundError("VTXO not found", [id]);
    const msg = vtxoStatusAttestation(idBytes!);
    const sig = attestation ?? new Uint8Array(0);
    if (sig.length !== 64 || !verifyAttestation(sig, msg, fromHex(row.userPubkey))) throw new BadUserInputError("invalid VTXO status attestation");
    return STATE_MAP[row.state];
  }
}
