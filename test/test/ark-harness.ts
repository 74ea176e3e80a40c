/**
 * Shared setup of the Ark payment end-to-end tests: a devnet with its reference Ark server, two
 * daemons with the Ark plugin, and a test-side board (protocol core + the server's gRPC API) that
 * puts a VTXO on one of a daemon's keys — imported into the daemon with `POST import-vtxo`.
 */
import { expect } from "chai";
import WebSocket from "ws";
import { ArkServerClient } from "@tender/ark-grpc";
import { arkServer } from "@tender/devnet";
import {
  WalletKeys, boardFee, boardFundingTaproot, boardVtxo, buildBoardExit, bytesEqual, decodeArkAddress, encodeOutPoint, encodeVtxo,
  fromHex, musigCompleteCosign, musigNonceGen, musigTweakedKey, reverseBytes, toHex, type FeeSchedule,
} from "@tender/ark-protocol";
import { Database, LeanSql, silentLogger } from "@tender/core";
import { daemonDatabase, type Daemon } from "../src/daemon-process.js";
import { ok, until } from "../src/api-helpers.js";
export { ok, until };

export type DevnetWithArk = arkServer.DevnetWithArk;

/** Two test mnemonics (BIP-39 vectors), so the test can derive the daemons' keys. */
export const ALICE_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
export const BOB_MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow";

/** Daemon configuration with the Ark plugin and its neighbours. */
export function arkDaemonConfig(ark: Record<string, unknown> = {}): object {
  return {
    plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-ark"],
    pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500, ...ark } },
  };
}

/** Starts the devnet + Ark server (test profile) with a mature chain. */
export async function startArkDevnet(seed: string): Promise<DevnetWithArk> {
  const devnet = await arkServer.startDevnetWithArk({ seed, ark: { profile: "test" } });
  if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
  return devnet;
}

/** The body creating a regtest wallet with `mnemonic` on `devnet`. */
export const createBody = (devnet: DevnetWithArk, mnemonic?: string) => ({
  network: "regtest", ark_server: devnet.arkUrl, chain_source: { esplora: { url: devnet.esploraUrl } }, ...(mnemonic ? { mnemonic } : {}),
});



/** The secret key of the daemon's VTXO key behind `address` (searched among the first 50 indexes). */
export function secretKeyOfAddress(mnemonic: string, address: string): { sk: Uint8Array; pk: Uint8Array } {
  const pk = decodeArkAddress(address).policy.userPubkey;
  const keys = WalletKeys.fromMnemonic(mnemonic);
  for (let i = 0; i < 50; i++) {
    const k = keys.vtxoKey(i);
    if (bytesEqual(k.publicKey, pk)) return { sk: k.secretKey, pk: k.publicKey };
  }
  throw new Error("address key not found");
}

/**
 * Boards `amount` sats onto the daemon's next Ark address key: funds the board output from the
 * faucet, gets it cosigned by the server, confirms it, registers it, and returns the VTXO's hex
 * (not yet known to the daemon).
 */
export async function boardToDaemon(d: Daemon, devnet: DevnetWithArk, mnemonic: string, amount: bigint): Promise<string> {
  const { address } = await ok<{ address: string }>(d, "POST", "/api/v1/wallet/addresses/next");
  const key = secretKeyOfAddress(mnemonic, address);
  const client = new ArkServerClient({ url: devnet.arkUrl, network: "regtest", userAgent: "tender-test/0.1.0" });
  try {
    const info = await client.arkInfo();
    const fees = info.fees as unknown as FeeSchedule;
    const expiryHeight = devnet.node.tipHeight() + info.vtxoLifetime;
    const taproot = boardFundingTaproot({ userPubkey: key.pk, serverPubkey: info.serverPubkey, expiryHeight });
    const fundingTxid = devnet.node.faucet(taproot.scriptPubKey, amount);
    const tx = devnet.node.getTransaction(fundingTxid)!;
    const vout = tx.vout.findIndex((o) => bytesEqual(o.scriptPubKey, taproot.scriptPubKey));
    const outpoint = { txid: reverseBytes(fromHex(fundingTxid)), vout };
    const exit = buildBoardExit({ userPubkey: key.pk, serverPubkey: info.serverPubkey, expiryHeight, exitDelta: info.vtxoExitDelta }, outpoint, amount, boardFee(fees.board, amount));
    const nonce = musigNonceGen({ pubkey: key.pk, secretKey: key.sk, aggregateKey: musigTweakedKey([key.pk, info.serverPubkey], exit.tweak), message: exit.sighash });
    const resp = await client.ark("requestBoardCosign", {
      amount, utxo: encodeOutPoint(outpoint), expiryHeight, userPubkey: key.pk, pubNonce: nonce.pubNonce, fundingTx: tx.raw,
    });
    const sig = musigCompleteCosign({ secretKey: key.sk, pubkey: key.pk, nonce, otherPubkey: info.serverPubkey, response: resp, message: exit.sighash, tweak: exit.tweak });
    const vtxo = boardVtxo(exit, sig);
    devnet.node.mine(info.requiredBoardConfirmations);
    await client.ark("registerBoardVtxo", { boardVtxo: encodeVtxo(vtxo) });
    return toHex(encodeVtxo(vtxo));
  } finally {
    client.close();
  }
}

/** `WalletVtxoInfo` as the tests read it. */
export interface VtxoInfo {
  id: string; amount_sat: number; policy_type: string; user_pubkey: string; server_pubkey: string; expiry_height: number;
  exit_delta: number; chain_anchor: string; exit_depth: number | null; state: { type: string; action_id?: string };
}
/** `Balance` as the tests read it. */
export interface Balance {
  spendable_sat: number; pending_lightning_send_sat: number; claimable_lightning_receive_sat: number; pending_in_round_sat: number;
  pending_board_sat: number; pending_exit_sat?: number;
}
/** `Movement` as the tests read it. */
export interface Movement {
  id: number; status: string; subsystem: { name: string; kind: string }; metadata?: Record<string, unknown>;
  intended_balance_sat: number; effective_balance_sat: number; offchain_fee_sat: number;
  sent_to: { destination: { type: string; value: string }; amount_sat: number }[];
  received_on: { destination: { type: string; value: string }; amount_sat: number }[];
  input_vtxos: string[]; output_vtxos: string[]; exited_vtxos: string[];
  time: { created_at: string; updated_at: string; completed_at?: string };
}

/** A third test mnemonic (BIP-39 vector). */
export const CAROL_MNEMONIC = "letter advice cage absurd amount doctor acoustic avoid letter advice cage above";

/** Opens the notification websocket of `d` (ticket flow) and collects its frames. */
export async function openNotifications(d: Daemon): Promise<{ ws: WebSocket; frames: { type: string; movement: Movement }[] }> {
  const ticket = (await d.api("GET", "/api/v1/notifications/ws/ticket")).json as string;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${d.port}/api/v1/notifications/ws?ticket=${ticket}`);
    const frames: { type: string; movement: Movement }[] = [];
    ws.on("message", (data) => frames.push(JSON.parse(String(data))));
    ws.on("open", () => resolve({ ws, frames }));
    ws.on("error", reject);
  });
}

/** The spendable balance of `d`. */
export async function spendable(d: Daemon): Promise<number> {
  return (await ok<Balance>(d, "GET", "/api/v1/wallet/balance")).spendable_sat;
}

/**
 * The arkoor-send action rows of the daemon whose datadir is `datadir`, read from its wallet
 * database (SQLite in WAL mode or a PostgreSQL schema: a second connection reads while it runs).
 */
export async function arkoorSendRows(datadir: string): Promise<{ id: string; step: string; state: string }[]> {
  const db = new Database({ entities: [], migrations: [] }, silentLogger);
  await db.open(daemonDatabase(datadir));
  try {
    return await new LeanSql(db, "kernel_action").all<{ id: string; step: string; state: string }>("select id, step, state from {t} where kind = ?", ["ark.arkoor-send"]);
  } finally {
    await db.close();
  }
}
