/**
 * Shared setup of the board end-to-end tests: a devnet with its reference Ark server (test
 * profile, with a non-zero board fee and two required confirmations so fees and waiting are
 * visible), and daemons with every plugin a board needs.
 */
import { expect } from "chai";
import { arkServer } from "@tender/devnet";
import type { Daemon } from "../src/daemon-process.js";
import { ok, until } from "../src/api-helpers.js";
import { createBody, type Movement } from "./ark-harness.js";
export { createBody, type Movement };
export { ok, until };

type DevnetWithArk = arkServer.DevnetWithArk;
export type { DevnetWithArk };

/** The board fee of the test server: 100 sat + 1 % (so 200 000 sat → fee 2 100). */
export const BOARD_FEES = { minFeeSat: 0n, baseFeeSat: 100n, ppm: 10_000n };
export const MIN_BOARD_SAT = 20_000;
export const REQUIRED_CONFIRMATIONS = 2;

/** barkd's board fee for `amount` with {@link BOARD_FEES}. */
export const boardFeeOf = (amount: number): number => 100 + Math.ceil(amount / 100);

/** Starts the devnet + Ark server used by the board tests. */
export async function startBoardDevnet(seed: string, datadir?: string): Promise<DevnetWithArk> {
  const fees = { ...arkServer.testFeeSchedule(), board: BOARD_FEES };
  const devnet = await arkServer.startDevnetWithArk({
    seed, ...(datadir ? { datadir } : {}),
    ark: { profile: "test", overrides: { fees, requiredBoardConfirmations: REQUIRED_CONFIRMATIONS, minBoardAmount: BigInt(MIN_BOARD_SAT) } },
  });
  if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
  return devnet;
}

/** Daemon configuration with the board plugin and its neighbours; background loops off or fast. */
export const BOARD_DAEMON_CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain",
    "@tender/plugin-fees", "@tender/plugin-onchain", "@tender/plugin-ark", "@tender/plugin-boards",
  ],
  pluginConfig: { onchain: { syncIntervalMs: 3_600_000 }, boards: { pollMs: 100 }, notifications: { waitTimeoutMs: 300 } },
};


export interface PendingBoardInfo { funding_tx: { txid: string; tx: string }; vtxos: string[]; amount_sat: number; movement_id: number }


/** Creates a wallet and funds its on-chain part with confirmed coins from the faucet. */
export async function fundedWallet(d: Daemon, devnet: DevnetWithArk, amounts: readonly bigint[], mnemonic?: string): Promise<void> {
  const created = await d.api("POST", "/api/v1/wallet/create", { body: { ...createBody(devnet), ...(mnemonic ? { mnemonic } : {}) } });
  expect(created.status, created.text).to.equal(200);
  for (const a of amounts) {
    const { address } = await ok<{ address: string }>(d, "POST", "/api/v1/onchain/addresses/next");
    devnet.node.faucet(address, a);
  }
  devnet.node.mine(1);
  await ok(d, "POST", "/api/v1/onchain/sync");
}


/** The movement with `id` from `GET /api/v1/history`. */
export async function movement(d: Daemon, id: number): Promise<Movement | undefined> {
  return (await ok<Movement[]>(d, "GET", "/api/v1/history")).find((m) => m.id === id);
}
