#!/usr/bin/env node
import { parseArgs } from "node:util";
import { startDevnet } from "../devnet.js";

/** Blocks needed for the first coinbase to be spendable. */
const MATURE_HEIGHT = 101;

const USAGE = "usage: devnet [--seed S] [--datadir DIR] [--esplora-port N] [--rpc-port N] [--rpcuser U --rpcpassword P]";

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
      rpcuser: { type: "string" },
      rpcpassword: { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if ((values.rpcuser === undefined) !== (values.rpcpassword === undefined)) throw new Error("--rpcuser and --rpcpassword go together");
  const esploraPort = port(values["esplora-port"], "--esplora-port");
  const rpcPort = port(values["rpc-port"], "--rpc-port");
  const devnet = await startDevnet({
    ...(values.seed !== undefined ? { seed: values.seed } : {}),
    ...(values.datadir !== undefined ? { datadir: values.datadir } : {}),
    ...(esploraPort !== undefined ? { esploraPort } : {}),
    ...(rpcPort !== undefined ? { rpcPort } : {}),
    ...(values.rpcuser !== undefined && values.rpcpassword !== undefined ? { rpcUser: { user: values.rpcuser, password: values.rpcpassword } } : {}),
  });
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
  console.error(`devnet: ${err instanceof Error ? err.message : String(err)}`);
  console.error(USAGE);
  process.exit(1);
});
