/**
 * Persistence in a datadir: `blocks.dat` (length-prefixed raw blocks, appended as they are
 * connected), `mempool.json` (raw mempool transactions, saved after changes) and
 * `state.json` (fake clock, fee estimates). A restart replays the blocks.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toHex } from "../consensus/bytes.js";
import { unhex } from "./bytes.js";
import { DatadirError } from "./node-errors.js";
import type { FeeEstimateTable } from "./types.js";

/** Node state outside the blocks. */
export interface NodeSettings {
  readonly clock: number;
  readonly feeEstimates: FeeEstimateTable;
}

/** Reads and writes a node's datadir. */
export class BlockStore {
  private readonly blocksPath: string;
  private readonly mempoolPath: string;
  private readonly statePath: string;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.blocksPath = join(dir, "blocks.dat");
    this.mempoolPath = join(dir, "mempool.json");
    this.statePath = join(dir, "state.json");
  }

  /** Every stored block in chain order; throws {@link DatadirError} on a torn or corrupt file. */
  readBlocks(): Uint8Array[] {
    if (!existsSync(this.blocksPath)) return [];
    const data = new Uint8Array(readFileSync(this.blocksPath));
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const blocks: Uint8Array[] = [];
    let o = 0;
    while (o < data.length) {
      if (o + 4 > data.length) throw new DatadirError(`blocks.dat truncated at byte ${o}`);
      const len = view.getUint32(o, true);
      if (o + 4 + len > data.length) throw new DatadirError(`blocks.dat truncated in block ${blocks.length}`);
      blocks.push(data.slice(o + 4, o + 4 + len));
      o += 4 + len;
    }
    return blocks;
  }

  /** Appends a connected block. */
  appendBlock(raw: Uint8Array): void {
    const len = new Uint8Array(4);
    new DataView(len.buffer).setUint32(0, raw.length, true);
    appendFileSync(this.blocksPath, Buffer.concat([len, raw]));
  }

  /** Raw mempool transactions saved last time (parents first). */
  readMempool(): Uint8Array[] {
    if (!existsSync(this.mempoolPath)) return [];
    try {
      const list = JSON.parse(readFileSync(this.mempoolPath, "utf8")) as unknown;
      if (!Array.isArray(list)) throw new Error("not an array");
      return list.map((h) => unhex(String(h)));
    } catch (err) {
      throw new DatadirError(`mempool.json unreadable: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Replaces the saved mempool. */
  writeMempool(raws: readonly Uint8Array[]): void {
    this.atomicWrite(this.mempoolPath, JSON.stringify(raws.map(toHex)));
  }

  /** Saved settings, if any. */
  readSettings(): NodeSettings | undefined {
    if (!existsSync(this.statePath)) return undefined;
    try {
      return JSON.parse(readFileSync(this.statePath, "utf8")) as NodeSettings;
    } catch (err) {
      throw new DatadirError(`state.json unreadable: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Replaces the saved settings. */
  writeSettings(s: NodeSettings): void {
    this.atomicWrite(this.statePath, JSON.stringify(s));
  }

  private atomicWrite(path: string, text: string): void {
    writeFileSync(path + ".tmp", text);
    renameSync(path + ".tmp", path);
  }
}
