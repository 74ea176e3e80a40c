#!/usr/bin/env node
/**
 * `node adapters/devnet/dist/src/ark-server/devnet-ark-bin.js [--seed S] [--datadir DIR]
 * [--esplora-port N] [--rpc-port N] [--ark-port N] [--ark-admin-port N] [--profile default|test]`:
 * the devnet with its Ark server. Prints the devnet's "devnet ready" JSON with the Ark fields
 * (`ark`, `ark_admin`, `ark_server_pubkey`) added, then runs until SIGINT/SIGTERM.
 */
import { parseArgs } from "node:util";
import { createLogger } from "@tender/core";
import { arkReadyFields, startDevnetWithArk } from "./devnet-with-ark.js";
import type { ArkServerProfile } from "./server-config.js";

const USAGE = "usage: devnet-ark [--seed S] [--datadir DIR] [--esplora-port N] [--rpc-port N] [--ark-port N] [--ark-admin-port N] [--profile default|test] [--debug]";
const MATURE_HEIGHT = 101;

function port(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: "string" },
      datadir: { type: "string" },
      "esplora-port": { type: "string" },
      "rpc-port": { type: "string" },
      "ark-port": { type: "string" },
      "ark-admin-port": { type: "string" },
      profile: { type: "string" },
      debug: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const profile = (values.profile ?? "default") as ArkServerProfile;
  if (profile !== "default" && profile !== "test") throw new Error("--profile must be default or test");
  const esploraPort = port(values["esplora-port"], "--esplora-port");
  const rpcPort = port(values["rpc-port"], "--rpc-port");
  const arkPort = port(values["ark-port"], "--ark-port");
  const adminPort = port(values["ark-admin-port"], "--ark-admin-port");
  const devnet = await startDevnetWithArk({
    ...(values.seed !== undefined ? { seed: values.seed } : {}),
    ...(values.datadir !== undefined ? { datadir: values.datadir } : {}),
    ...(esploraPort !== undefined ? { esploraPort } : {}),
    ...(rpcPort !== undefined ? { rpcPort } : {}),
    ark: {
      profile,
      ...(arkPort !== undefined ? { port: arkPort } : {}),
      ...(adminPort !== undefined ? { adminPort } : {}),
      logger: createLogger({ terminalLevel: values.debug ? "debug" : "warn" }, "ark-server"),
    },
  });
  const tip = devnet.node.tipHeight();
  if (tip < MATURE_HEIGHT) devnet.node.mine(MATURE_HEIGHT - tip);
  const ready = {
    esplora: devnet.esploraUrl,
    bitcoind: devnet.rpcUrl,
    cookie: devnet.cookieFile,
    control: devnet.controlUrl,
    network: "regtest",
    faucet_address: devnet.node.faucetAddress(),
    ...arkReadyFields(devnet.ark),
  };
  console.log(`devnet ready ${JSON.stringify(ready)}`);
  let stopping = false;
  const shutdown = (): void => {
    if (stopping) return;
    stopping = true;
    devnet.stop().then(
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

main().catch((err: unknown) => {
  console.error(`devnet-ark: ${err instanceof Error ? err.message : String(err)}`);
  console.error(USAGE);
  process.exit(1);
});
