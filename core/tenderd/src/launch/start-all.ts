#!/usr/bin/env node
/**
 * `npm start`: the devnet chain, the reference Ark server and the `tenderd` daemon, configured
 * together, every port on 127.0.0.1. Prints a curl recipe once the daemon listens; Ctrl-C (or
 * SIGTERM) stops the daemon first, then the Ark server and the chain.
 *
 * `node core/tenderd/dist/src/launch/start-all.js [--datadir .tender-dev] [--port 3000]
 * [--profile default|test] [--fresh] [--esplora-port N] [--rpc-port N] [--ark-port N] [--ark-admin-port N]`
 * (fixed ports by default; 0 picks a free one, for tests). The chain and the Ark server keep their state in
 * `<datadir>-devnet` and the daemon in `<datadir>`, so a restart finds the same wallet on the
 * same chain; `--fresh` deletes both first.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createLogger } from "@tender/core";
import { startDevnetWithArk, type ArkServerProfile, type DevnetWithArk } from "@tender/devnet";
import { DEFAULT_PLUGIN_MODULES } from "../default-plugins.js";
import { startRecipe } from "./recipe.js";

/** Fixed loopback ports, so the wallet's stored server and chain URLs stay valid across restarts. */
export const START_PORTS = { esplora: 3002, rpc: 18443, ark: 3535, arkAdmin: 3536, daemon: 3000 } as const;
/** Plugins the launched daemon runs: every plugin tenderd ships, named in its configuration file. */
export const START_PLUGINS = DEFAULT_PLUGIN_MODULES;
const MATURE_HEIGHT = 101;
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "..");
const TENDERD = join(REPO_ROOT, "core", "tenderd", "bin", "tenderd.js");
const USAGE = "usage: npm start -- [--datadir DIR] [--port N] [--profile default|test] [--fresh] [--esplora-port N] [--rpc-port N] [--ark-port N] [--ark-admin-port N] (0 = any free port)";

function portFlag(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number`);
  return n;
}

/** Resolves with the loopback port a listener got: `port`, or any free one when 0. */
function listenOnce(port: number): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(port, "127.0.0.1", () => {
      const got = (s.address() as { port: number }).port;
      s.close(() => ok(got));
    });
  });
}

/** The port for the recipe's second daemon: the one after the daemon's if it is free now, else any free one. */
async function bobPortAfter(port: number): Promise<number> {
  if (port < 65535) {
    try {
      return await listenOnce(port + 1);
    } catch { /* taken: let the system choose */ }
  }
  return listenOnce(0);
}

/** Spawns tenderd and resolves once it logs "Server starting on" (rejects if it exits first). */
function spawnDaemon(args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [TENDERD, ...args], { stdio: ["ignore", "inherit", "pipe"] });
  return new Promise((ok, fail) => {
    let seen = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      if (seen !== "ready") {
        seen += chunk.toString();
        if (seen.includes("Server starting on")) {
          seen = "ready";
          ok(child);
        }
      }
    });
    child.once("exit", (code, signal) => fail(new Error(`tenderd exited (${signal ?? code}) before it listened`)));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      datadir: { type: "string" }, port: { type: "string" }, profile: { type: "string" }, fresh: { type: "boolean" }, help: { type: "boolean" },
      "esplora-port": { type: "string" }, "rpc-port": { type: "string" }, "ark-port": { type: "string" }, "ark-admin-port": { type: "string" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const datadir = values.datadir ?? ".tender-dev";
  const chainDir = `${datadir}-devnet`;
  const port = portFlag(values.port, "--port", START_PORTS.daemon);
  if (port === 0) throw new Error("--port must be a port number");
  const profile = (values.profile ?? "default") as ArkServerProfile;
  if (profile !== "default" && profile !== "test") throw new Error("--profile must be default or test");
  if (values.fresh) for (const d of [datadir, chainDir, `${datadir}-bob`]) rmSync(d, { recursive: true, force: true });
  if (existsSync(join(datadir, "mnemonic")) && !existsSync(chainDir)) {
    console.error(`warning: ${datadir} holds a wallet but ${chainDir} (its chain) is gone; use --fresh to start over`);
  }
  mkdirSync(chainDir, { recursive: true });

  const devnet: DevnetWithArk = await startDevnetWithArk({
    seed: "tender-dev", datadir: chainDir,
    esploraPort: portFlag(values["esplora-port"], "--esplora-port", START_PORTS.esplora),
    rpcPort: portFlag(values["rpc-port"], "--rpc-port", START_PORTS.rpc),
    ark: {
      profile, port: portFlag(values["ark-port"], "--ark-port", START_PORTS.ark),
      adminPort: portFlag(values["ark-admin-port"], "--ark-admin-port", START_PORTS.arkAdmin), logger: createLogger({ terminalLevel: "warn" }, "ark-server"),
    },
  });
  const configFile = resolve(chainDir, "tenderd.json");
  let daemon: ChildProcess | undefined;
  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
      const exited = new Promise((r) => daemon!.once("exit", r));
      daemon.kill("SIGTERM");
      await exited;
    }
    await devnet.stop();
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  try {
    const tip = devnet.node.tipHeight();
    if (tip < MATURE_HEIGHT) devnet.node.mine(MATURE_HEIGHT - tip);
    writeFileSync(configFile, JSON.stringify({ plugins: START_PLUGINS, pluginConfig: { onchain: { syncIntervalMs: 10_000 } } }, null, 2));
    daemon = await spawnDaemon(["--datadir", datadir, "--port", String(port), "--host", "127.0.0.1", "--config", configFile]);
    daemon.once("exit", (code, signal) => {
      if (!stopping) {
        console.error(`tenderd exited (${signal ?? code}); stopping the devnet`);
        void stop(1);
      }
    });
  } catch (e) {
    console.error(`start-all: ${e instanceof Error ? e.message : String(e)}`);
    await stop(1);
    return;
  }
  console.log(`devnet ready ${JSON.stringify({ esplora: devnet.esploraUrl, bitcoind: devnet.rpcUrl, control: devnet.controlUrl, ark: devnet.arkUrl, ark_admin: devnet.arkAdminUrl, ark_control: devnet.arkControlUrl, daemon: `http://127.0.0.1:${port}` })}`);
  console.log(startRecipe({
    daemon: `http://127.0.0.1:${port}`, datadir, esplora: devnet.esploraUrl, control: devnet.controlUrl, ark: devnet.arkUrl,
    boardConfirmations: devnet.ark.server.ctx.config.requiredBoardConfirmations, configFile, bobPort: await bobPortAfter(port),
  }));
}

main().catch((err: unknown) => {
  console.error(`start-all: ${err instanceof Error ? err.message : String(err)}`);
  console.error(USAGE);
  process.exit(1);
});
