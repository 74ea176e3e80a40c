import {
  assertHash,
  assertIndex,
  ChainSourceInvalidRequestError,
  ChainSourceProtocolError,
  ChainSourceRejectedError,
  networkFromBitcoindChain,
  parseBlockHeaderHex,
  parseSubmitPackageResult,
  redactUrl,
  STANDARD_FEE_TARGETS,
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
import { BitcoindRpc, BitcoindRpcError, RpcCode, type BitcoindRpcOptions } from "./bitcoind-rpc.js";
import { BlockReader, compactTx, type CompactTx } from "./compact-block.js";
import { scanScript, type ScriptScanResult } from "./script-scan.js";
import { findConfirmedSpend } from "./spend-search.js";

/** Settings of a {@link BitcoindChainSource}. */
export interface BitcoindChainSourceOptions extends BitcoindRpcOptions {
  /** First block scanned for script UTXOs and history (the wallet's birthday). Default 0. */
  readonly scanStartHeight?: number;
  /** Most blocks searched after an output's block to find its confirmed spender. Default 10 000. */
  readonly maxSpendSearchBlocks?: number;
}

/** Reasons bitcoind gives for refusing a transaction are these RPC codes. */
const REJECTION_CODES: ReadonlySet<number> = new Set([RpcCode.DESERIALIZATION, RpcCode.VERIFY_ERROR, RpcCode.VERIFY_REJECTED, RpcCode.VERIFY_ALREADY_IN_CHAIN, RpcCode.INVALID_PARAMETER]);

/**
 * {@link ChainSource} over bitcoind's JSON-RPC (Bitcoin Core 28+ shapes; `txindex=1`
 * required for lookups of arbitrary transactions). bitcoind has no address index, so script
 * UTXOs and history come from scanning blocks from `scanStartHeight` plus the mempool, and a
 * confirmed spender is found by scanning blocks after the spent output's block.
 */
export class BitcoindChainSource implements ChainSource {
  readonly label: string;
  private readonly rpc: BitcoindRpc;
  private readonly blocks: BlockReader;
  private readonly mempoolCache = new Map<string, CompactTx>();

  constructor(private readonly options: BitcoindChainSourceOptions) {
    this.label = redactUrl(options.url);
    this.rpc = new BitcoindRpc(this.label, options);
    this.blocks = new BlockReader(this.rpc);
  }

  /** The underlying RPC client, for calls outside the {@link ChainSource} surface. */
  get client(): BitcoindRpc {
    return this.rpc;
  }

  async getNetwork(): Promise<ChainNetwork> {
    const info = (await this.rpc.call("getblockchaininfo")) as { chain?: unknown };
    const network = typeof info.chain === "string" ? networkFromBitcoindChain(info.chain) : null;
    if (!network) throw new ChainSourceProtocolError(this.label, `unknown chain ${String(info.chain)}`);
    return network;
  }

  async getTip(): Promise<BlockRef> {
    const info = (await this.rpc.call("getblockchaininfo")) as { blocks?: unknown; bestblockhash?: unknown };
    if (typeof info.blocks !== "number" || typeof info.bestblockhash !== "string") throw new ChainSourceProtocolError(this.label, "malformed getblockchaininfo");
    return { height: info.blocks, hash: info.bestblockhash };
  }

  async getBlockHash(height: number): Promise<string | null> {
    assertIndex(this.label, height, "height");
    return this.nullIf(RpcCode.INVALID_PARAMETER, async () => String(await this.rpc.call("getblockhash", [height])));
  }

  async getBlockHeader(hash: string): Promise<BlockHeader | null> {
    assertHash(this.label, hash, "block hash");
    const [verbose, hex] = await this.rpc.batch([
      { method: "getblockheader", params: [hash, true] },
      { method: "getblockheader", params: [hash, false] },
    ]);
    if (!verbose || !hex) throw new ChainSourceProtocolError(this.label, "short batch reply");
    if (!verbose.ok) return this.notFound(verbose.error);
    if (!hex.ok) return this.notFound(hex.error);
    const height = (verbose.result as { height?: unknown }).height;
    if (typeof height !== "number") throw new ChainSourceProtocolError(this.label, "getblockheader lacks height");
    const header = parseBlockHeaderHex(String(hex.result), hash, height);
    if (!header) throw new ChainSourceProtocolError(this.label, "getblockheader returned a malformed header");
    return header;
  }

  async getBlockTxids(hash: string): Promise<string[] | null> {
    assertHash(this.label, hash, "block hash");
    return this.nullIf(RpcCode.INVALID_ADDRESS_OR_KEY, async () => {
      const block = (await this.rpc.call("getblock", [hash, 1])) as { tx?: unknown };
      if (!Array.isArray(block.tx)) throw new ChainSourceProtocolError(this.label, "getblock lacks tx");
      return block.tx.map(String);
    });
  }

  async getRawBlock(hash: string): Promise<string | null> {
    assertHash(this.label, hash, "block hash");
    return this.nullIf(RpcCode.INVALID_ADDRESS_OR_KEY, async () => String(await this.rpc.call("getblock", [hash, 0])));
  }

  async getTx(txid: string): Promise<ChainTx | null> {
    const found = await this.verboseTx(txid);
    if (!found) return null;
    const status = await this.statusOf(found);
    return status === null ? null : { txid, hex: String(found.hex), status };
  }

  async getTxStatus(txid: string): Promise<TxStatus | null> {
    const found = await this.verboseTx(txid);
    return found ? this.statusOf(found) : null;
  }

  async isInMempool(txid: string): Promise<boolean> {
    assertHash(this.label, txid, "txid");
    const entry = await this.nullIf(RpcCode.INVALID_ADDRESS_OR_KEY, () => this.rpc.call("getmempoolentry", [txid]));
    return entry !== null;
  }

  async getOutspend(txid: string, vout: number): Promise<OutputSpend> {
    assertIndex(this.label, vout, "vout");
    const spends = await this.outspendsOf(txid, [vout]);
    return spends?.[0] ?? { spent: false };
  }

  async getOutspends(txid: string): Promise<OutputSpend[] | null> {
    return this.outspendsOf(txid, null);
  }

  async getScriptUtxos(query: ScriptQuery): Promise<ScriptUtxo[]> {
    return (await this.scan(query)).utxos;
  }

  async getScriptHistory(query: ScriptQuery): Promise<ScriptTx[]> {
    return (await this.scan(query)).history;
  }

  async getFeeEstimates(targets: readonly number[] = STANDARD_FEE_TARGETS): Promise<FeeEstimates> {
    const outs = await this.rpc.batch(targets.map((t) => ({ method: "estimatesmartfee", params: [t] })));
    const rates = new Map<number, number>();
    outs.forEach((out, i) => {
      if (!out.ok) throw out.error;
      const feerate = (out.result as { feerate?: unknown }).feerate;
      // BTC/kvB → sat/vB
      if (typeof feerate === "number" && feerate > 0) rates.set(targets[i]!, Math.round(feerate * 1e8) / 1000);
    });
    return rates;
  }

  async broadcast(txHex: string): Promise<string> {
    if (!/^([0-9a-fA-F]{2})+$/.test(txHex)) throw new ChainSourceInvalidRequestError(this.label, "transaction must be non-empty hex");
    try {
      return String(await this.rpc.call("sendrawtransaction", [txHex]));
    } catch (err) {
      throw this.asRejection(err);
    }
  }

  async broadcastPackage(txHexes: readonly string[]): Promise<PackageBroadcastResult> {
    if (txHexes.length === 0) throw new ChainSourceInvalidRequestError(this.label, "empty package");
    if (txHexes.length === 1) return { txids: [await this.broadcast(txHexes[0]!)] };
    try {
      const result = await this.rpc.call("submitpackage", [txHexes]);
      return parseSubmitPackageResult(this.label, result, txHexes.length);
    } catch (err) {
      throw this.asRejection(err);
    }
  }

  private asRejection(err: unknown): unknown {
    if (err instanceof BitcoindRpcError && REJECTION_CODES.has(err.code)) return new ChainSourceRejectedError(this.label, err.rpcMessage, err.code);
    return err;
  }

  /** `getrawtransaction txid true`, or `null` when bitcoind does not know it. */
  private async verboseTx(txid: string): Promise<Record<string, unknown> | null> {
    assertHash(this.label, txid, "txid");
    return this.nullIf(RpcCode.INVALID_ADDRESS_OR_KEY, async () => (await this.rpc.call("getrawtransaction", [txid, true])) as Record<string, unknown>);
  }

  private async statusOf(tx: Record<string, unknown>): Promise<TxStatus | null> {
    const { blockhash, confirmations, blocktime } = tx;
    if (typeof blockhash !== "string") return { confirmed: false };
    if (typeof confirmations !== "number" || confirmations < 1) return null; // in a block off the best chain
    const header = (await this.rpc.call("getblockheader", [blockhash, true])) as { height?: unknown; time?: unknown };
    if (typeof header.height !== "number") throw new ChainSourceProtocolError(this.label, "getblockheader lacks height");
    const time = typeof blocktime === "number" ? blocktime : Number(header.time);
    return { confirmed: true, block: { height: header.height, hash: blockhash }, blockTime: time };
  }

  /** Spend status of the chosen outputs (all when `vouts` is null); `null` if the tx is unknown. */
  private async outspendsOf(txid: string, vouts: number[] | null): Promise<OutputSpend[] | null> {
    const tx = await this.verboseTx(txid);
    if (!tx) return null;
    const count = Array.isArray(tx.vout) ? tx.vout.length : 0;
    const indexes = vouts ?? [...Array(count).keys()];
    const result: OutputSpend[] = indexes.map(() => ({ spent: false }));
    const live = await this.rpc.batch(indexes.map((v) => ({ method: "gettxout", params: [txid, v, true] })));
    const spentIdx: Array<{ v: number; i: number }> = [];
    indexes.forEach((v, i) => {
      const out = live[i]!;
      if (!out.ok) throw out.error;
      if (v < count && out.result === null) spentIdx.push({ v, i });
    });
    if (spentIdx.length === 0) return result;
    const inMempool = (await this.rpc.call("gettxspendingprevout", [spentIdx.map(({ v }) => ({ txid, vout: v }))])) as Array<{ spendingtxid?: unknown }>;
    const confirmedLeft: Array<{ v: number; i: number }> = [];
    for (const [k, { v, i }] of spentIdx.entries()) {
      const spender = inMempool[k]?.spendingtxid;
      if (typeof spender !== "string") {
        confirmedLeft.push({ v, i });
        continue;
      }
      const spendTx = await this.verboseTx(spender);
      const vin = spendTx ? compactTx(this.label, spendTx).spends.indexOf(`${txid}:${v}`) : -1;
      if (vin >= 0) result[i] = { spent: true, txid: spender, vin, status: { confirmed: false } };
    }
    if (confirmedLeft.length === 0) return result;
    const status = await this.statusOf(tx);
    if (!status?.confirmed) return result;
    const tip = await this.getTip();
    const found = await findConfirmedSpend(this.blocks, txid, confirmedLeft.map(({ v }) => v), status.block.height, Math.min(tip.height, status.block.height + (this.options.maxSpendSearchBlocks ?? 10_000)));
    for (const { v, i } of confirmedLeft) {
      const hit = found.get(v);
      if (hit) result[i] = hit;
    }
    return result;
  }

  private async scan(query: ScriptQuery): Promise<ScriptScanResult> {
    const scriptHex = await this.scriptOf(query);
    const tip = await this.getTip();
    const mempool = await this.mempoolTxs();
    return scanScript(this.blocks, scriptHex, this.options.scanStartHeight ?? 0, tip.height, mempool);
  }

  private async scriptOf(query: ScriptQuery): Promise<string> {
    if ("scriptPubKeyHex" in query) {
      if (!/^([0-9a-fA-F]{2})*$/.test(query.scriptPubKeyHex)) throw new ChainSourceInvalidRequestError(this.label, "scriptPubKey must be hex");
      return query.scriptPubKeyHex.toLowerCase();
    }
    const info = (await this.rpc.call("validateaddress", [query.address])) as { isvalid?: unknown; scriptPubKey?: unknown };
    if (info.isvalid !== true || typeof info.scriptPubKey !== "string") throw new ChainSourceInvalidRequestError(this.label, `invalid address ${query.address}`);
    return info.scriptPubKey;
  }

  /** The mempool as compact transactions; only transactions not seen by an earlier call are fetched. */
  private async mempoolTxs(): Promise<CompactTx[]> {
    const ids = ((await this.rpc.call("getrawmempool", [false])) as unknown[]).map(String);
    const missing = ids.filter((id) => !this.mempoolCache.has(id));
    for (let i = 0; i < missing.length; i += 100) {
      const chunk = missing.slice(i, i + 100);
      const txs = await this.rpc.batch(chunk.map((id) => ({ method: "getrawtransaction", params: [id, true] })));
      // A transaction may leave the mempool meanwhile: its lookup then fails and it is skipped.
      txs.forEach((t, k) => t.ok && this.mempoolCache.set(chunk[k]!, compactTx(this.label, t.result)));
    }
    const live = new Set(ids);
    for (const id of this.mempoolCache.keys()) if (!live.has(id)) this.mempoolCache.delete(id);
    return ids.flatMap((id) => this.mempoolCache.get(id) ?? []);
  }

  private notFound(err: BitcoindRpcError): null {
    if (err.code === RpcCode.INVALID_ADDRESS_OR_KEY) return null;
    throw err;
  }

  private async nullIf<T>(code: number, op: () => Promise<T>): Promise<T | null> {
    try {
      return await op();
    } catch (err) {
      if (err instanceof BitcoindRpcError && err.code === code) return null;
      throw err;
    }
  }
}
