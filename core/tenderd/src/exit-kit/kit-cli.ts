/**
 * `tenderd exit-kit run --kit FILE --esplora URL --destination ADDRESS --funding-key FILE
 * [--fee-rate SAT_PER_VB] [--mnemonic-file FILE] [--poll-ms MS]`: runs an exit kit (docs/exit-kit.md)
 * to the end against an Esplora server alone — no daemon, no Ark server.
 *
 * - `--funding-key FILE` holds the key paying the CPFP children (64 hex chars). It is created
 *   (mode 0600) when missing, and its P2TR address is printed: send it confirmed coins. Its
 *   change stays there; import it into any wallet as `tr(<key>)` to spend what is left.
 * - The mnemonic is read when a claim can be signed: from `--mnemonic-file` (which must not be
 *   readable by group or others), else one line from standard input.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { address as btcAddress, networks } from "bitcoinjs-lib";
import { EsploraChainSource } from "@tender/chain-esplora";
import type { ChainNetwork } from "@tender/core";
import { fromHex, fundingKey, p2trAddress, parseExitKitText, toHex, type Network } from "@tender/ark-protocol";
import { runExitKit } from "./kit-runner.js";

export const EXIT_KIT_USAGE = `Usage: tenderd exit-kit run --kit FILE --esplora URL --destination ADDRESS --funding-key FILE [--fee-rate SAT_PER_VB] [--mnemonic-file FILE] [--poll-ms MS]

Carries the exits of an exit kit (GET /api/v1/exits/kit) to the end with an Esplora server alone.
  --kit FILE             the kit (JSON)
  --esplora URL          Esplora API base URL
  --destination ADDRESS  bitcoin address receiving the claimed amounts
  --funding-key FILE     key paying the CPFP children; created (0600) if missing, fund its printed address
  --fee-rate N           sat/vB for the children and the claim (default: the server's 1- and 3-block estimates)
  --mnemonic-file FILE   the wallet's mnemonic (mode 0600), asked on standard input otherwise
  --poll-ms MS           wait between chain checks (default 10000)
`;

/** Whether the kit's network runs on the chain the source reports. */
export function sameNetwork(kit: Network, chain: ChainNetwork): boolean {
  switch (kit) {
    case "bitcoin": return chain === "mainnet";
    case "testnet": return chain === "testnet" || chain === "testnet4";
    case "signet": case "mutinynet": return chain === "signet";
    case "regtest": return chain === "regtest";
  }
}

/** The output script of a bitcoin address of `network`. */
export function addressScript(address: string, network: Network): Uint8Array {
  const net = network === "bitcoin" ? networks.bitcoin : network === "regtest" ? networks.regtest : networks.testnet;
  try {
    return Uint8Array.from(btcAddress.toOutputScript(address, net));
  } catch (e) {
    throw new Error(`--destination ${address} is not a ${network} bitcoin address`);
  }
}

function fileIsPrivate(path: string, what: string): void {
  if ((statSync(path).mode & 0o077) !== 0) throw new Error(`${what} ${path} is readable by others: chmod 600 it`);
}

/** The funding key at `path`, created when missing. */
export function loadFundingKey(path: string): { secret: Uint8Array; created: boolean } {
  if (!existsSync(path)) {
    const secret = randomBytes(32);
    writeFileSync(path, `${toHex(secret)}\n`, { mode: 0o600, flag: "wx" });
    return { secret: Uint8Array.from(secret), created: true };
  }
  fileIsPrivate(path, "funding key file");
  const text = readFileSync(path, "utf8").trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`funding key file ${path} does not hold a 64-hex-char key`);
  return { secret: fromHex(text), created: false };
}

function readMnemonic(file: string | undefined): () => Promise<string> {
  if (file) {
    return async () => {
      fileIsPrivate(file, "mnemonic file");
      return readFileSync(file, "utf8");
    };
  }
  return () => new Promise((resolve, reject) => {
    process.stderr.write("mnemonic: ");
    const rl = createInterface({ input: process.stdin, terminal: false });
    rl.once("line", (line) => (rl.close(), resolve(line)));
    rl.once("close", () => reject(new Error("no mnemonic given on standard input")));
  });
}

/** Runs `tenderd exit-kit …`; answers the exit code. */
export async function exitKitMain(argv: string[]): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  try {
    if (argv[0] !== "run") {
      process.stdout.write(EXIT_KIT_USAGE);
      return argv[0] === "--help" || argv[0] === "help" ? 0 : 2;
    }
    const { values } = parseArgs({
      args: argv.slice(1), strict: true,
      options: {
        kit: { type: "string" }, esplora: { type: "string" }, destination: { type: "string" }, "funding-key": { type: "string" },
        "fee-rate": { type: "string" }, "mnemonic-file": { type: "string" }, "poll-ms": { type: "string" },
      },
    });
    for (const k of ["kit", "esplora", "destination", "funding-key"] as const) if (!values[k]) throw new Error(`--${k} is required\n${EXIT_KIT_USAGE}`);
    const feeRate = values["fee-rate"] === undefined ? undefined : Number(values["fee-rate"]);
    if (feeRate !== undefined && !(Number.isFinite(feeRate) && feeRate > 0)) throw new Error("--fee-rate must be a positive number of sat/vB");
    const pollMs = values["poll-ms"] === undefined ? 10_000 : Number(values["poll-ms"]);
    if (!Number.isSafeInteger(pollMs) || pollMs < 0) throw new Error("--poll-ms must be a non-negative integer");

    const chain = new EsploraChainSource({ url: values.esplora! });
    const chainNet = await chain.getNetwork();
    const kitText = readFileSync(values.kit!, "utf8");
    const network = parseExitKitText(kitText).network;
    if (!sameNetwork(network, chainNet)) throw new Error(`the kit is for ${network}, the Esplora server is on ${chainNet}`);
    const kit = parseExitKitText(kitText, network);
    const destinationScript = addressScript(values.destination!, network);
    const { secret, created } = loadFundingKey(values["funding-key"]!);
    const funding = fundingKey(secret);
    const fundingAddress = p2trAddress(funding.outputKey, network);
    out(`${created ? "created funding key file" : "funding key file"} ${values["funding-key"]}; funding address ${fundingAddress} (pays the CPFP children)`);
    out(`kit: ${kit.vtxos.length} VTXO(s), ${kit.vtxos.reduce((t, v) => t + v.amount, 0n)} sat, ${new Set(kit.vtxos.flatMap((v) => v.steps.map((s) => s.txid))).size} exit transaction(s)`);
    await runExitKit({
      kit, chain, destinationScript, destinationLabel: values.destination!, funding, fundingAddress, mnemonic: readMnemonic(values["mnemonic-file"]), print: out, pollMs,
      ...(feeRate !== undefined ? { satPerVb: feeRate } : {}),
    });
    return 0;
  } catch (e) {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
