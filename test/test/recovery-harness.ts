/**
 * Shared setup of the recovery end-to-end tests: wallets that talk to the reference Ark server
 * through the devnet's fault proxy (`devnet.arkProxyUrl`), faults armed over
 * `/devnet/ark/faults`, deleting a wallet and creating it again from its mnemonic, and reading
 * what the server holds (recovery mailbox, spend states) without going through the proxy.
 */
import { expect } from "chai";
import { WalletKeys, encodeOutPoint, parseOutPoint, toHex } from "@tender/ark-protocol";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC } from "./ark-harness.js";
import {
  ROUNDS_ENV, boardAmounts, createBody, ok, printLogsOnFailure, roundsDaemonConfig, startRoundsDevnet, type DevnetWithArk, type VtxoInfo,
} from "./rounds-harness.js";

export { boardAmounts };

/** The body creating a regtest wallet with `mnemonic` whose Ark server is the devnet's fault proxy. */
export const proxyBody = (devnet: DevnetWithArk, mnemonic: string) => ({
  network: "regtest", ark_server: devnet.arkProxyUrl, chain_source: { esplora: { url: devnet.esploraUrl } }, mnemonic,
});

/** Arms one fault of the proxy; answers it with its id. */
export async function armFault(devnet: DevnetWithArk, fault: Record<string, unknown>): Promise<{ id: number; hits: number }> {
  const r = await fetch(`${devnet.arkControlUrl}/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(fault) });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`arming ${JSON.stringify(fault)}: ${r.status} ${text}`);
  return JSON.parse(text) as { id: number; hits: number };
}

/** How often the armed fault `id` fired. */
export async function faultHits(devnet: DevnetWithArk, id: number): Promise<number> {
  const { faults } = (await (await fetch(`${devnet.arkControlUrl}/faults`)).json()) as { faults: { id: number; hits: number }[] };
  const f = faults.find((x) => x.id === id);
  if (!f) throw new Error(`fault ${id} is not armed`);
  return f.hits;
}

/** Disarms every fault of the proxy. */
export async function clearFaults(devnet: DevnetWithArk): Promise<void> {
  const r = await fetch(`${devnet.arkControlUrl}/faults`, { method: "DELETE" });
  expect(r.status).to.equal(200);
}

/** Alice and Bob, two rounds-configured daemons on one devnet, for the fault-proxy recovery tests. */
export interface FaultProxyWallets {
  devnet: DevnetWithArk;
  alice: Daemon;
  bob: Daemon;
}

/** Stops (and removes the datadirs of) the daemons and the devnet, as far as they started. */
export async function stopFaultProxyWallets(w: Partial<FaultProxyWallets>): Promise<void> {
  for (const d of [w.alice, w.bob]) if (d) { await d.stop(); cleanup(d.datadir); }
  await w.devnet?.stop();
}

/**
 * Starts the devnet (`seed`) and both daemons, and creates Alice's wallet through the fault proxy
 * and Bob's through the proxy or straight at the server; stops what started if a step fails.
 */
export async function startFaultProxyWallets(seed: string, bobServer: "proxy" | "direct"): Promise<FaultProxyWallets> {
  const w: Partial<FaultProxyWallets> = {};
  try {
    const devnet = (w.devnet = await startRoundsDevnet(seed));
    const started = await Promise.allSettled([
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
    ]);
    [w.alice, w.bob] = started.map((r) => (r.status === "fulfilled" ? r.value : undefined));
    for (const r of started) if (r.status === "rejected") throw r.reason;
    const { alice, bob } = w as FaultProxyWallets;
    await ok(alice, "POST", "/api/v1/wallet/create", proxyBody(devnet, ALICE_MNEMONIC));
    await ok(bob, "POST", "/api/v1/wallet/create", bobServer === "proxy" ? proxyBody(devnet, BOB_MNEMONIC) : createBody(devnet, BOB_MNEMONIC));
    return { devnet, alice, bob };
  } catch (e) {
    await stopFaultProxyWallets(w).catch(() => undefined);
    throw e;
  }
}

/** After each test: the daemons' logs when it failed, and no fault left armed for the next. */
export async function afterFaultProxyTest(ctx: Mocha.Context, w: Partial<FaultProxyWallets>): Promise<void> {
  printLogsOnFailure(ctx, { alice: w.alice, bob: w.bob });
  if (w.devnet) await clearFaults(w.devnet);
}

/** Deletes `d`'s wallet with its datadir files and creates it again with `body` (recovery runs inside create). */
export async function deleteAndCreate(d: Daemon, body: Record<string, unknown>): Promise<void> {
  const { fingerprint } = await ok<{ fingerprint: string }>(d, "GET", "/api/v1/wallet");
  expect(await ok(d, "DELETE", "/api/v1/wallet", { dangerous: true, fingerprint })).to.deep.equal({ deleted: true, message: "Wallet deleted" });
  // a recovery that hands exited VTXOs to the exits rail records their movement: the answer then names it too
  expect((await ok<{ fingerprint: string }>(d, "POST", "/api/v1/wallet/create", body)).fingerprint).to.equal(fingerprint);
}

/** What a wallet holds, comparable across wallets: id, amount and state of each VTXO, by id. */
export const holdings = (vs: readonly VtxoInfo[]) => vs.map((v) => ({ id: v.id, amount_sat: v.amount_sat, state: v.state.type })).sort((a, b) => a.id.localeCompare(b.id));

/** The VTXO ids (`txid:vout`) the server holds in the recovery mailbox of `mnemonic`, each time it was posted. */
export async function recoveryMailbox(devnet: DevnetWithArk, mnemonic: string): Promise<string[]> {
  const mailboxId = toHex(WalletKeys.fromMnemonic(mnemonic).recoveryMailboxKey().publicKey);
  const rows = await devnet.ark.server.ctx.store.readMailbox(mailboxId, 0n, 100_000);
  return rows.filter((r) => r.kind === "recovery").map((r) => toHex(r.payload));
}

/** The hex of a VTXO id's 36-byte encoding, as {@link recoveryMailbox} lists them. */
export const encodedId = (id: string) => toHex(encodeOutPoint(parseOutPoint(id)));

/** The recovery mailbox public key of `mnemonic` (hex), for faults aimed at that mailbox. */
export const recoveryMailboxId = (mnemonic: string) => toHex(WalletKeys.fromMnemonic(mnemonic).recoveryMailboxKey().publicKey);
