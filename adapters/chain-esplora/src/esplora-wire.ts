import { ChainSourceProtocolError, type OutputSpend, type ScriptTx, type ScriptUtxo, type TxStatus } from "@tender/core";

/** Reads Esplora JSON shapes into the kernel's types, failing loudly on anything unexpected. */
export class EsploraWire {
  constructor(private readonly label: string) {}

  fail(what: string): never {
    throw new ChainSourceProtocolError(this.label, `malformed ${what}`);
  }

  obj(v: unknown, what: string): Record<string, unknown> {
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(what);
    return v as Record<string, unknown>;
  }

  arr(v: unknown, what: string): unknown[] {
    if (!Array.isArray(v)) this.fail(what);
    return v;
  }

  str(v: unknown, what: string): string {
    if (typeof v !== "string") this.fail(what);
    return v;
  }

  int(v: unknown, what: string): number {
    if (typeof v !== "number" || !Number.isSafeInteger(v)) this.fail(what);
    return v;
  }

  /** `{confirmed, block_height, block_hash, block_time}` */
  status(v: unknown): TxStatus {
    const o = this.obj(v, "tx status");
    if (o.confirmed === false) return { confirmed: false };
    if (o.confirmed !== true) this.fail("tx status");
    return {
      confirmed: true,
      block: { height: this.int(o.block_height, "status.block_height"), hash: this.str(o.block_hash, "status.block_hash") },
      blockTime: this.int(o.block_time, "status.block_time"),
    };
  }

  /** `{spent, txid?, vin?, status?}` */
  outspend(v: unknown): OutputSpend {
    const o = this.obj(v, "outspend");
    if (o.spent === false) return { spent: false };
    if (o.spent !== true) this.fail("outspend");
    return { spent: true, txid: this.str(o.txid, "outspend.txid"), vin: this.int(o.vin, "outspend.vin"), status: this.status(o.status) };
  }

  /** `{txid, vout, value, status}` */
  utxo(v: unknown): ScriptUtxo {
    const o = this.obj(v, "utxo");
    return {
      txid: this.str(o.txid, "utxo.txid"),
      vout: this.int(o.vout, "utxo.vout"),
      valueSat: BigInt(this.int(o.value, "utxo.value")),
      status: this.status(o.status),
    };
  }

  /** A full Esplora transaction object; only its txid and status are kept. */
  historyTx(v: unknown): ScriptTx {
    const o = this.obj(v, "transaction");
    return { txid: this.str(o.txid, "transaction.txid"), status: this.status(o.status) };
  }
}
