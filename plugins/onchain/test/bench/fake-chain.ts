import type {
  BlockHeader, BlockRef, ChainNetwork, ChainSource, ChainTx, FeeEstimates, OutputSpend, PackageBroadcastResult, ScriptQuery, ScriptTx, ScriptUtxo, TxStatus,
} from "@tender/core";
import { Transaction } from "bitcoinjs-lib";
import type { Bip86Keychain } from "../../src/keychain.js";

/** Txs paid to each wallet address in the synthetic history. */
const TXS_PER_ADDRESS = 10;

/**
 * An in-memory chain source holding `count` confirmed payments to the wallet, each spending its
 * own output of one foreign parent, `TXS_PER_ADDRESS` per address: the sync benchmark measures
 * the wallet's own work, not network latency.
 */
export class SyntheticChain implements ChainSource {
  readonly label = "synthetic";
  private readonly txs = new Map<string, ChainTx>();
  private readonly history = new Map<string, ScriptTx[]>();
  /** Wallet addresses holding history (so the wallet reveals that many). */
  readonly usedAddresses: number;

  constructor(keychain: Bip86Keychain, count: number) {
    const parent = new Transaction();
    parent.version = 2;
    parent.addInput(new Uint8Array(32).fill(7), 0);
    const foreign = Buffer.from("0014" + "11".repeat(20), "hex");
    for (let i = 0; i < count; i++) parent.addOutput(foreign, 100_000n);
    const parentId = parent.getId();
    const block = (h: number): TxStatus => ({ confirmed: true, block: { height: h, hash: h.toString(16).padStart(64, "0") }, blockTime: 1_767_225_600 + h * 600 });
    this.txs.set(parentId, { txid: parentId, hex: parent.toHex(), status: block(1) });
    this.usedAddresses = Math.ceil(count / TXS_PER_ADDRESS);
    for (let i = 0; i < count; i++) {
      const t = new Transaction();
      t.version = 2;
      t.addInput(Buffer.from(parentId, "hex").reverse(), i, 0xfffffffd);
      const key = keychain.key(Math.floor(i / TXS_PER_ADDRESS));
      t.addOutput(key.script, 99_000n);
      const txid = t.getId();
      const status = block(2 + Math.floor(i / 50));
      this.txs.set(txid, { txid, hex: t.toHex(), status });
      const list = this.history.get(key.scriptHex) ?? [];
      list.push({ txid, status });
      this.history.set(key.scriptHex, list);
    }
  }

  async getNetwork(): Promise<ChainNetwork> { return "regtest"; }
  async getTip(): Promise<BlockRef> { return { height: 1_000, hash: "00".repeat(32) }; }
  async getTx(txid: string): Promise<ChainTx | null> { return this.txs.get(txid) ?? null; }
  async getTxStatus(txid: string): Promise<TxStatus | null> { return this.txs.get(txid)?.status ?? null; }
  async getScriptHistory(q: ScriptQuery): Promise<ScriptTx[]> { return "scriptPubKeyHex" in q ? (this.history.get(q.scriptPubKeyHex) ?? []) : []; }
  async getFeeEstimates(): Promise<FeeEstimates> { return new Map([[1, 5], [3, 3], [6, 1.5]]); }
  async isInMempool(): Promise<boolean> { return false; }
  getBlockHash(): Promise<string | null> { throw new Error("not used by the benchmark"); }
  getBlockHeader(): Promise<BlockHeader | null> { throw new Error("not used by the benchmark"); }
  getBlockTxids(): Promise<string[] | null> { throw new Error("not used by the benchmark"); }
  getRawBlock(): Promise<string | null> { throw new Error("not used by the benchmark"); }
  getOutspend(): Promise<OutputSpend> { throw new Error("not used by the benchmark"); }
  getOutspends(): Promise<OutputSpend[] | null> { throw new Error("not used by the benchmark"); }
  getScriptUtxos(): Promise<ScriptUtxo[]> { throw new Error("not used by the benchmark"); }
  broadcast(): Promise<string> { throw new Error("not used by the benchmark"); }
  broadcastPackage(): Promise<PackageBroadcastResult> { throw new Error("not used by the benchmark"); }
}
