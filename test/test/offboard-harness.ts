/**
 * Shared setup of the offboard end-to-end tests: a devnet with its reference Ark server (test
 * profile with a non-zero offboard fee: base, weight and a ppm tier), daemons with the offboard
 * plugin and its neighbours, and a wallet holding VTXOs of two origins — boards and one received
 * by arkoor.
 */
import { expect } from "chai";
import { arkServer } from "@tender/devnet";
import { bech32m } from "@scure/base";
import { randomBytes } from "node:crypto";
import { connectorScript, offboardFee, pubkeyFromSecret, type FeeSchedule } from "@tender/ark-protocol";
import type { Daemon } from "../src/daemon-process.js";
import { ok, until } from "../src/api-helpers.js";
import { createBody, type Balance, type Movement, type VtxoInfo } from "./ark-harness.js";
export { ok, until, type Balance, type Movement, type VtxoInfo };

export type DevnetWithArk = arkServer.DevnetWithArk;

/** The offboard part of the test server's fee schedule: 200 sat + 212 vB of weight + 1000 ppm on every VTXO. */
export const OFFBOARD_FEES: FeeSchedule["offboard"] = { baseFeeSat: 200n, fixedAdditionalVb: 212n, ppmExpiryTable: [{ expiryBlocksThreshold: 0, ppm: 1_000n }] };

/** Starts the devnet + Ark server used by the offboard tests (`overrides` change the server's configuration). */
export async function startOffboardDevnet(seed: string, overrides: Partial<arkServer.ArkServerConfig> = {}): Promise<DevnetWithArk> {
  const fees = { ...arkServer.testFeeSchedule(), offboard: OFFBOARD_FEES };
  const devnet = await arkServer.startDevnetWithArk({ seed, ark: { profile: "test", overrides: { fees, ...overrides } } });
  if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
  return devnet;
}

/** Daemon configuration with the offboard plugin; its waits are short, the on-chain sync manual. */
export function offboardDaemonConfig(offboard: Record<string, unknown> = {}): object {
  return {
    plugins: [
      "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
      "@tender/plugin-onchain", "@tender/plugin-ark", "@tender/plugin-boards", "@tender/plugin-offboard",
    ],
    pluginConfig: {
      onchain: { syncIntervalMs: 3_600_000 }, boards: { pollMs: 100 }, notifications: { waitTimeoutMs: 300 },
      ark: { deliveryRetryMs: 500 }, offboard: { pollMs: 200, retryMs: 200, ...offboard },
    },
  };
}

/** Creates a wallet, funds its on-chain part with confirmed coins and syncs it. */
export async function fundedWallet(d: Daemon, devnet: DevnetWithArk, amounts: readonly bigint[]): Promise<void> {
  const created = await d.api("POST", "/api/v1/wallet/create", { body: createBody(devnet) });
  expect(created.status, created.text).to.equal(200);
  for (const a of amounts) {
    const { address } = await ok<{ address: string }>(d, "POST", "/api/v1/onchain/addresses/next");
    devnet.node.faucet(address, a);
  }
  devnet.node.mine(1);
  await ok(d, "POST", "/api/v1/onchain/sync");
}

/** Boards `amount` and waits until the board VTXO is registered (spendable); returns its id. */
export async function boardAndRegister(d: Daemon, devnet: DevnetWithArk, amount: number): Promise<string> {
  const board = await ok<{ vtxos: string[] }>(d, "POST", "/api/v1/boards/board-amount", { amount_sat: amount });
  await until("the board registered", async () => {
    if ((await ok<unknown[]>(d, "GET", "/api/v1/boards/pending")).length === 0) return true;
    devnet.node.mine(1);
    await new Promise((r) => setTimeout(r, 150));
    return undefined;
  }, 60_000);
  return board.vtxos[0]!;
}

/** Pays `amount` from `from` to a fresh Ark address of `to` and waits until `to` holds the VTXO; returns its id. */
export async function payArk(from: Daemon, to: Daemon, amount: number): Promise<string> {
  const before = new Set((await ok<VtxoInfo[]>(to, "GET", "/api/v1/wallet/vtxos")).map((v) => v.id));
  const { address } = await ok<{ address: string }>(to, "POST", "/api/v1/wallet/addresses/next");
  await ok(from, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: amount });
  return until("the arkoor payment received", async () => {
    await ok(to, "POST", "/api/v1/wallet/sync");
    return (await ok<VtxoInfo[]>(to, "GET", "/api/v1/wallet/vtxos")).find((v) => !before.has(v.id) && v.amount_sat === amount)?.id;
  }, 30_000);
}

/** A fresh regtest P2TR address nobody in the test spends from. */
export function externalAddress(): string {
  // a key-path-only P2TR output of a random key
  const program = connectorScript(pubkeyFromSecret(new Uint8Array(randomBytes(32)))).subarray(2);
  return bech32m.encode("bcrt", [1, ...bech32m.toWords(program)]);
}

/** What `address` received in the outputs of tx `txid` (devnet node: mempool or chain). */
export function paidTo(devnet: DevnetWithArk, txid: string, address: string): bigint {
  const tx = devnet.node.getTransaction(txid);
  if (!tx) throw new Error(`tx ${txid} is unknown to the node`);
  return tx.vout.filter((o) => o.address === address).reduce((t, o) => t + o.amountSat, 0n);
}

/** barkd's `FeeEstimateResponse`. */
export interface FeeEstimate { gross_amount_sat: number; fee_sat: number; net_amount_sat: number; vtxos_spent: string[] }

/** `WalletVtxoInfo` with its state. */
export type WalletVtxo = VtxoInfo & { state: { type: string; action_id?: string } };

/** Every VTXO of `d` (spent included). */
export const allVtxos = (d: Daemon) => ok<WalletVtxo[]>(d, "GET", "/api/v1/wallet/vtxos?all=true");

/** The wallet's `bark.offboard` movements, oldest first. */
export async function offboardMovements(d: Daemon): Promise<Movement[]> {
  return (await ok<Movement[]>(d, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.offboard").sort((a, b) => a.id - b.id);
}

/** The test server's offboard fee rate in sat/kWu, as the daemon converts it. */
export async function serverFeeRateSatPerKwu(devnet: DevnetWithArk): Promise<bigint> {
  return (await devnet.ark.server.offboardFeeRateSatVkb() + 3n) / 4n;
}

/** The offboard fee the test server charges for `chargeable` sats of inputs (all in its one ppm tier) to a P2TR address. */
export async function expectedFee(devnet: DevnetWithArk, chargeable: bigint, inputs: readonly bigint[]): Promise<number> {
  const rate = await serverFeeRateSatPerKwu(devnet);
  return Number(offboardFee(OFFBOARD_FEES, chargeable, new Uint8Array(34), rate, inputs.map((amount) => ({ amount, blocksToExpiry: 100 }))));
}

/** Sats paid to `address` by every transaction the node knows (mempool and chain). */
export function receivedBy(devnet: DevnetWithArk, address: string): bigint {
  return devnet.node.historyForScript(address).reduce((t, tx) => t + tx.vout.filter((o) => o.address === address).reduce((s, o) => s + o.amountSat, 0n), 0n);
}
