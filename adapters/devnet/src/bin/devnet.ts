#!/usr/bin/env node
/**
 * `npm run devnet` — the devnet: a regtest chain with its Esplora and bitcoind-RPC faces and, unless
 * `--no-ark`, the reference Ark server on it. Prints one line `devnet ready <json>` with every URL
 * (Esplora, bitcoind RPC and its cookie, control API, Ark server, its admin port and its controls), then runs
 * until SIGINT/SIGTERM. Everything binds 127.0.0.1.
 *
 * With `--ark-bitcoind URL` it starts only the Ark server, on that bitcoind (txindex and its wallet
 * enabled; the server keeps its wallet watch-only there, paid by sending to `ark_wallet_address`)
 * with its database in `--datadir`; the ready line then has the Ark fields and `bitcoind`.
 */
import { parseArgs } from "node:util";
import { createLogger } from "@tender/core";
import { startDevnet, type Devnet } from "../devnet.js";
import type { ScriptFailureWording } from "../node/devnet-node.js";
import { arkReadyFields, startDevnetWithArk } from "../ark-server/devnet-with-ark.js";
import type { ArkServerProfile } from "../ark-server/server-config.js";
import { startArkOnBitcoind } from "./ark-on-bitcoind.js";

/** Blocks needed for the first coinbase to be spendable. */
const MATURE_HEIGHT = 101;

const USAGE = "usage: devnet [--seed S] [--datadir DIR] [--esplora-port N] [--rpc-port N] [--rpcuser U --rpcpassword P]"
  + " [--script-failure-wording core-master|core-29]"
  + " [--no-ark | --ark-port N --ark-admin-port N --profile default|test --debug]"
  + "\n       devnet --ark-bitcoind URL (--ark-bitcoind-cookie FILE | --ark-bitcoind-rpcuser U --ark-bitcoind-rpcpassword P) --datadir DIR"
  + " [--ark-port N --ark-admin-port N --profile default|test --debug]";

function port(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number`);
  return n;
}

function scriptFailureWording(value: string | undefined): ScriptFailureWording | undefined {
  if (value === undefined || value === "core-master" || value === "core-29") return value;
  throw new Error("--script-failure-wording must be core-master or core-29");
}

/** Runs `stop` and exits on SIGINT/SIGTERM (handlers first: whoever reads the ready line may signal at once). */
function untilSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (): void => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: "string" },
      datadir: { type: "string" },
      "esplora-port": { type: "string" },
      "rpc-port": { type: "string" },
      rpcuser: { type: "string" },
      rpcpassword: { type: "string" },
      "script-failure-wording": { type: "string" },
      "no-ark": { type: "boolean" },
      "ark-port": { type: "string" },
      "ark-admin-port": { type: "string" },
      "ark-bitcoind": { type: "string" },
      "ark-bitcoind-cookie": { type: "string" },
      "ark-bitcoind-rpcuser": { type: "string" },
      "ark-bitcoind-rpcpassword": { type: "string" },
      profile: { type: "string" },
      debug: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if ((values.rpcuser === undefined) !== (values.rpcpassword === undefined)) throw new Error("--rpcuser and --rpcpassword go together");
  const profile = (values.profile ?? "default") as ArkServerProfile;
  if (profile !== "default" && profile !== "test") throw new Error("--profile must be default or test");
  const wording = scriptFailureWording(values["script-failure-wording"]);
  const esploraPort = port(values["esplora-port"], "--esplora-port");
  const rpcPort = port(values["rpc-port"], "--rpc-port");
  const arkPort = port(values["ark-port"], "--ark-port");
  const adminPort = port(values["ark-admin-port"], "--ark-admin-port");
  const arkLogger = createLogger({ terminalLevel: values.debug ? "debug" : "warn" }, "ark-server");
  if (values["ark-bitcoind"] !== undefined) {
    if (values["no-ark"]) throw new Error("--ark-bitcoind starts only the Ark server: it does not go with --no-ark");
    const { ark, ready } = await startArkOnBitcoind({
      url: values["ark-bitcoind"],
      ...(values["ark-bitcoind-cookie"] !== undefined ? { cookieFile: values["ark-bitcoind-cookie"] } : {}),
      ...(values["ark-bitcoind-rpcuser"] !== undefined ? { rpcUser: values["ark-bitcoind-rpcuser"] } : {}),
      ...(values["ark-bitcoind-rpcpassword"] !== undefined ? { rpcPassword: values["ark-bitcoind-rpcpassword"] } : {}),
      ...(values.datadir !== undefined ? { datadir: values.datadir } : {}),
      profile,
      ...(arkPort !== undefined ? { port: arkPort } : {}),
      ...(adminPort !== undefined ? { adminPort } : {}),
      logger: arkLogger,
    });
    untilSignal(() => ark.stop());
    console.log(`devnet ready ${JSON.stringify(ready)}`);
    return;
  }
  const chainOptions = {
    ...(values.seed !== undefined ? { seed: values.seed } : {}),
    ...(values.datadir !== undefined ? { datadir: values.datadir } : {}),
    ...(esploraPort !== undefined ? { esploraPort } : {}),
    ...(rpcPort !== undefined ? { rpcPort } : {}),
    ...(values.rpcuser !== undefined && values.rpcpassword !== undefined ? { rpcUser: { user: values.rpcuser, password: values.rpcpassword } } : {}),
    ...(wording !== undefined ? { scriptFailureWording: wording } : {}),
  };
  let devnet: Devnet;
  let arkFields = {};
  if (values["no-ark"]) {
    devnet = await startDevnet(chainOptions);
  } else {
    const withArk = await startDevnetWithArk({
      ...chainOptions,
      ark: {
        profile,
        ...(arkPort !== undefined ? { port: arkPort } : {}),
        ...(adminPort !== undefined ? { adminPort } : {}),
        logger: arkLogger,
      },
    });
    devnet = withArk;
    arkFields = arkReadyFields(withArk);
  }
  const tip = devnet.node.tipHeight();
  if (tip < MATURE_HEIGHT) devnet.node.mine(MATURE_HEIGHT - tip);
  const ready = {
    esplora: devnet.esploraUrl,
    bitcoind: devnet.rpcUrl,
    cookie: devnet.cookieFile,
    ...(values.rpcuser !== undefined ? { rpcuser: values.rpcuser } : {}),
    control: devnet.controlUrl,
    network: "regtest",
    faucet_address: devnet.node.faucetAddress(),
    ...arkFields,
  };
  untilSignal(() => devnet.stop());
  console.log(`devnet ready ${JSON.stringify(ready)}`);
}

main().catch((err: unknown) => {
  console.error(`devnet: ${err instanceof Error ? err.message : String(err)}`);
  console.error(USAGE);
  process.exit(1);
});
