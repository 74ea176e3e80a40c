import express, { Router } from "express";
import type { DevnetNode } from "../node/devnet-node.js";
import { EsploraHttpError } from "./esplora-errors.js";

/** Path prefix of the devnet's control API on the Esplora server. */
export const CONTROL_PREFIX = "/devnet";

function body(req: express.Request): Record<string, unknown> {
  return typeof req.body === "object" && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
}

function optString(b: Record<string, unknown>, key: string): string | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" || v.length === 0) throw new EsploraHttpError(400, `${key} must be a non-empty string`);
  return v;
}

function reqString(b: Record<string, unknown>, key: string): string {
  const v = optString(b, key);
  if (v === undefined) throw new EsploraHttpError(400, `${key} is required`);
  return v;
}

function positiveInt(v: unknown, key: string, fallback: number, max: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0 || v > max) throw new EsploraHttpError(400, `${key} must be an integer between 0 and ${max}`);
  return v;
}

/**
 * Test and people controls, JSON in and out (mounted under {@link CONTROL_PREFIX}):
 * `GET /info`, `POST /mine {blocks?, address?}`, `POST /mine-transactions {txs, address?}`,
 * `POST /faucet {address, amount_sat}`, `GET|POST /fee-estimates {"<target>": satPerVb}`,
 * `POST /evict {txid}`, `POST /replace-confirmed {txid, conflict_hex?}`, `POST /advance-time {seconds}`.
 */
export function controlRoutes(node: DevnetNode): Router {
  const r = Router();
  r.use(express.json({ limit: "8mb" }));
  r.get("/info", (_req, res) => {
    res.json({ network: node.network, tip_height: node.tipHeight(), tip_hash: node.tipHash(), faucet_address: node.faucetAddress(), mempool_size: node.getRawMempool().length });
  });
  r.post("/mine", (req, res) => {
    const b = body(req);
    const hashes = node.mine(positiveInt(b.blocks, "blocks", 1, 10_000), optString(b, "address"));
    res.json({ hashes, tip_height: node.tipHeight() });
  });
  r.post("/mine-transactions", (req, res) => {
    const b = body(req);
    const txs = b.txs;
    if (!Array.isArray(txs) || !txs.every((t) => typeof t === "string")) throw new EsploraHttpError(400, "txs must be an array of hex strings");
    res.json({ hash: node.mineTransactions(txs as string[], optString(b, "address")) });
  });
  r.post("/faucet", (req, res) => {
    const b = body(req);
    const amount = b.amount_sat;
    if (typeof amount !== "number" || !Number.isSafeInteger(amount) || amount <= 0) throw new EsploraHttpError(400, "amount_sat must be a positive integer");
    res.json({ txid: node.faucet(reqString(b, "address"), BigInt(amount)) });
  });
  r.get("/fee-estimates", (_req, res) => void res.json(node.feeEstimates()));
  r.post("/fee-estimates", (req, res) => {
    const table: Record<number, number> = {};
    for (const [k, v] of Object.entries(body(req))) {
      const target = Number(k);
      if (!Number.isSafeInteger(target) || target < 1 || target > 1008) throw new EsploraHttpError(400, `invalid target ${k}`);
      if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) throw new EsploraHttpError(400, `fee rate for ${k} must be a positive number (sat/vB)`);
      table[target] = v;
    }
    if (Object.keys(table).length === 0) throw new EsploraHttpError(400, "give at least one target");
    node.setFeeEstimates(table);
    res.json(node.feeEstimates());
  });
  r.post("/evict", (req, res) => void res.json({ removed: node.evict(reqString(body(req), "txid")) }));
  r.post("/replace-confirmed", (req, res) => {
    const b = body(req);
    const out = node.replaceWithConfirmedConflict(reqString(b, "txid"), optString(b, "conflict_hex"));
    res.json({ block_hash: out.blockHash, conflict_txid: out.conflictTxid, removed: out.removed });
  });
  r.post("/advance-time", (req, res) => {
    node.advanceTime(positiveInt(body(req).seconds, "seconds", 0, 10 * 365 * 86_400));
    res.json({ ok: true });
  });
  return r;
}
