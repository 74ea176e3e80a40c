/**
 * The daemon under fuzz: every default plugin, a wallet on the devnet with confirmed on-chain
 * coins and a spendable VTXO (so sends and boards have something to refuse), background loops
 * slowed down so that only requests change state, and the values the generators draw on.
 */
import { bech32m } from "@scure/base";
import { payments, networks } from "bitcoinjs-lib";
import { arkServer } from "@tender/devnet";
import { cleanup, startDaemon, type Daemon } from "../daemon-process.js";
import type { FuzzHints } from "./values.js";

type DevnetWithArk = arkServer.DevnetWithArk;

/** BIP-39 test vectors: the wallet under fuzz, the other wallet whose address it pays, a phrase for restores. */
const FUZZ_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const OTHER_MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow";
const RESTORE_MNEMONIC = "letter advice cage absurd amount doctor acoustic avoid letter advice cage above";

/**
 * Daemon settings for the run: the on-chain and Ark background syncs once an hour (only the
 * fuzzer's requests change state), boards checked every 500 ms (the set-up board registers
 * quickly; later boards never confirm since the run mines nothing), and a 2 ms long-poll window
 * so a look at the notifications costs nothing.
 */
export const FUZZ_DAEMON_CONFIG = {
  pluginConfig: {
    onchain: { syncIntervalMs: 3_600_000 },
    ark: { syncIntervalMs: 3_600_000 },
    boards: { pollMs: 500 },
    notifications: { waitTimeoutMs: 2 },
  },
};

export interface FuzzTarget {
  readonly daemon: Daemon;
  readonly token: string;
  readonly hints: FuzzHints;
  readonly served: Record<string, any>;
  stop(): Promise<void>;
}

async function call(d: Daemon, method: string, path: string, body?: unknown): Promise<any> {
  const r = await d.api(method, path, body === undefined ? (method === "POST" ? { body: {} } : {}) : { body });
  if (r.status !== 200) throw new Error(`fuzz set-up: ${method} ${path} answered ${r.status}: ${r.text}`);
  return r.json;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`fuzz set-up: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const createBody = (devnet: DevnetWithArk, mnemonic: string) => ({
  network: "regtest", ark_server: devnet.arkUrl, chain_source: { esplora: { url: devnet.esploraUrl } }, mnemonic,
});

/** An Ark address of another wallet on the same server (a short-lived second daemon makes it). */
async function otherWalletAddress(devnet: DevnetWithArk): Promise<string> {
  const other = await startDaemon({ config: FUZZ_DAEMON_CONFIG });
  try {
    await call(other, "POST", "/api/v1/wallet/create", createBody(devnet, OTHER_MNEMONIC));
    return ((await call(other, "POST", "/api/v1/wallet/addresses/next")) as { address: string }).address;
  } finally {
    await other.stop();
    cleanup(other.datadir);
  }
}

/** Starts the daemon on `devnet`, creates and funds its wallet, boards once, and gathers the hints. */
export async function startFuzzTarget(devnet: DevnetWithArk): Promise<FuzzTarget> {
  const foreignArkAddress = await otherWalletAddress(devnet);
  const d = await startDaemon({ config: FUZZ_DAEMON_CONFIG });
  try {
    const { fingerprint } = (await call(d, "POST", "/api/v1/wallet/create", createBody(devnet, FUZZ_MNEMONIC))) as { fingerprint: string };
    await until("the Ark server connection", async () => ((await d.api("GET", "/api/v1/wallet/ark-info")).status === 200 ? true : undefined));
    // confirmed on-chain coins: six of 1 000 000 sat
    const ownOnchainAddresses: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { address } = (await call(d, "POST", "/api/v1/onchain/addresses/next")) as { address: string };
      ownOnchainAddresses.push(address);
      devnet.node.faucet(address, 1_000_000n);
    }
    devnet.node.mine(1);
    await call(d, "POST", "/api/v1/onchain/sync");
    // one board, confirmed and registered: a spendable VTXO
    await call(d, "POST", "/api/v1/boards/board-amount", { amount_sat: 300_000 });
    devnet.node.mine(1);
    await until("the board to register", async () => ((await call(d, "GET", "/api/v1/boards/pending")) as unknown[]).length === 0 ? true : undefined);
    await until("a spendable VTXO", async () => ((await call(d, "GET", "/api/v1/wallet/balance")) as { spendable_sat: number }).spendable_sat > 0 ? true : undefined);
    await call(d, "POST", "/api/v1/onchain/sync");
    const ownArkAddresses: string[] = [];
    for (let i = 0; i < 2; i++) ownArkAddresses.push(((await call(d, "POST", "/api/v1/wallet/addresses/next")) as { address: string }).address);
    let derivedIndex = 0;
    while ((await d.api("GET", `/api/v1/wallet/addresses/index/${derivedIndex + 1}`)).status === 200) derivedIndex++;
    const vtxos = (await call(d, "GET", "/api/v1/wallet/vtxos?all=true")) as { id: string }[];
    const vtxoHex = await Promise.all(vtxos.map(async (v) => ((await call(d, "GET", `/api/v1/wallet/vtxos/${v.id}/encoded`)) as { encoded: string }).encoded));
    const movements = (await call(d, "GET", "/api/v1/history")) as { id: number }[];
    // another format's Ark address: our own with version 0 (Arkade)
    const ours = bech32m.decode(ownArkAddresses[0] as `${string}1${string}`, 1023);
    const arkadeAddress = bech32m.encode(ours.prefix, [0, ...ours.words.slice(1)], 1023);
    const pubkey = Buffer.from("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", "hex");
    // a segwit v1 output (OP_1 <32 bytes>): its address needs no curve arithmetic
    const p2tr = (network: typeof networks.regtest) => bech32m.encode(network.bech32, [1, ...bech32m.toWords(pubkey.subarray(1))]);
    const served = (await (await fetch(`${d.base}/api-docs/openapi.json`)).json()) as Record<string, any>;
    const hints: FuzzHints = {
      fingerprint, vtxoIds: vtxos.map((v) => v.id), vtxoHex, ownArkAddresses, foreignArkAddress, arkadeAddress, ownOnchainAddresses,
      foreignOnchainAddresses: [
        payments.p2wpkh({ pubkey, network: networks.regtest }).address!, p2tr(networks.regtest),
        payments.p2pkh({ pubkey, network: networks.regtest }).address!, payments.p2sh({ redeem: payments.p2wpkh({ pubkey, network: networks.regtest }), network: networks.regtest }).address!,
      ],
      otherNetworkAddresses: [
        payments.p2wpkh({ pubkey, network: networks.bitcoin }).address!, p2tr(networks.bitcoin),
        payments.p2pkh({ pubkey, network: networks.bitcoin }).address!,
      ],
      movementIds: movements.map((m) => m.id), derivedIndex, mnemonic: RESTORE_MNEMONIC, arkUrl: devnet.arkUrl, esploraUrl: devnet.esploraUrl,
    };
    return {
      daemon: d, token: d.token!, hints, served,
      stop: async () => {
        await d.stop();
        cleanup(d.datadir);
      },
    };
  } catch (e) {
    await d.stop();
    cleanup(d.datadir);
    throw e;
  }
}
