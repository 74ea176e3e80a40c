import { arkServer } from "@tender/devnet";

type DevnetWithArk = arkServer.DevnetWithArk;

let shared: Promise<DevnetWithArk> | undefined;

/**
 * One devnet (regtest chain with Esplora and bitcoind-RPC faces, plus the reference Ark server)
 * shared by the end-to-end tests of this process; started on first use, stopped after the run.
 */
export function sharedDevnet(): Promise<DevnetWithArk> {
  shared ??= arkServer.startDevnetWithArk({ seed: "tender-e2e-shared", ark: { profile: "test" } });
  return shared;
}

/** A `CreateWalletRequest` for a regtest wallet on the shared devnet (Esplora chain source, its Ark server). */
export async function regtestWallet(extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const d = await sharedDevnet();
  return { network: "regtest", ark_server: d.arkUrl, chain_source: { esplora: { url: d.esploraUrl } }, ...extra };
}

after(async function () {
  this.timeout(30_000);
  if (shared) await (await shared).stop();
});
