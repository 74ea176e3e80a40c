/**
 * Shared setup of the recovery end-to-end tests: wallets that talk to the reference Ark server
 * through the devnet's fault proxy (`devnet.arkProxyUrl`), faults armed over
 * `/devnet/ark/faults`, deleting a wallet and creating it again from its mnemonic, and reading
 * what the server holds (recovery mailbox, spend states) without going through the proxy.
 */
import { expect } from "chai";
import { WalletKeys, encodeOutPoint, parseOutPoint, toHex } from "@tender/ark-protocol";
import type { Daemon } from "../src/daemon-process.js";
import { ok, until, type DevnetWithArk, type VtxoInfo } from "./rounds-harness.js";

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
