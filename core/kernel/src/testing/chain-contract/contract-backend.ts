import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChainSource } from "../../chain/chain-source.js";
import type { RetryPolicy } from "../../chain/retry.js";
import type { RegtestRpc } from "./regtest-rpc.js";
import { TestWallet, type Coin } from "./test-wallet.js";

/** What the contract suite needs from one backend + adapter pairing. */
export interface ContractBackend {
  /** The adapter under test, pointed at the running backend (with {@link FAST_RETRY}). */
  source(): ChainSource;
  /** The same adapter pointed at another URL (down or hanging servers). */
  sourceAt(url: string, opts: { timeoutMs: number; retry: RetryPolicy }): ChainSource;
  /** JSON-RPC to the same regtest chain, to mine and inspect (a bitcoind, or the devnet's RPC face). */
  readonly rpc: RegtestRpc;
  /** Sets exact fee estimates when the backend can (the devnet); absent otherwise. */
  readonly setFeeEstimates?: (table: Record<number, number>) => Promise<void>;
  /** Starts a second backend of the same kind, with an adapter on it, that the test may stop; absent when impossible. */
  readonly disposable?: () => Promise<{ source: ChainSource; stop(): Promise<void> }>;
  /** A credential that must never appear in error messages. */
  readonly secret?: string;
  /** Stops everything. */
  teardown(): Promise<void>;
}

/** A fast policy so "down" tests finish quickly: 3 attempts, 20/40 ms apart. */
export const FAST_RETRY: RetryPolicy = { attempts: 3, initialDelayMs: 20, maxDelayMs: 100, factor: 2 };

/** Address that receives blocks nobody spends. */
export const BURN = new TestWallet("burn");

/** Mines `n` blocks to `address` through RPC; returns their hashes. */
export async function mine(rpc: RegtestRpc, n: number, address = BURN.address): Promise<string[]> {
  const hashes = (await rpc.call("generatetoaddress", [n, address])) as string[];
  await txindexSynced(rpc);
  return hashes;
}

/** Waits until bitcoind's txindex has caught up with the tip (immediate on the devnet). */
async function txindexSynced(rpc: RegtestRpc): Promise<void> {
  const tip = (await rpc.call("getblockcount")) as number;
  for (let i = 0; i < 200; i++) {
    const info = (await rpc.call("getindexinfo", ["txindex"])) as { txindex?: { best_block_height?: number } };
    if ((info.txindex?.best_block_height ?? -1) >= tip) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("txindex did not catch up with the tip");
}

/** BTC (a JSON number, as bitcoind's RPC answers amounts) to sats. */
export const sat = (btc: number): bigint => BigInt(Math.round(btc * 1e8));

/**
 * Gives `wallet` `count` confirmed coins: mines a block to it, matures the coinbase (100 more
 * blocks), and splits the coinbase into `count` outputs (confirmed in one more block).
 */
export async function fundWallet(rpc: RegtestRpc, wallet: TestWallet, count: number): Promise<Coin[]> {
  const [hash] = await mine(rpc, 1, wallet.address);
  await mine(rpc, 100);
  const block = (await rpc.call("getblock", [hash, 1])) as { tx: string[] };
  const cbTxid = block.tx[0]!;
  const cb = (await rpc.call("getrawtransaction", [cbTxid, true])) as { vout: Array<{ value: number; n: number; scriptPubKey: { hex: string } }> };
  const out = cb.vout.find((o) => o.scriptPubKey.hex === wallet.scriptHex)!;
  const each = (sat(out.value) - 10_000n) / BigInt(count);
  const split = wallet.spend([{ txid: cbTxid, vout: out.n, valueSat: sat(out.value) }], Array.from({ length: count }, () => ({ address: wallet.address, valueSat: each })));
  await rpc.call("sendrawtransaction", [split.hex]);
  await mine(rpc, 1);
  return Array.from({ length: count }, (_, vout) => ({ txid: split.txid, vout, valueSat: each }));
}

/** A URL where nothing listens (a port that was just freed). */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

/** An HTTP server that accepts requests and never answers. */
export async function hangingServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(() => {
    /* never respond */
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Awaits a rejection of the given class and returns the error. */
export async function rejectsWith<E extends Error>(p: Promise<unknown>, cls: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${String(err)}`);
    return err;
  }
  assert.fail(`expected a ${cls.name} rejection`);
}
