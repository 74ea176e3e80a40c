/**
 * Shared setup of the refresh (hArk round) end-to-end tests: a devnet whose reference Ark server
 * runs the test profile with short sign-up and signing windows and a refresh fee (so fees show),
 * rounds started through the devnet's control (never by waiting for the interval), and daemons
 * with tenderd's default plugins (boards and rounds included) whose background loops are fast.
 */
import { expect } from "chai";
import { arkServer } from "@tender/devnet";
import type { Daemon } from "../src/daemon-process.js";
import { ok, until } from "../src/api-helpers.js";
import { createBody, type Balance, type Movement, type VtxoInfo } from "./ark-harness.js";
export { ok, until, createBody, type Balance, type Movement, type VtxoInfo };

export type DevnetWithArk = arkServer.DevnetWithArk;

/** The refresh fee of the test server: 100 sat plus 1000 ppm of the inputs, whatever their expiry. */
export const REFRESH_BASE_FEE = 100;
export const REFRESH_PPM = 1000;
/** barkd's refresh fee of inputs worth `total` with the test server's schedule. */
export const refreshFeeOf = (total: number): number => REFRESH_BASE_FEE + Math.ceil((total * REFRESH_PPM) / 1_000_000);

/** Confirmations the daemons wait for before the hArk swap (`round_tx_required_confirmations`). */
export const ROUND_CONFIRMATIONS = 2;
/** The test profile's VTXO lifetime in blocks. */
export const VTXO_LIFETIME = 432;

/** Environment of every rounds test daemon: the wallet settings the tests rely on. */
export const ROUNDS_ENV: NodeJS.ProcessEnv = { TENDER_ROUND_TX_REQUIRED_CONFIRMATIONS: String(ROUND_CONFIRMATIONS) };

/** tenderd's default plugins with fast background loops. */
export function roundsDaemonConfig(rounds: Record<string, unknown> = {}): object {
  return {
    pluginConfig: {
      onchain: { syncIntervalMs: 3_600_000 },
      boards: { pollMs: 100 },
      notifications: { waitTimeoutMs: 300 },
      ark: { deliveryRetryMs: 500 },
      rounds: { eventsTickMs: 100, syncIntervalMs: 500, ...rounds },
    },
  };
}

/** Calls a devnet control of the Ark server (`POST /devnet/ark/<path>` with `body`), expecting 200; returns its JSON. */
export async function arkControl<T = unknown>(devnet: DevnetWithArk, path: string, body: unknown = {}): Promise<T> {
  const r = await fetch(`${devnet.arkControlUrl}/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`devnet control ${path}: ${r.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Starts a round now (the devnet's `trigger-round` control). */
export async function triggerRound(devnet: DevnetWithArk): Promise<void> {
  expect(await arkControl(devnet, "trigger-round")).to.deep.equal({ triggered: true });
}

/** The server's last round event, if any. */
function lastRoundEvent(devnet: DevnetWithArk): { kind: string; roundSeq: bigint } | undefined {
  try {
    return devnet.ark.server.lastRoundEvent();
  } catch {
    return undefined;
  }
}

/**
 * Triggers a round through the devnet control and waits until it ended (`finished`, or `failed`
 * when nobody joined); answers how it ended.
 */
export async function runRound(devnet: DevnetWithArk, ms = 30_000): Promise<"finished" | "failed"> {
  const before = lastRoundEvent(devnet)?.roundSeq ?? -1n;
  await triggerRound(devnet);
  return until("the triggered round to end", async () => {
    const e = lastRoundEvent(devnet);
    return e && e.roundSeq > before && (e.kind === "finished" || e.kind === "failed") ? (e.kind as "finished" | "failed") : undefined;
  }, ms);
}

/** Starts the devnet for the rounds tests: test profile, mature chain, short round windows, the refresh fee. */
export async function startRoundsDevnet(seed: string): Promise<DevnetWithArk> {
  const devnet = await arkServer.startDevnetWithArk({ seed, ark: { profile: "test" } });
  if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
  await arkControl(devnet, "settings", {
    round_submit_time_ms: 1_500,
    round_sign_time_ms: 4_000,
    fees: { refresh: { base_fee_sat: REFRESH_BASE_FEE, ppm_expiry_table: [{ expiry_blocks_threshold: 0, ppm: REFRESH_PPM }] } },
  });
  return devnet;
}

/** Creates a wallet with `mnemonic` and boards each amount (one faucet coin each), waiting until every board is registered. */
export async function boardedWallet(d: Daemon, devnet: DevnetWithArk, mnemonic: string, amounts: readonly number[]): Promise<void> {
  await ok(d, "POST", "/api/v1/wallet/create", { ...createBody(devnet, mnemonic) });
  await boardAmounts(d, devnet, amounts);
}

/** Funds `d`'s on-chain wallet with one faucet coin per amount and boards each, waiting until every board is registered. */
export async function boardAmounts(d: Daemon, devnet: DevnetWithArk, amounts: readonly number[]): Promise<void> {
  for (const a of amounts) {
    const { address } = await ok<{ address: string }>(d, "POST", "/api/v1/onchain/addresses/next");
    devnet.node.faucet(address, BigInt(a) + 10_000n);
  }
  devnet.node.mine(1);
  await ok(d, "POST", "/api/v1/onchain/sync");
  for (const a of amounts) await ok(d, "POST", "/api/v1/boards/board-amount", { amount_sat: a });
  devnet.node.mine(1);
  await until("the boards registered", async () => ((await ok<unknown[]>(d, "GET", "/api/v1/boards/pending")).length === 0 ? true : undefined), 60_000);
}

/** barkd's `PendingRoundInfo`. */
export interface PendingRoundInfo {
  id: number;
  status: { status: string; funding_txid?: string; error?: string };
  participation: { inputs: string[]; outputs: { amount_sat: number; policy_type: string; user_pubkey: string }[] };
  unlock_hash: string | null;
  funding_txid: string | null;
  funding_tx_hex: string | null;
}

export const rounds = (d: Daemon) => ok<PendingRoundInfo[]>(d, "GET", "/api/v1/wallet/rounds");
export const balance = (d: Daemon) => ok<Balance>(d, "GET", "/api/v1/wallet/balance");
export const vtxos = (d: Daemon) => ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos");
export const allVtxos = (d: Daemon) => ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos?all=true");
export const history = (d: Daemon) => ok<Movement[]>(d, "GET", "/api/v1/history");
export const sum = (xs: readonly { amount_sat: number }[]): number => xs.reduce((t, x) => t + x.amount_sat, 0);

/** Waits until `d`'s round list shows participation `id` with `status` (the list re-syncs on every read). */
export async function untilRoundStatus(d: Daemon, id: number, status: string, ms = 30_000): Promise<PendingRoundInfo> {
  return until(`round participation ${id} to be ${status}`, async () => (await rounds(d)).find((r) => r.id === id && r.status.status === status), ms);
}

/** Waits until the refresh movement `movementId` of `d` has ended, and returns it. */
export async function untilMovementEnded(d: Daemon, movementId: number, ms = 30_000): Promise<Movement> {
  return until(`movement ${movementId} to end`, async () => (await history(d)).find((m) => m.id === movementId && m.status !== "pending"), ms);
}

/** The server's spend state of VTXO `id` (undefined when the server does not know it). */
export async function serverState(devnet: DevnetWithArk, id: string): Promise<string | undefined> {
  return (await devnet.ark.server.ctx.store.getVtxo(id))?.state;
}

/** Prints the tail of each daemon's log when the current test failed (call from `afterEach`). */
export function printLogsOnFailure(ctx: Mocha.Context, daemons: Record<string, Daemon | undefined>): void {
  if (ctx.currentTest?.state !== "failed") return;
  for (const [name, d] of Object.entries(daemons)) if (d) console.error(`---- ${name} (last 6000 chars of stderr)\n${d.stderr().slice(-6000)}`);
}
