import express, { Router } from "express";
import { InvalidInputError, PolicyError, type DevnetNode } from "../node/devnet-node.js";
import { toCoreJson } from "../rpc/core-amount.js";
import { submitPackageJson } from "../rpc/core-json.js";
import { rpcErrorForPolicy } from "../rpc/rpc-error.js";
import { EsploraHttpError } from "./esplora-errors.js";

/** Targets Esplora's `/fee-estimates` reports. */
export const ESPLORA_FEE_TARGETS: readonly number[] = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];

/** Esplora's 400 body for a refused broadcast: `<rpc> RPC error: {"code":…,"message":…}`. */
function rpcFailure(rpc: string, code: number, message: string): EsploraHttpError {
  return new EsploraHttpError(400, `${rpc} RPC error: ${JSON.stringify({ code, message })}`);
}

/** Broadcast, package submission, fee estimates and mempool paths. */
export function mempoolRoutes(node: DevnetNode): Router {
  const r = Router();
  const text = express.text({ type: () => true, limit: "8mb" });

  r.post("/tx", text, (req, res) => {
    const hex = typeof req.body === "string" ? req.body.trim() : "";
    try {
      res.type("text/plain").send(node.submitTransaction(hex));
    } catch (err) {
      if (err instanceof PolicyError) {
        const e = rpcErrorForPolicy(err);
        throw rpcFailure("sendrawtransaction", e.code, e.message);
      }
      if (err instanceof InvalidInputError) throw rpcFailure("sendrawtransaction", -22, `TX decode failed. ${err.message}`);
      throw err;
    }
  });

  r.post("/txs/package", text, (req, res) => {
    let list: unknown;
    try {
      list = JSON.parse(typeof req.body === "string" ? req.body : "");
    } catch {
      throw new EsploraHttpError(400, "Invalid JSON body: expected an array of transaction hex strings");
    }
    if (!Array.isArray(list) || list.length < 1 || list.length > 25 || !list.every((x) => typeof x === "string")) {
      throw new EsploraHttpError(400, "Expected an array of 1 to 25 transaction hex strings");
    }
    try {
      res.type("application/json").send(toCoreJson(submitPackageJson(node.submitPackage(list as string[]))));
    } catch (err) {
      if (err instanceof PolicyError) throw rpcFailure("submitpackage", /topology|sorted|child-with/i.test(err.reason) ? -8 : -25, err.message);
      if (err instanceof InvalidInputError) throw rpcFailure("submitpackage", -22, `TX decode failed. ${err.message}`);
      throw err;
    }
  });

  r.get("/fee-estimates", (_req, res) => {
    const out: Record<string, number> = {};
    for (const t of ESPLORA_FEE_TARGETS) out[String(t)] = node.estimateFeeRate(t);
    res.json(out);
  });

  r.get("/mempool", (_req, res) => {
    const info = node.mempoolInfo();
    const entries = node.getRawMempool().flatMap((id) => {
      const e = node.getMempoolEntry(id);
      return e ? [e] : [];
    });
    const histogram = entries
      .map((e) => [Number(e.feeSat) / e.vsize, e.vsize] as [number, number])
      .sort((a, b) => b[0] - a[0]);
    res.json({ count: info.size, vsize: info.bytes, total_fee: Number(info.totalFeeSat), fee_histogram: histogram });
  });
  r.get("/mempool/txids", (_req, res) => void res.json(node.getRawMempool()));
  r.get("/mempool/recent", (_req, res) => {
    const recent = node.getRawMempool().slice(-10).reverse().flatMap((id) => {
      const tx = node.getTransaction(id);
      if (!tx) return [];
      const value = tx.vout.reduce((s, o) => s + o.amountSat, 0n);
      return [{ txid: id, fee: Number(tx.feeSat ?? 0n), vsize: tx.vsize, value: Number(value) }];
    });
    res.json(recent);
  });
  return r;
}
