/**
 * The set-up of the Ark payment e2e tests that pay from Carol to Bob over HTTP: a devnet with its
 * Ark server, Bob's daemon (the payee, with one fresh address) and Carol's daemon on a datadir the
 * test keeps (so it can restart her), funded with one boarded VTXO.
 */
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { BOB_MNEMONIC, CAROL_MNEMONIC, arkDaemonConfig, boardToDaemon, createBody, ok, startArkDevnet, type DevnetWithArk } from "./ark-harness.js";

export interface ArkPaymentPair {
  devnet: DevnetWithArk;
  bob: Daemon;
  carol: Daemon;
  /** Bob's Ark address the payments go to. */
  address: string;
}

/** What {@link stopArkPaymentPair} stops: whichever parts started. */
export type ArkPaymentPairParts = { [K in keyof ArkPaymentPair]?: ArkPaymentPair[K] };

/** Stops Carol (removing `carolDatadir`), Bob (removing his datadir) and the devnet, as far as they started. */
export async function stopArkPaymentPair(p: ArkPaymentPairParts, carolDatadir: string): Promise<void> {
  await p.carol?.stop();
  cleanup(carolDatadir);
  await p.bob?.stop();
  if (p.bob) cleanup(p.bob.datadir);
  await p.devnet?.stop();
}

/** Starts the devnet (`seed`), Bob and Carol (on `carolDatadir`, boarded with `carolSat`); stops what started if a step fails. */
export async function startArkPaymentPair(seed: string, carolDatadir: string, carolSat = 300_000n): Promise<ArkPaymentPair> {
  const p: ArkPaymentPairParts = {};
  try {
    const devnet = (p.devnet = await startArkDevnet(seed));
    const bob = (p.bob = await startDaemon({ config: arkDaemonConfig() }));
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    const carol = (p.carol = await startDaemon({ datadir: carolDatadir, config: arkDaemonConfig() }));
    await ok(carol, "POST", "/api/v1/wallet/create", createBody(devnet, CAROL_MNEMONIC));
    const hex = await boardToDaemon(carol, devnet, CAROL_MNEMONIC, carolSat);
    await ok(carol, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    return { devnet, bob, carol, address };
  } catch (e) {
    await stopArkPaymentPair(p, carolDatadir).catch(() => undefined);
    throw e;
  }
}
