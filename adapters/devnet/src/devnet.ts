import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Router } from "express";
import { DevnetNode, type ScriptFailureWording } from "./node/devnet-node.js";
import { startEsploraServer } from "./esplora/esplora-server.js";
import { CONTROL_PREFIX } from "./esplora/control-routes.js";
import { removeCookie, writeCookie } from "./rpc/rpc-auth.js";
import { startRpcServer } from "./rpc/rpc-server.js";

/** Options of {@link startDevnet}. */
export interface StartDevnetOptions {
  /** Chain and faucet seed (same seed → same chain). */
  readonly seed?: string;
  /** Directory for the chain and the RPC cookie; without it the chain lives in memory and the cookie in a temp dir. */
  readonly datadir?: string;
  /** Esplora port on 127.0.0.1; 0 (default) picks a free one. */
  readonly esploraPort?: number;
  /** bitcoind RPC port on 127.0.0.1; 0 (default) picks a free one. */
  readonly rpcPort?: number;
  /** Also accept this rpcuser/rpcpassword besides the cookie. */
  readonly rpcUser?: { readonly user: string; readonly password: string };
  /** Blocks the node premines on a fresh chain (see `DevnetNodeOptions.premineBlocks`). */
  readonly premineBlocks?: number;
  /** Wording of script failures in mempool acceptance (see `DevnetNodeOptions.scriptFailureWording`); Core master's by default. */
  readonly scriptFailureWording?: ScriptFailureWording;
}

/** A running devnet: the node and its two faces. */
export interface Devnet {
  readonly node: DevnetNode;
  /** Esplora base URL, e.g. `http://127.0.0.1:3002`. */
  readonly esploraUrl: string;
  /** Control API base URL (`<esplora>/devnet`). */
  readonly controlUrl: string;
  /** bitcoind JSON-RPC URL. */
  readonly rpcUrl: string;
  /** Path of the RPC cookie file (`<datadir>/.cookie`). */
  readonly cookieFile: string;
  /**
   * Adds controls under the control API: `router` answers `<controlUrl><path>/…` (e.g. the Ark
   * server's controls at `/ark`). Returns their base URL.
   */
  mountControl(path: `/${string}`, router: Router): string;
  /** Stops both servers, removes the cookie and closes the node. */
  stop(): Promise<void>;
}

/**
 * Starts a devnet in this process: a {@link DevnetNode}, its Esplora face (with the control API
 * under `/devnet`) and its bitcoind JSON-RPC face, all bound to 127.0.0.1.
 *
 * @example
 * const devnet = await startDevnet({ seed: "test" });
 * const source = new EsploraChainSource({ url: devnet.esploraUrl });
 * await devnet.stop();
 */
export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  const tempDir = options.datadir ? null : await mkdtemp(join(tmpdir(), "tender-devnet-"));
  const cookieDir = options.datadir ?? tempDir!;
  const node = new DevnetNode({
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.datadir !== undefined ? { datadir: options.datadir } : {}),
    ...(options.premineBlocks !== undefined ? { premineBlocks: options.premineBlocks } : {}),
    ...(options.scriptFailureWording !== undefined ? { scriptFailureWording: options.scriptFailureWording } : {}),
  });
  const cookieFile = join(cookieDir, ".cookie");
  const cleanups: Array<() => Promise<void> | void> = [() => node.close()];
  const stop = async (): Promise<void> => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  };
  try {
    const cookie = await writeCookie(cookieFile);
    cleanups.push(() => removeCookie(cookieFile));
    if (tempDir) cleanups.splice(1, 0, () => rm(tempDir, { recursive: true, force: true }));
    const credentials = options.rpcUser ? [cookie, `${options.rpcUser.user}:${options.rpcUser.password}`] : [cookie];
    const rpc = await startRpcServer(node, { port: options.rpcPort ?? 0, credentials });
    cleanups.push(() => rpc.close());
    const esplora = await startEsploraServer(node, options.esploraPort ?? 0);
    cleanups.push(() => esplora.close());
    const controlUrl = `${esplora.url}${CONTROL_PREFIX}`;
    const mountControl = (path: `/${string}`, router: Router): string => {
      esplora.controlExtensions.use(path, router);
      return `${controlUrl}${path}`;
    };
    return { node, esploraUrl: esplora.url, controlUrl, rpcUrl: rpc.url, cookieFile, mountControl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
