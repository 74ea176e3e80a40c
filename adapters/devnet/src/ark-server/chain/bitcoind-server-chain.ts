/**
 * The reference server's chain on an external bitcoind, as captaind runs: chain facts from the
 * node's JSON-RPC (txindex required), the server wallet's coins from a watch-only descriptor
 * wallet in that bitcoind (created on first start, named for the server), fee rates from
 * `estimatesmartfee`. There is no faucet: the server wallet is funded by paying its address.
 *
 * | ServerChain | bitcoind RPC |
 * |---|---|
 * | `tipHeight` | `getblockcount` |
 * | `getTransaction`, `getTxStatus` | `getrawtransaction` (txindex) + `getblockheader` of its block; a tx whose block left the active chain counts only while in the mempool |
 * | `getTxOut` | `gettxout` |
 * | `watchScript` | `importdescriptors` of `raw(<script>)` into the wallet (once; kept by the wallet) |
 * | `utxosForScript` | wallet `listunspent 0` filtered by script, heights from the wallet's last processed block |
 * | `estimateFeeRate` | `estimatesmartfee` (throws without an estimate: the server's configured fallback applies) |
 * | `submitTransaction` | `sendrawtransaction` (already confirmed → its txid) |
 * | `testMempoolAccept` | `testmempoolaccept` |
 *
 * @example
 * ```ts
 * const chain = await bitcoindServerChain({ url: "http://127.0.0.1:18443", auth: { cookieFile } });
 * const ark = await startArkServer({ chain, datadir });
 * ```
 */
import { fromHex, toHex, decodeTx, txidHex } from "@tender/ark-protocol";
import { BitcoindRpc, BitcoindRpcError, RpcCode, type BitcoindAuth } from "@tender/chain-bitcoind";
import type { RetryPolicy } from "@tender/core";
import type { ScriptUtxo, TxStatus } from "../../node/devnet-node.js";
import type { ServerChain, ServerMempoolAccept, ServerTx, ServerTxOut } from "../server-context.js";

/** bitcoind's `chain` names per network. */
const CORE_CHAIN = { bitcoin: "main", testnet: "test", testnet4: "testnet4", signet: "signet", regtest: "regtest" } as const;

/** Options of {@link bitcoindServerChain}. */
export interface BitcoindServerChainOptions {
  /** bitcoind's RPC URL, e.g. `http://127.0.0.1:18443`. */
  readonly url: string;
  readonly auth: BitcoindAuth;
  /** Name of the bitcoind wallet holding the server wallet's coins (watch-only). Default `ark-server`. */
  readonly wallet?: string;
  /** The network the node must be on. Default `regtest`. */
  readonly network?: keyof typeof CORE_CHAIN;
  /**
   * Where the wallet's first import of the server wallet's script rescans from: unix seconds, or
   * `now` (default: the server's keys are new when first imported, so older blocks cannot pay them).
   */
  readonly rescanFrom?: number | "now";
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
}

/** Core's `-18` "Requested wallet does not exist or is not loaded". */
const WALLET_NOT_FOUND = -18;
/** Core's `-35` "Wallet … is already loaded". */
const WALLET_ALREADY_LOADED = -35;

/**
 * Connects to bitcoind: checks the network and that txindex is on and synced, and loads (or
 * creates) the server's watch-only wallet.
 */
export async function bitcoindServerChain(options: BitcoindServerChainOptions): Promise<BitcoindServerChain> {
  const walletName = options.wallet ?? "ark-server";
  const rpcOptions = { auth: options.auth, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}), ...(options.retry ? { retry: options.retry } : {}) };
  const node = new BitcoindRpc("ark-server bitcoind", { url: options.url, ...rpcOptions });
  const walletUrl = `${options.url.replace(/\/+$/, "")}/wallet/${encodeURIComponent(walletName)}`;
  const wallet = new BitcoindRpc(`ark-server bitcoind wallet ${walletName}`, { url: walletUrl, ...rpcOptions });

  const info = (await node.call("getblockchaininfo")) as { chain: string };
  const expected = CORE_CHAIN[options.network ?? "regtest"];
  if (info.chain !== expected) throw new Error(`bitcoind is on ${info.chain}, the Ark server needs ${expected}`);
  const indexes = (await node.call("getindexinfo", ["txindex"])) as { txindex?: { synced: boolean } };
  if (!indexes.txindex) throw new Error("bitcoind runs without txindex: start it with -txindex=1 (the Ark server looks up any transaction by txid)");
  if (!indexes.txindex.synced) throw new Error("bitcoind's txindex is still syncing: start the Ark server once it is synced");
  await loadOrCreateWallet(node, walletName);
  return new BitcoindServerChain(node, wallet, options.rescanFrom ?? "now");
}

async function loadOrCreateWallet(node: BitcoindRpc, name: string): Promise<void> {
  try {
    await node.call("loadwallet", [name, true]);
    return;
  } catch (e) {
    if (e instanceof BitcoindRpcError && e.code === WALLET_ALREADY_LOADED) return;
    if (!(e instanceof BitcoindRpcError && e.code === WALLET_NOT_FOUND)) throw e;
  }
  // watch-only, blank, descriptors, loaded on bitcoind's next starts
  await node.call("createwallet", [name, true, true, "", false, true, true]);
}

interface RawTxVerbose {
  txid: string;
  hex: string;
  blockhash?: string;
  confirmations?: number;
}

/** {@link ServerChain} over a bitcoind's JSON-RPC; see the module header for the calls. */
export class BitcoindServerChain implements ServerChain {
  constructor(
    private readonly node: BitcoindRpc,
    private readonly wallet: BitcoindRpc,
    private readonly rescanFrom: number | "now",
  ) {}

  async tipHeight(): Promise<number> {
    return (await this.node.call("getblockcount")) as number;
  }

  async getTransaction(txid: string): Promise<ServerTx | undefined> {
    let raw: RawTxVerbose;
    try {
      raw = (await this.node.call("getrawtransaction", [txid, 1])) as RawTxVerbose;
    } catch (e) {
      if (e instanceof BitcoindRpcError && e.code === RpcCode.INVALID_ADDRESS_OR_KEY) return undefined;
      throw e;
    }
    const status = await this.statusOf(raw);
    return status && { txid: raw.txid, raw: fromHex(raw.hex), status };
  }

  async getTxStatus(txid: string): Promise<TxStatus | undefined> {
    return (await this.getTransaction(txid))?.status;
  }

  /** Confirmed in the active chain, in the mempool, or neither (a tx of a block that left the chain and is not in the mempool). */
  private async statusOf(raw: RawTxVerbose): Promise<TxStatus | undefined> {
    if (raw.blockhash !== undefined && (raw.confirmations ?? 0) > 0) {
      const header = (await this.node.call("getblockheader", [raw.blockhash])) as { height: number; time: number; confirmations: number };
      // -1 confirmations: the block left the active chain between the two calls
      if (header.confirmations > 0) return { confirmed: true, blockHeight: header.height, blockHash: raw.blockhash, blockTime: header.time };
    }
    if (raw.blockhash === undefined) return { confirmed: false };
    return (await this.inMempool(raw.txid)) ? { confirmed: false } : undefined;
  }

  private async inMempool(txid: string): Promise<boolean> {
    try {
      await this.node.call("getmempoolentry", [txid]);
      return true;
    } catch (e) {
      if (e instanceof BitcoindRpcError && e.code === RpcCode.INVALID_ADDRESS_OR_KEY) return false;
      throw e;
    }
  }

  async getTxOut(txid: string, vout: number, includeMempool = true): Promise<ServerTxOut | undefined> {
    const out = (await this.node.call("gettxout", [txid, vout, includeMempool])) as { confirmations: number; value: number; scriptPubKey: { hex: string } } | null;
    if (!out) return undefined;
    return { confirmations: out.confirmations, amountSat: btcToSat(out.value), scriptPubKey: fromHex(out.scriptPubKey.hex) };
  }

  async watchScript(script: Uint8Array): Promise<void> {
    const { descriptor } = (await this.wallet.call("getdescriptorinfo", [`raw(${toHex(script)})`])) as { descriptor: string };
    const listed = (await this.wallet.call("listdescriptors")) as { descriptors: { desc: string }[] };
    if (listed.descriptors.some((d) => d.desc === descriptor)) return;
    const [result] = (await this.wallet.call("importdescriptors", [[{ desc: descriptor, timestamp: this.rescanFrom, label: "ark-server-wallet" }]])) as {
      success: boolean;
      error?: { message?: string };
    }[];
    if (!result?.success) throw new Error(`importing the server wallet's script into bitcoind failed: ${result?.error?.message ?? "no result"}`);
  }

  async utxosForScript(script: Uint8Array): Promise<ScriptUtxo[]> {
    const hex = toHex(script);
    const [walletInfo, unspent] = await this.wallet.batch([
      { method: "getwalletinfo", params: [] },
      { method: "listunspent", params: [0, 9_999_999, [], true] },
    ]);
    if (!walletInfo!.ok) throw walletInfo!.error;
    if (!unspent!.ok) throw unspent!.error;
    // listunspent counts confirmations to the wallet's last processed block, not to the node's tip
    const height = (walletInfo!.result as { lastprocessedblock: { height: number } }).lastprocessedblock.height;
    const coins = unspent!.result as { txid: string; vout: number; amount: number; scriptPubKey: string; confirmations: number }[];
    return coins
      .filter((c) => c.scriptPubKey === hex)
      .map((c) => ({
        txid: c.txid,
        vout: c.vout,
        amountSat: btcToSat(c.amount),
        scriptPubKey: script,
        status: c.confirmations > 0 ? { confirmed: true, blockHeight: height - c.confirmations + 1 } : { confirmed: false },
      }));
  }

  async estimateFeeRate(target: number): Promise<number> {
    const r = (await this.node.call("estimatesmartfee", [Math.max(1, target)])) as { feerate?: number; errors?: string[] };
    if (typeof r.feerate !== "number" || r.feerate <= 0) throw new Error(`bitcoind has no fee estimate for ${target} block(s)${r.errors?.length ? `: ${r.errors.join("; ")}` : ""}`);
    // BTC/kvB → sat/vB
    return (r.feerate * 1e8) / 1000;
  }

  async submitTransaction(raw: Uint8Array): Promise<string> {
    try {
      return (await this.node.call("sendrawtransaction", [toHex(raw)])) as string;
    } catch (e) {
      // already confirmed: the broadcast's goal is reached
      if (e instanceof BitcoindRpcError && e.code === RpcCode.VERIFY_ALREADY_IN_CHAIN) return txidHex(decodeTx(raw));
      throw e;
    }
  }

  async testMempoolAccept(raws: readonly Uint8Array[]): Promise<ServerMempoolAccept[]> {
    const results = (await this.node.call("testmempoolaccept", [raws.map(toHex)])) as {
      txid: string;
      allowed?: boolean;
      "reject-reason"?: string;
      "reject-details"?: string;
    }[];
    return results.map((r) => ({
      txid: r.txid,
      ...(r.allowed !== undefined ? { allowed: r.allowed } : {}),
      ...(r["reject-reason"] !== undefined ? { rejectReason: r["reject-reason"] } : {}),
      ...(r["reject-details"] !== undefined ? { rejectDetails: r["reject-details"] } : {}),
    }));
  }
}

/** A BTC amount as bitcoind prints it (8 decimals) in sats. */
function btcToSat(btc: number): bigint {
  return BigInt(Math.round(btc * 1e8));
}
