import { BitcoindChainSource, BitcoindRpc } from "@tender/chain-bitcoind";
import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FAST_RETRY, type ContractBackend } from "./contract-backend.js";

const RPC_USER = { user: "tender", password: "s3cret-real-pass" };

/** A bitcoind process on regtest in a temp dir, on loopback ports. */
interface RunningBitcoind {
  readonly url: string;
  readonly cookieFile: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** `-rpcauth` line for the user (keeps the cookie file, unlike `-rpcpassword`). */
function rpcAuth(user: string, password: string): string {
  const salt = randomBytes(16).toString("hex");
  return `${user}:${salt}$${createHmac("sha256", salt).update(password).digest("hex")}`;
}

/** Starts `exe` on regtest (txindex, no wallet, no p2p listening) and waits until RPC answers. */
export async function startBitcoind(exe: string): Promise<RunningBitcoind> {
  const dir = await mkdtemp(join(tmpdir(), "tender-bitcoind-"));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(exe, [
    "-regtest", `-datadir=${dir}`, "-txindex=1", "-server=1", "-listen=0", "-disablewallet=1",
    `-port=${p2pPort}`, `-rpcport=${rpcPort}`, "-rpcbind=127.0.0.1", "-rpcallowip=127.0.0.1",
    `-rpcauth=${rpcAuth(RPC_USER.user, RPC_USER.password)}`, "-printtoconsole=0",
  ], { stdio: "ignore" });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const url = `http://127.0.0.1:${rpcPort}`;
  const cookieFile = join(dir, "regtest", ".cookie");
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  const rpc = new BitcoindRpc(url, { url, auth: RPC_USER, retry: FAST_RETRY, timeoutMs: 5_000 });
  for (let i = 0; ; i++) {
    try {
      if (existsSync(cookieFile)) {
        await rpc.call("getblockchaininfo");
        return { url, cookieFile, stop };
      }
    } catch (err) {
      if (i > 100) {
        await stop();
        throw err;
      }
    }
    if (child.exitCode !== null) throw new Error(`bitcoind exited with code ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The bitcoind adapter against a real bitcoind started from `exe`. */
export async function bitcoindReal(exe: string): Promise<ContractBackend> {
  const node = await startBitcoind(exe);
  return {
    source: () => new BitcoindChainSource({ url: node.url, auth: { cookieFile: node.cookieFile }, retry: FAST_RETRY }),
    sourceAt: (url, o) => new BitcoindChainSource({ url, auth: RPC_USER, ...o }),
    rpc: new BitcoindRpc(node.url, { url: node.url, auth: { cookieFile: node.cookieFile } }),
    secret: RPC_USER.password,
    disposable: async () => {
      const other = await startBitcoind(exe);
      return { source: new BitcoindChainSource({ url: other.url, auth: RPC_USER, retry: FAST_RETRY }), stop: () => other.stop() };
    },
    teardown: () => node.stop(),
  };
}
