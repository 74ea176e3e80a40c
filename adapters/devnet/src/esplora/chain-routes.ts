import { Router } from "express";
import type { BlockInfo, DevnetNode, TxInfo } from "../node/devnet-node.js";
import { blockJson, outspendJson, statusJson, txJson } from "./esplora-json.js";
import { hashParam, intParam, notFound } from "./esplora-errors.js";
import { merkleProof } from "./merkle-proof.js";

/** Esplora's block and transaction paths. */
export function chainRoutes(node: DevnetNode): Router {
  const r = Router();
  const block = (hash: string): BlockInfo => {
    const b = node.getBlock(hash);
    if (!b) throw notFound("Block");
    return b;
  };
  const tx = (txid: string): TxInfo => {
    const t = node.getTransaction(txid);
    if (!t) throw notFound("Transaction");
    return t;
  };

  r.get("/blocks/tip/height", (_req, res) => void res.type("text/plain").send(String(node.tipHeight())));
  r.get("/blocks/tip/hash", (_req, res) => void res.type("text/plain").send(node.tipHash()));
  r.get("/blocks{/:start}", (req, res) => {
    const start = req.params.start === undefined ? node.tipHeight() : intParam(req.params.start, "height");
    const out: unknown[] = [];
    for (let h = Math.min(start, node.tipHeight()); h >= 0 && out.length < 10; h--) {
      const header = node.getBlockHeader(node.blockHashAt(h)!);
      if (header) out.push(blockJson(header));
    }
    res.json(out);
  });
  r.get("/block-height/:height", (req, res) => {
    const hash = node.blockHashAt(intParam(req.params.height, "height"));
    if (hash === undefined) throw notFound("Block");
    res.type("text/plain").send(hash);
  });
  r.get("/block/:hash", (req, res) => void res.json(blockJson(block(hashParam(req.params.hash)))));
  r.get("/block/:hash/header", (req, res) => {
    res.type("text/plain").send(Buffer.from(block(hashParam(req.params.hash)).rawHeader).toString("hex"));
  });
  r.get("/block/:hash/status", (req, res) => {
    const b = node.getBlockHeader(hashParam(req.params.hash));
    if (!b) return void res.json({ in_best_chain: false });
    res.json({ in_best_chain: true, height: b.height, next_best: b.nextHash ?? null });
  });
  r.get("/block/:hash/txids", (req, res) => void res.json(block(hashParam(req.params.hash)).txids));
  r.get("/block/:hash/txid/:index", (req, res) => {
    const id = block(hashParam(req.params.hash)).txids[intParam(req.params.index, "index")];
    if (id === undefined) throw notFound("Transaction");
    res.type("text/plain").send(id);
  });
  r.get("/block/:hash/txs{/:start}", (req, res) => {
    const b = block(hashParam(req.params.hash));
    const start = req.params.start === undefined ? 0 : intParam(req.params.start, "start index");
    if (start % 25 !== 0) throw notFound("Block"); // Esplora requires multiples of 25
    // Esplora leaves `status` out here: every transaction shares the block's.
    res.json(b.txids.slice(start, start + 25).map((id) => {
      const { status: _status, ...rest } = txJson(tx(id));
      return rest;
    }));
  });
  r.get("/block/:hash/raw", (req, res) => {
    res.type("application/octet-stream").send(Buffer.from(block(hashParam(req.params.hash)).raw));
  });

  r.get("/tx/:txid", (req, res) => void res.json(txJson(tx(hashParam(req.params.txid)))));
  r.get("/tx/:txid/hex", (req, res) => void res.type("text/plain").send(Buffer.from(tx(hashParam(req.params.txid)).raw).toString("hex")));
  r.get("/tx/:txid/raw", (req, res) => void res.type("application/octet-stream").send(Buffer.from(tx(hashParam(req.params.txid)).raw)));
  r.get("/tx/:txid/merkle-proof", (req, res) => {
    const t = tx(hashParam(req.params.txid));
    const hash = t.status.blockHash;
    if (!t.status.confirmed || hash === undefined) throw notFound("Transaction");
    const proof = merkleProof(block(hash).txids, t.txid);
    if (!proof) throw notFound("Transaction");
    res.json({ block_height: t.status.blockHeight, merkle: proof.merkle, pos: proof.pos });
  });
  r.get("/tx/:txid/status", (req, res) => {
    const status = node.getTxStatus(hashParam(req.params.txid));
    if (!status) throw notFound("Transaction");
    res.json(statusJson(status));
  });
  r.get("/tx/:txid/outspends", (req, res) => {
    res.json((node.getOutspends(hashParam(req.params.txid)) ?? []).map(outspendJson));
  });
  r.get("/tx/:txid/outspend/:vout", (req, res) => {
    const o = node.getOutspend(hashParam(req.params.txid), intParam(req.params.vout, "vout"));
    res.json(outspendJson(o ?? { spent: false }));
  });
  return r;
}
