import { createHash } from "node:crypto";
import {
  assertHash,
  assertIndex,
  ChainSourceInvalidRequestError,
  ChainSourceProtocolError,
  ChainSourceRejectedError,
  feeRateForTarget,
  networkFromGenesisHash,
  parseBlockHeaderHex,
  parseSubmitPackageResult,
  redactUrl,
  type BlockHeader,
  type BlockRef,
  type ChainNetwork,
  type ChainSource,
  type ChainTx,
  type FeeEstimates,
  type OutputSpend,
  type PackageBroadcastResult,
  type ScriptQuery,
  type ScriptTx,
  type ScriptUtxo,
  type TxStatus,
} from "@tender/core";
import { EsploraHttp, snippet, type EsploraHttpOptions } from "./esplora-http.js";
import { EsploraWire } from "./esplora-wire.js";
import { parseRejection } from "./esplora-rejection.js";

/** Settings of an {@link EsploraChainSource}. */
export interface EsploraChainSourceOptions extends EsploraHttpOptions {
  /** The network to report when the server's genesis block is not a well-known one (custom chains). */
  readonly network?: ChainNetwork;
}

/** Esplora pages confirmed history 25 transactions at a time. */
const CHAIN_PAGE = 25;

/**
 * {@link ChainSource} over an Esplora REST API (Blockstream esplora/electrs, mempool.space,
 * the devnet's Esplora face). Package broadcast uses mempool.space's `POST /txs/package`.
 */
export class EsploraChainSource implements ChainSource {
  readonly label: string;
  private readonly http: EsploraHttp;
  private readonly wire: EsploraWire;

  constructor(private readonly options: EsploraChainSourceOptions) {
    this.label = redactUrl(options.url);
    this.http = new EsploraHttp(this.label, options);
    this.wire = new EsploraWire(this.label);
  }

  async getNetwork(): Promise<ChainNetwork> {
    const genesis = await this.http.getText("/block-height/0");
    const known = genesis === null ? null : networkFromGenesisHash(genesis);
    const network = known ?? this.options.network;
    if (!network) throw new ChainSourceProtocolError(this.label, `unknown genesis block ${genesis ?? "(none)"}; set the network explicitly`);
    return network;
  }

  async getTip(): Promise<BlockRef> {
    const hash = await this.http.getText("/blocks/tip/hash");
    if (hash === null) throw new ChainSourceProtocolError(this.label, "no tip");
    const block = this.wire.obj(await this.http.getJson(`/block/${hash}`), "block");
    return { hash, height: this.wire.int(block.height, "block.height") };
  }

  async getBlockHash(height: number): Promise<string | null> {
    assertIndex(this.label, height, "height");
    return this.http.getText(`/block-height/${height}`);
  }

  async getBlockHeader(hash: string): Promise<BlockHeader | null> {
    assertHash(this.label, hash, "block hash");
    const block = await this.http.getJson(`/block/${hash}`);
    if (block === null) return null;
    const height = this.wire.int(this.wire.obj(block, "block").height, "block.height");
    const headerHex = await this.http.getText(`/block/${hash}/header`);
    if (headerHex === null) return null;
    const header = parseBlockHeaderHex(headerHex, hash, height);
    if (!header) throw new ChainSourceProtocolError(this.label, `malformed header of block ${hash}`);
    return header;
  }

  async getBlockTxids(hash: string): Promise<string[] | null> {
    assertHash(this.label, hash, "block hash");
    const ids = await this.http.getJson(`/block/${hash}/txids`);
    if (ids === null) return null;
    return this.wire.arr(ids, "txids").map((t) => this.wire.str(t, "txid"));
  }

  async getRawBlock(hash: string): Promise<string | null> {
    assertHash(this.label, hash, "block hash");
    return this.http.getBinaryHex(`/block/${hash}/raw`);
  }

  async getTx(txid: string): Promise<ChainTx | null> {
    assertHash(this.label, txid, "txid");
    const hex = await this.http.getText(`/tx/${txid}/hex`);
    if (hex === null) return null;
    const status = await this.getTxStatus(txid);
    return status === null ? null : { txid, hex, status };
  }

  async getTxStatus(txid: string): Promise<TxStatus | null> {
    assertHash(this.label, txid, "txid");
    const status = await this.http.getJson(`/tx/${txid}/status`);
    return status === null ? null : this.wire.status(status);
  }

  async isInMempool(txid: string): Promise<boolean> {
    const status = await this.getTxStatus(txid);
    return status !== null && !status.confirmed;
  }

  async getOutspend(txid: string, vout: number): Promise<OutputSpend> {
    assertHash(this.label, txid, "txid");
    assertIndex(this.label, vout, "vout");
    const spend = await this.http.getJson(`/tx/${txid}/outspend/${vout}`);
    return spend === null ? { spent: false } : this.wire.outspend(spend);
  }

  async getOutspends(txid: string): Promise<OutputSpend[] | null> {
    assertHash(this.label, txid, "txid");
    const list = await this.http.getJson(`/tx/${txid}/outspends`);
    if (list === null) return null;
    const spends = this.wire.arr(list, "outspends").map((s) => this.wire.outspend(s));
    // Esplora answers [] for an unknown transaction; every real transaction has an output.
    if (spends.length === 0) return null;
    return spends;
  }

  async getScriptUtxos(query: ScriptQuery): Promise<ScriptUtxo[]> {
    const list = await this.http.getJson(`${this.scriptPath(query)}/utxo`);
    if (list === null) return [];
    return this.wire.arr(list, "utxo list").map((u) => this.wire.utxo(u));
  }

  async getScriptHistory(query: ScriptQuery): Promise<ScriptTx[]> {
    const base = this.scriptPath(query);
    const first = await this.http.getJson(`${base}/txs`);
    if (first === null) return [];
    const out = this.wire.arr(first, "tx list").map((t) => this.wire.historyTx(t));
    let page = out.filter((t) => t.status.confirmed);
    while (page.length >= CHAIN_PAGE) {
      const last = page[page.length - 1]!.txid;
      const next = await this.http.getJson(`${base}/txs/chain/${last}`);
      page = next === null ? [] : this.wire.arr(next, "tx list").map((t) => this.wire.historyTx(t));
      out.push(...page);
    }
    return out;
  }

  async getFeeEstimates(targets?: readonly number[]): Promise<FeeEstimates> {
    const raw = this.wire.obj(await this.http.getJson("/fee-estimates"), "fee estimates");
    const all = new Map<number, number>();
    for (const [k, v] of Object.entries(raw)) {
      const target = Number(k);
      if (Number.isSafeInteger(target) && target > 0 && typeof v === "number" && Number.isFinite(v) && v > 0) all.set(target, v);
    }
    if (!targets) return all;
    const picked = new Map<number, number>();
    for (const t of targets) {
      const rate = feeRateForTarget(all, t);
      if (rate !== null) picked.set(t, rate);
    }
    return picked;
  }

  async broadcast(txHex: string): Promise<string> {
    assertTxHex(this.label, txHex);
    const reply = await this.http.request("POST", "/tx", { text: txHex, type: "text/plain" });
    if (reply.status === 200) {
      const txid = reply.text().trim();
      assertHash(this.label, txid, "returned txid");
      return txid;
    }
    if (reply.status === 400) {
      const { reason, code } = parseRejection(reply.text());
      throw new ChainSourceRejectedError(this.label, reason, code);
    }
    throw this.http.unexpected("POST", "/tx", reply);
  }

  async broadcastPackage(txHexes: readonly string[]): Promise<PackageBroadcastResult> {
    if (txHexes.length === 0) throw new ChainSourceInvalidRequestError(this.label, "empty package");
    for (const hex of txHexes) assertTxHex(this.label, hex);
    const reply = await this.http.request("POST", "/txs/package", { text: JSON.stringify(txHexes), type: "application/json" });
    if (reply.status === 404) throw new ChainSourceProtocolError(this.label, "this Esplora server has no package submission (POST /txs/package)");
    if (reply.status === 400) {
      const { reason, code } = parseRejection(reply.text());
      throw new ChainSourceRejectedError(this.label, reason, code);
    }
    if (reply.status !== 200) throw this.http.unexpected("POST", "/txs/package", reply);
    let body: unknown;
    try {
      body = JSON.parse(reply.text());
    } catch {
      throw new ChainSourceProtocolError(this.label, `package reply is not JSON: ${snippet(reply.text())}`);
    }
    return parseSubmitPackageResult(this.label, body, txHexes.length);
  }

  /** `/address/<addr>` or `/scripthash/<sha256 of the script, reversed>`. */
  private scriptPath(query: ScriptQuery): string {
    if ("address" in query) {
      if (!/^[0-9a-zA-Z]{14,90}$/.test(query.address)) throw new ChainSourceInvalidRequestError(this.label, "malformed address");
      return `/address/${query.address}`;
    }
    if (!/^([0-9a-fA-F]{2})*$/.test(query.scriptPubKeyHex)) throw new ChainSourceInvalidRequestError(this.label, "scriptPubKey must be hex");
    const digest = createHash("sha256").update(Buffer.from(query.scriptPubKeyHex, "hex")).digest();
    return `/scripthash/${Buffer.from(digest).reverse().toString("hex")}`;
  }
}

function assertTxHex(label: string, hex: string): void {
  if (!/^([0-9a-fA-F]{2})+$/.test(hex)) throw new ChainSourceInvalidRequestError(label, "transaction must be non-empty hex");
}
