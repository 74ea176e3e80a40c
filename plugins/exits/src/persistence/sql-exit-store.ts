import type { Database } from "@tender/core";
import { exitStateToJson, parseExitState } from "@tender/ark-protocol";
import { originFromJson, originToJson } from "../exit-json.js";
import type { ExitChildRecord, ExitClaimRecord, ExitRecord, ExitStore } from "../exit-records.js";
import { ExitChildRow, ExitClaimRow, ExitVtxoRow } from "./exit-rows.js";
import { ExitPreimageRow } from "./exit-preimage-row.js";

const toExit = (r: ExitVtxoRow): ExitRecord => ({
  vtxoId: r.vtxoId, seq: r.seq, amountSat: BigInt(r.amountSat), state: parseExitState(r.state),
  history: (JSON.parse(r.history) as unknown[]).map((h) => parseExitState(h)), movementId: r.movementId, lockId: r.lockId,
  createdAtMs: Number(r.createdAtMs),
});

const toChild = (r: ExitChildRow): ExitChildRecord => ({
  childTxid: r.childTxid, exitTxid: r.exitTxid, hex: r.hex, feeSat: BigInt(r.feeSat), vsize: r.vsize, ours: !!r.ours, origin: originFromJson(JSON.parse(r.origin)),
  status: r.status as ExitChildRecord["status"], createdAtMs: Number(r.createdAtMs),
});

const toClaim = (r: ExitClaimRow): ExitClaimRecord => ({
  txid: r.txid, hex: r.hex, vtxoIds: JSON.parse(r.vtxoIds) as string[], feeSat: BigInt(r.feeSat), ownDestination: !!r.ownDestination,
  status: r.status as ExitClaimRecord["status"], createdAtMs: Number(r.createdAtMs),
});

/** {@link ExitStore} in the wallet database (`exit_vtxo`, `exit_child_tx`, `exit_claim_tx`). */
export class SqlExitStore implements ExitStore {
  constructor(private readonly db: Database) {}

  async exits(): Promise<ExitRecord[]> {
    return (await this.db.em().find(ExitVtxoRow, {}, { orderBy: { seq: "asc" } })).map(toExit);
  }

  async exit(vtxoId: string): Promise<ExitRecord | undefined> {
    const r = await this.db.em().findOne(ExitVtxoRow, { vtxoId });
    return r ? toExit(r) : undefined;
  }

  async saveExit(x: ExitRecord): Promise<void> {
    const em = this.db.em();
    const values = {
      seq: x.seq, amountSat: x.amountSat, kind: x.state.type, state: JSON.stringify(exitStateToJson(x.state)),
      history: JSON.stringify(x.history.map(exitStateToJson)), movementId: x.movementId, lockId: x.lockId, createdAtMs: BigInt(x.createdAtMs),
    };
    const r = await em.findOne(ExitVtxoRow, { vtxoId: x.vtxoId });
    if (r) Object.assign(r, values);
    else em.create(ExitVtxoRow, { vtxoId: x.vtxoId, ...values });
    await em.flush();
  }

  async nextSeq(): Promise<number> {
    const [last] = await this.db.em().find(ExitVtxoRow, {}, { orderBy: { seq: "desc" }, limit: 1 });
    return (last?.seq ?? 0) + 1;
  }

  async children(exitTxid?: string): Promise<ExitChildRecord[]> {
    const rows = await this.db.em().find(ExitChildRow, exitTxid === undefined ? {} : { exitTxid }, { orderBy: { createdAtMs: "asc", childTxid: "asc" } });
    return rows.map(toChild);
  }

  async saveChild(c: ExitChildRecord): Promise<void> {
    const em = this.db.em();
    const values = { exitTxid: c.exitTxid, hex: c.hex, feeSat: c.feeSat, vsize: c.vsize, ours: c.ours, origin: JSON.stringify(originToJson(c.origin)), status: c.status, createdAtMs: BigInt(c.createdAtMs) };
    const r = await em.findOne(ExitChildRow, { childTxid: c.childTxid });
    if (r) Object.assign(r, values);
    else em.create(ExitChildRow, { childTxid: c.childTxid, ...values });
    await em.flush();
  }

  async claims(): Promise<ExitClaimRecord[]> {
    return (await this.db.em().find(ExitClaimRow, {}, { orderBy: { createdAtMs: "asc", txid: "asc" } })).map(toClaim);
  }

  async saveClaim(c: ExitClaimRecord): Promise<void> {
    const em = this.db.em();
    const values = {
      hex: c.hex, vtxoIds: JSON.stringify(c.vtxoIds), feeSat: c.feeSat, ownDestination: c.ownDestination, status: c.status, createdAtMs: BigInt(c.createdAtMs),
    };
    const r = await em.findOne(ExitClaimRow, { txid: c.txid });
    if (r) Object.assign(r, values);
    else em.create(ExitClaimRow, { txid: c.txid, ...values });
    await em.flush();
  }

  async preimage(paymentHash: string): Promise<string | undefined> {
    return (await this.db.em().findOne(ExitPreimageRow, { paymentHash }))?.preimage;
  }

  async savePreimage(paymentHash: string, preimage: string): Promise<void> {
    const em = this.db.em();
    if (await em.findOne(ExitPreimageRow, { paymentHash })) return;
    em.create(ExitPreimageRow, { paymentHash, preimage });
    await em.flush();
  }
}
