import { Router, type Request } from "express";
import type { Destination, DevnetNode, ScriptStats } from "../node/devnet-node.js";
import { statsJson, txJson, utxoJson } from "./esplora-json.js";
import { EsploraHttpError, hashParam } from "./esplora-errors.js";
import type { ScriptHashIndex } from "./script-hash-index.js";

/** Esplora pages: up to 50 mempool transactions, then confirmed ones 25 at a time. */
const MEMPOOL_PAGE = 50;
const CHAIN_PAGE = 25;
const EMPTY_STATS: ScriptStats = { fundedTxoCount: 0, fundedTxoSumSat: 0n, spentTxoCount: 0, spentTxoSumSat: 0n, txCount: 0 };

/** Esplora's `/address/:address/*` and `/scripthash/:hash/*` paths. */
export function scriptRoutes(node: DevnetNode, index: ScriptHashIndex): Router {
  const r = Router();
  for (const kind of ["address", "scripthash"] as const) {
    /** `undefined` for a script hash no output ever paid: every list is then empty. */
    const dest = (req: Request): Destination | undefined => {
      const id = String(req.params.id);
      return kind === "address" ? id : index.lookup(hashParam(id));
    };
    const history = (req: Request) => {
      const d = dest(req);
      return d === undefined ? [] : node.historyForScript(d);
    };
    const base = `/${kind}/:id`;
    r.get(base, (req, res) => {
      const d = dest(req);
      const stats = d === undefined ? { chain: EMPTY_STATS, mempool: EMPTY_STATS } : node.scriptStats(d);
      const id = kind === "address" ? { address: req.params.id } : { scripthash: req.params.id };
      res.json({ ...id, chain_stats: statsJson(stats.chain), mempool_stats: statsJson(stats.mempool) });
    });
    r.get(`${base}/utxo`, (req, res) => {
      const d = dest(req);
      res.json(d === undefined ? [] : node.utxosForScript(d).map(utxoJson));
    });
    r.get(`${base}/txs`, (req, res) => {
      const all = history(req);
      const mempool = all.filter((t) => !t.status.confirmed).slice(0, MEMPOOL_PAGE);
      const chain = all.filter((t) => t.status.confirmed).slice(0, CHAIN_PAGE);
      res.json([...mempool, ...chain].map(txJson));
    });
    r.get(`${base}/txs/mempool`, (req, res) => {
      res.json(history(req).filter((t) => !t.status.confirmed).slice(0, MEMPOOL_PAGE).map(txJson));
    });
    r.get(`${base}/txs/chain{/:last}`, (req, res) => {
      const chain = history(req).filter((t) => t.status.confirmed);
      let start = 0;
      if (req.params.last !== undefined) {
        const last = hashParam(req.params.last);
        const at = chain.findIndex((t) => t.txid === last);
        if (at < 0) throw new EsploraHttpError(400, "last_seen_txid not found in history");
        start = at + 1;
      }
      res.json(chain.slice(start, start + CHAIN_PAGE).map(txJson));
    });
  }
  return r;
}
