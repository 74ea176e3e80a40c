/**
 * Shared pieces of the Lightning send end-to-end tests that look at coins: the daemon
 * configuration (Ark + Lightning plugins), barkd's send status, the wallet's Lightning-send
 * movement of a payment hash, waiting for a send to end, the server's spend state of a VTXO,
 * the Lightning-send fee of a set of wallet VTXOs as the protocol prices it, and a devnet whose
 * server charges captaind's Lightning-send fee.
 */
import { expect } from "chai";
import { arkServer } from "@tender/devnet";
import { captaindDefaultFeeSchedule, decodeVtxo, lightningSendFee, type FeeSchedule, type LightningSendFeeParams } from "@tender/ark-protocol";
import type { Daemon } from "../src/daemon-process.js";
import { ok, until, type Balance, type DevnetWithArk, type Movement, type VtxoInfo } from "./ark-harness.js";

/** Wallet, history, chain, fees, Ark and Lightning plugins with fast loops. */
export const LIGHTNING_CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 } },
};

/** captaind's Lightning-send fee: at least 10, 75 base, ppm by blocks to expiry (0 below 97, 1000 from 97, 4000 from 199, 8000 from 2161). */
export const LN_SEND_FEE = captaindDefaultFeeSchedule().lightningSend;

/** A devnet whose server charges captaind's Lightning-send fee, and `fees` (everything else free, as bark's test harness). */
export async function feeDevnet(seed: string, fees: Partial<FeeSchedule> = {}): Promise<DevnetWithArk> {
  const devnet = await arkServer.startDevnetWithArk({
    seed, ark: { profile: "test", overrides: { fees: { ...arkServer.testFeeSchedule(), lightningSend: LN_SEND_FEE, ...fees } } },
  });
  if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
  return devnet;
}

/** barkd's `LightningSendInfo`. */
export interface SendInfo { payment_hash: string; state: string; invoice: string | null; preimage: string | null }

export const balance = (d: Daemon) => ok<Balance>(d, "GET", "/api/v1/wallet/balance");
export const spendableVtxos = (d: Daemon) => ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos");
export const sendStatus = (d: Daemon, id: string) => ok<SendInfo>(d, "GET", `/api/v1/lightning/sends/${id}`);

/** The wallet's `bark.lightning_send` movements of `hash`. */
export async function sendMovements(d: Daemon, hash: string): Promise<Movement[]> {
  return (await ok<Movement[]>(d, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.lightning_send" && m.metadata?.payment_hash === hash);
}

/** Waits until the send of `hash` is paid and nothing is pending any more; returns its status. */
export async function untilPaid(d: Daemon, hash: string, ms = 60_000): Promise<SendInfo> {
  return until(`send ${hash} paid`, async () => {
    const s = await sendStatus(d, hash);
    return s.state === "paid" && (await balance(d)).pending_lightning_send_sat === 0 ? s : undefined;
  }, ms);
}

/** Waits until the send of `hash` was revoked (movement failed, nothing pending); returns the movement. */
export async function untilRevoked(d: Daemon, hash: string, ms = 60_000): Promise<Movement> {
  return until(`send ${hash} revoked`, async () => {
    const [m] = await sendMovements(d, hash);
    return m?.status === "failed" && (await balance(d)).pending_lightning_send_sat === 0 ? m : undefined;
  }, ms);
}

/** The server's spend state of VTXO `id` (undefined when the server does not know it). */
export async function serverState(devnet: DevnetWithArk, id: string): Promise<string | undefined> {
  return (await devnet.ark.server.ctx.store.getVtxo(id))?.state;
}

/** The server's amount of VTXO `id`. */
export async function serverAmount(devnet: DevnetWithArk, id: string): Promise<number> {
  const row = await devnet.ark.server.ctx.store.getVtxo(id);
  expect(row, `the server knows ${id}`).to.not.equal(undefined);
  return Number(decodeVtxo(row!.bytes).amount);
}

/** Every spendable VTXO of the wallet is spendable at the server too; answers their sum. */
export async function walletAgreesWithServer(d: Daemon, devnet: DevnetWithArk): Promise<number> {
  let total = 0;
  for (const v of await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos?all=true")) {
    expect(v.state.type, `wallet VTXO ${v.id}`).to.be.oneOf(["spendable", "spent"]);
    expect(await serverState(devnet, v.id), `server state of ${v.state.type} VTXO ${v.id}`).to.equal(v.state.type);
    if (v.state.type === "spendable") total += v.amount_sat;
  }
  return total;
}

/** The Lightning-send fee of paying `amount` from `inputs` at tip `tip` under `params`. */
export function sendFeeOf(params: LightningSendFeeParams, amount: number, inputs: readonly VtxoInfo[], tip: number): number {
  return Number(lightningSendFee(params, BigInt(amount), inputs.map((v) => ({ amount: BigInt(v.amount_sat), blocksToExpiry: Math.max(0, v.expiry_height - tip) }))));
}
