import { displayHex } from "../consensus/bytes.js";
import { sha256 } from "../consensus/hashes.js";
import type { DevnetNode } from "../node/devnet-node.js";

/** Esplora's script hash: SHA-256 of the scriptPubKey, hex in reversed byte order. */
export function esploraScriptHash(script: Uint8Array): string {
  return displayHex(sha256(script));
}

/**
 * Maps Esplora script hashes back to scripts for `/scripthash/:hash/*`: every output the node
 * has seen (blocks and mempool) is indexed at start and as blocks and transactions arrive.
 */
export class ScriptHashIndex {
  private readonly scripts = new Map<string, Uint8Array>();
  private indexedHeight = -1;
  private readonly onBlock = (): void => this.catchUp();
  private readonly onTx = (txid: string): void => this.addTx(txid);

  constructor(private readonly node: DevnetNode) {
    this.catchUp();
    for (const txid of node.getRawMempool()) this.addTx(txid);
    node.on("block", this.onBlock);
    node.on("tx", this.onTx);
  }

  /** The script with this hash, if any output ever paid it. */
  lookup(scriptHash: string): Uint8Array | undefined {
    return this.scripts.get(scriptHash.toLowerCase());
  }

  /** Stops following the node. */
  close(): void {
    this.node.off("block", this.onBlock);
    this.node.off("tx", this.onTx);
  }

  private catchUp(): void {
    const tip = this.node.tipHeight();
    for (let h = this.indexedHeight + 1; h <= tip; h++) {
      const hash = this.node.blockHashAt(h);
      const block = hash === undefined ? undefined : this.node.getBlock(hash);
      if (!block) break;
      for (const txid of block.txids) this.addTx(txid);
      this.indexedHeight = h;
    }
  }

  private addTx(txid: string): void {
    const tx = this.node.getTransaction(txid);
    if (!tx) return;
    for (const out of tx.vout) this.scripts.set(esploraScriptHash(out.scriptPubKey), out.scriptPubKey);
  }
}
