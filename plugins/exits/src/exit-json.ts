/**
 * barkd's exit JSON: `ExitTxOrigin`, `FeeInfo`, `ExitTransactionPackage` and
 * `ExitTransactionStatus`. States use the protocol core's serde form (`exitStateToJson`).
 */
import { exitStateToJson, type BlockRef, type ExitTxOrigin } from "@tender/ark-protocol";
import type { ExitChildRecord, ExitRecord } from "./exit-records.js";

type Json = Record<string, unknown>;

const block = (b: BlockRef): Json => ({ height: b.height, hash: b.hash });

function blockFrom(v: unknown): BlockRef {
  const o = v as { height?: unknown; hash?: unknown };
  if (typeof o?.height !== "number" || typeof o.hash !== "string") throw new Error("malformed block reference");
  return { height: o.height, hash: o.hash };
}

export function originToJson(o: ExitTxOrigin): Json {
  if (o.type === "wallet") return { type: "wallet", confirmed_in: o.confirmedIn ? block(o.confirmedIn) : null };
  if (o.type === "mempool") return { type: "mempool" };
  return { type: "block", confirmed_in: block(o.confirmedIn) };
}

export function originFromJson(v: unknown): ExitTxOrigin {
  const o = v as { type?: unknown; confirmed_in?: unknown };
  if (o?.type === "wallet") return { type: "wallet", confirmedIn: o.confirmed_in ? blockFrom(o.confirmed_in) : null };
  if (o?.type === "mempool") return { type: "mempool" };
  if (o?.type === "block") return { type: "block", confirmedIn: blockFrom(o.confirmed_in) };
  throw new Error(`unknown exit tx origin ${String(o?.type)}`);
}

/** The package's fee: the child pays for itself and its zero-fee parent. */
export function packageFee(child: Pick<ExitChildRecord, "feeSat" | "vsize">, parentVsize: number): { totalFeeSat: bigint; satPerKvb: bigint } {
  const vsize = BigInt(parentVsize + child.vsize);
  return { totalFeeSat: child.feeSat, satPerKvb: (child.feeSat * 1000n) / vsize };
}

/** One exit tx with the child carrying it (barkd's `ExitTransactionPackage`). */
export interface ExitPackageView {
  readonly txid: string;
  readonly hex: string;
  readonly vsize: number;
  readonly child: ExitChildRecord | undefined;
}

export function packageJson(p: ExitPackageView): Json {
  const child = p.child;
  return {
    exit: { txid: p.txid, tx: p.hex },
    child: child
      ? {
        info: { txid: child.childTxid, tx: child.hex },
        ...(child.feeSat >= 0n ? { fee_info: { fee_rate_sat_per_kvb: Number(packageFee(child, p.vsize).satPerKvb), total_fee_sat: Number(child.feeSat) } } : {}),
        origin: originToJson(child.origin),
      }
      : null,
  };
}

/** barkd's `ExitTransactionStatus`: `history` only when asked, `transactions` only when asked and non-empty. */
export function exitStatusJson(r: ExitRecord, opts: { history: boolean; packages?: readonly ExitPackageView[] }): Json {
  return {
    vtxo_id: r.vtxoId,
    state: exitStateToJson(r.state),
    ...(opts.history ? { history: r.history.map(exitStateToJson) } : {}),
    ...(opts.packages && opts.packages.length > 0 ? { transactions: opts.packages.map(packageJson) } : {}),
  };
}
