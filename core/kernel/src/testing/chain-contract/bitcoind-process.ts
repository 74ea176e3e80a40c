import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { regtestRpc } from "./regtest-rpc.js";

/** A bitcoind process on regtest in a temp dir, on loopback ports. */
export interface RunningBitcoind {
  readonly url: string;
  /** The cookie file bitcoind writes (cookie authentication). */
  readonly cookieFile: string;
  /** The `-rpcauth` user it also accepts. */
  readonly rpcUser: { readonly user: string; readonly password: string };
  /** Stops the process and removes its datadir. */
  stop(): Promise<void>;
}

const RPC_USER = { user: "tender", password: "s3cret-real-pass" };

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

/** Options of {@link startBitcoind}. */
export interface BitcoindOptions {
  /** Enable Core's wallet (default off), e.g. to compare a watch-only copy of a wallet with it. */
  readonly wallet?: boolean;
  /** More command-line options, e.g. relay policy settings. */
  readonly args?: readonly string[];
}

/**
 * Starts Bitcoin Core's `exe` on regtest (txindex, no p2p listening, no wallet unless asked) in a
 * temp datadir, and waits until its RPC answers.
 */
export async function startBitcoind(exe: string, options: BitcoindOptions = {}): Promise<RunningBitcoind> {
  const dir = await mkdtemp(join(tmpdir(), "tender-bitcoind-"));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(exe, [
    "-regtest", `-datadir=${dir}`, "-txindex=1", "-server=1", "-listen=0", `-disablewallet=${options.wallet ? 0 : 1}`,
    `-port=${p2pPort}`, `-rpcport=${rpcPort}`, "-rpcbind=127.0.0.1", "-rpcallowip=127.0.0.1",
    `-rpcauth=${rpcAuth(RPC_USER.user, RPC_USER.password)}`, "-printtoconsole=0", ...(options.args ?? []),
  ], { stdio: "ignore" });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const url = `http://127.0.0.1:${rpcPort}`;
  const cookieFile = join(dir, "regtest", ".cookie");
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  const rpc = regtestRpc(url, RPC_USER);
  for (let i = 0; ; i++) {
    try {
      if (existsSync(cookieFile)) {
        await rpc.call("getblockchaininfo");
        return { url, cookieFile, rpcUser: RPC_USER, stop };
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
