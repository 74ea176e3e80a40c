/**
 * The chain as connected so far: blocks by height and hash, the UTXO set, the transaction
 * index, confirmed spends (outspends) and a per-script index. It applies blocks that the
 * block validator has already accepted; it never validates anything itself.
 */
import type { Tx } from "../consensus/index.js";
import type { BlockHeader } from "./block.js";
import { blockWork } from "./block.js";
import { toHex } from "../consensus/bytes.js";

/** An unspent (or just spent) transaction output. */
export interface Coin {
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  readonly scriptPubKey: Uint8Array;
  /** Height of the block that created it. */
  readonly height: number;
  readonly coinbase: boolean;
}

/** A transaction ready to be connected, with what it spends. */
export interface ConnectTx {
  readonly tx: Tx;
  readonly raw: Uint8Array;
  readonly txid: string;
  readonly wtxid: string;
  /** Coins spent, input by input (empty for the coinbase). */
  readonly spent: readonly Coin[];
  readonly fee?: bigint;
}

/** A block that passed validation. */
export interface ConnectBlock {
  readonly header: BlockHeader;
  readonly hash: string;
  readonly raw: Uint8Array;
  readonly txs: readonly ConnectTx[];
  readonly size: number;
  readonly strippedSize: number;
  readonly weight: number;
}

/** A block in the chain. */
export interface StoredBlock extends ConnectBlock {
  readonly height: number;
  readonly medianTimePast: number;
  readonly chainWork: bigint;
}

/** Where a confirmed transaction sits. */
export interface ConfirmedTx extends ConnectTx {
  readonly blockHash: string;
  readonly height: number;
  readonly position: number;
}

/** Key of an outpoint in the node's maps. */
export function outpointKey(txid: string, vout: number): string {
  return `${txid}:${vout}`;
}

/** The connected chain and its indexes. */
export class ChainState {
  private readonly blocks: StoredBlock[] = [];
  private readonly byHash = new Map<string, StoredBlock>();
  private readonly utxos = new Map<string, Coin>();
  private readonly txs = new Map<string, ConfirmedTx>();
  private readonly spends = new Map<string, { txid: string; vin: number }>();
  /** scriptPubKey hex → txids touching it, in chain order. */
  private readonly scriptTxs = new Map<string, string[]>();
  /** scriptPubKey hex → unspent outpoint keys. */
  private readonly scriptUtxos = new Map<string, Set<string>>();

  /** Height of the tip, -1 before genesis. */
  get height(): number {
    return this.blocks.length - 1;
  }

  /** The tip block (undefined before genesis). */
  get tip(): StoredBlock | undefined {
    return this.blocks[this.blocks.length - 1];
  }

  /** Block at a height. */
  blockAt(height: number): StoredBlock | undefined {
    return this.blocks[height];
  }

  /** Block by hash. */
  block(hash: string): StoredBlock | undefined {
    return this.byHash.get(hash);
  }

  /** Median of the last 11 block times ending at `height` (Core's GetMedianTimePast). */
  medianTimePastAt(height: number): number {
    const times: number[] = [];
    for (let h = height; h >= 0 && h > height - 11; h--) times.push(this.blocks[h]!.header.time);
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)] ?? 0;
  }

  /** An unspent confirmed coin. */
  coin(txid: string, vout: number): Coin | undefined {
    return this.utxos.get(outpointKey(txid, vout));
  }

  /** A confirmed transaction. */
  tx(txid: string): ConfirmedTx | undefined {
    return this.txs.get(txid);
  }

  /** The confirmed spender of an outpoint. */
  spender(txid: string, vout: number): { txid: string; vin: number } | undefined {
    return this.spends.get(outpointKey(txid, vout));
  }

  /** Confirmed txids touching a script, oldest first. */
  txidsForScript(script: Uint8Array): readonly string[] {
    return this.scriptTxs.get(toHex(script)) ?? [];
  }

  /** Unspent confirmed coins paying a script. */
  coinsForScript(script: Uint8Array): Coin[] {
    const keys = this.scriptUtxos.get(toHex(script));
    return keys ? [...keys].map((k) => this.utxos.get(k)!) : [];
  }

  /** Appends a validated block on top of the tip and updates every index. */
  connect(block: ConnectBlock): StoredBlock {
    const height = this.blocks.length;
    const prevWork = this.tip?.chainWork ?? 0n;
    const times = [...this.blocks.slice(Math.max(0, height - 10)).map((b) => b.header.time), block.header.time];
    times.sort((a, b) => a - b);
    const stored: StoredBlock = {
      ...block,
      height,
      medianTimePast: times[Math.floor(times.length / 2)]!,
      chainWork: prevWork + blockWork(block.header.bits),
    };
    this.blocks.push(stored);
    this.byHash.set(block.hash, stored);
    block.txs.forEach((ctx, position) => this.connectTx(ctx, stored, position));
    return stored;
  }

  private connectTx(ctx: ConnectTx, block: StoredBlock, position: number): void {
    this.txs.set(ctx.txid, { ...ctx, blockHash: block.hash, height: block.height, position });
    const touched = new Set<string>();
    ctx.tx.inputs.forEach((_, vin) => {
      const coin = ctx.spent[vin];
      if (!coin) return;
      const key = outpointKey(coin.txid, coin.vout);
      this.utxos.delete(key);
      this.spends.set(key, { txid: ctx.txid, vin });
      const s = toHex(coin.scriptPubKey);
      this.scriptUtxos.get(s)?.delete(key);
      touched.add(s);
    });
    const coinbase = position === 0;
    ctx.tx.outputs.forEach((out, vout) => {
      const s = toHex(out.scriptPubKey);
      touched.add(s);
      if (isUnspendable(out.scriptPubKey)) return;
      if (block.height === 0) return; // the genesis output is not in the UTXO set
      const key = outpointKey(ctx.txid, vout);
      this.utxos.set(key, { txid: ctx.txid, vout, value: out.value, scriptPubKey: out.scriptPubKey, height: block.height, coinbase });
      let set = this.scriptUtxos.get(s);
      if (!set) this.scriptUtxos.set(s, (set = new Set()));
      set.add(key);
    });
    for (const s of touched) {
      let list = this.scriptTxs.get(s);
      if (!list) this.scriptTxs.set(s, (list = []));
      list.push(ctx.txid);
    }
  }
}

/** Outputs never added to the UTXO set: OP_RETURN scripts and oversized scripts (Core's IsUnspendable). */
export function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === 0x6a) || script.length > 10_000;
}
