/**
 * Shared setup of the exit end-to-end tests: a devnet with its reference Ark server (test profile:
 * exit delta 12 blocks), daemons with the exits plugin and its neighbours, and a wallet holding
 * VTXOs of every origin — a board, one received by arkoor, and change of its own arkoor payment.
 */
import { expect } from "chai";
import { arkServer } from "@tender/devnet";
import type { Daemon } from "../src/daemon-process.js";
import { ok, until } from "../src/api-helpers.js";
import { createBody, type Balance, type Movement, type VtxoInfo } from "./ark-harness.js";
export { ok, until, type Balance, type Movement, type VtxoInfo };

export type DevnetWithArk = arkServer.DevnetWithArk;

/** Blocks a claim waits after the exit chain confirmed (the test profile's `vtxo_exit_delta`). */
export const EXIT_DELTA = 12;

/** Starts the devnet + Ark server (test profile) with a mature chain. */
export async function startExitDevnet(seed: string): Promise<DevnetWithArk> {
  const devnet = await arkServer.startDevnetWithArk({ seed, ark: { profile: "test" } });
  if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
  return devnet;
}

/** Daemon configuration with the exits plugin; background loops off unless `progressIntervalMs` is given. */
export function exitDaemonConfig(progressIntervalMs = 3_600_000): object {
  return {
    plugins: [
      "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
      "@tender/plugin-onchain", "@tender/plugin-ark", "@tender/plugin-boards", "@tender/plugin-exits",
    ],
    pluginConfig: {
      onchain: { syncIntervalMs: 3_600_000 }, boards: { pollMs: 100 }, notifications: { waitTimeoutMs: 300 },
      ark: { deliveryRetryMs: 500 }, exits: { progressIntervalMs },
    },
  };
}

/** `ExitTransactionStatus` as the tests read it. */
export interface ExitStatus {
  vtxo_id: string;
  state: { type: string } & Record<string, unknown>;
  history?: { type: string }[];
  transactions?: { exit: { txid: string; tx: string }; child: { info: { txid: string; tx: string }; fee_info?: { total_fee_sat: number }; origin: { type: string } } | null }[];
}
export interface ExitProgress { exits: { vtxo_id: string; state: { type: string }; error?: { type: string } }[]; done: boolean; claimable_height: number | null }
export interface FeeEstimate { exit_broadcast_fee_sat: number; claim_fee_sat: number; total_fee_sat: number; fee_rate_sat_per_vb: number; txs_to_broadcast: number; fundable: boolean }
export interface WalletTx { txid: string; tx: string; onchain_fee_sat?: number; is_cpfp: boolean; balance_change_sat: number }

/** Creates a wallet, funds its on-chain part with confirmed coins, and syncs it. */
export async function fundedWallet(d: Daemon, devnet: DevnetWithArk, amounts: readonly bigint[]): Promise<void> {
  const created = await d.api("POST", "/api/v1/wallet/create", { body: createBody(devnet) });
  expect(created.status, created.text).to.equal(200);
  await fundOnchain(d, devnet, amounts);
}

/** Pays `amounts` to fresh on-chain addresses of `d`, confirms them and syncs. */
export async function fundOnchain(d: Daemon, devnet: DevnetWithArk, amounts: readonly bigint[]): Promise<void> {
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
    const pending = await ok<unknown[]>(d, "GET", "/api/v1/boards/pending");
    if (pending.length === 0) return true;
    devnet.node.mine(1);
    await new Promise((r) => setTimeout(r, 200));
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

/** Live exit statuses of `d`. */
export const liveExits = (d: Daemon, query = "") => ok<ExitStatus[]>(d, "GET", `/api/v1/exits/status/live${query}`);

/**
 * Calls `progress` and mines a block until every live exit of every daemon is claimable (or
 * beyond); answers the number of rounds it took.
 */
export async function progressUntilClaimable(devnet: DevnetWithArk, daemons: readonly Daemon[], maxRounds = 60): Promise<number> {
  for (let round = 0; round < maxRounds; round++) {
    let all = true;
    for (const d of daemons) {
      const p = await ok<ExitProgress>(d, "POST", "/api/v1/exits/progress", {});
      for (const e of p.exits) expect(e.error, `${e.vtxo_id}: ${JSON.stringify(e.error)}`).to.equal(undefined);
      if (p.exits.some((e) => !["claimable", "claim-in-progress"].includes(e.state.type))) all = false;
    }
    if (all) return round;
    devnet.node.mine(1);
  }
  throw new Error("exits did not become claimable");
}
