/**
 * The devnet with its reference Ark server: {@link startDevnet} plus {@link startArkServer} on the
 * same node, stopped together. `src/devnet.ts` has no extension hook, so the combination lives
 * here; {@link arkReadyFields} gives the fields the "devnet ready" line gains.
 *
 * @example
 * ```ts
 * const devnet = await startDevnetWithArk({ seed: "demo", ark: { profile: "test" } });
 * // devnet.arkUrl → "http://127.0.0.1:<port>"
 * await devnet.stop();
 * ```
 */
import { startDevnet, type Devnet, type StartDevnetOptions } from "../devnet.js";
import { toHex } from "@tender/ark-protocol";
import { startArkServer, type RunningArkServer, type StartArkServerOptions } from "./start-ark-server.js";

/** Options of {@link startDevnetWithArk}: the devnet's, plus the Ark server's (node and datadir are shared). */
export interface StartDevnetWithArkOptions extends StartDevnetOptions {
  readonly ark?: Omit<StartArkServerOptions, "node" | "datadir">;
  /**
   * Sats the devnet faucet pays to the server's on-chain wallet when that wallet is empty
   * (confirmed by one block mined right away); default 1 BTC, 0 = do not fund.
   */
  readonly fundServerWalletSat?: bigint;
}

/** Default funding of the server wallet. */
export const DEFAULT_SERVER_WALLET_FUNDING_SAT = 100_000_000n;

/** A running devnet with its Ark server. */
export interface DevnetWithArk extends Devnet {
  readonly ark: RunningArkServer;
  /** Public gRPC URL of the Ark server. */
  readonly arkUrl: string;
  /** Admin gRPC URL of the Ark server. */
  readonly arkAdminUrl: string;
}

/** The fields the "devnet ready" JSON gains: `ark`, `ark_admin`, `ark_server_pubkey`. */
export function arkReadyFields(ark: RunningArkServer): { ark: string; ark_admin: string; ark_server_pubkey: string } {
  return { ark: ark.url, ark_admin: ark.adminUrl, ark_server_pubkey: toHex(ark.server.ctx.keys.serverPubkey) };
}

/**
 * Starts the devnet, then the Ark server on its node (its database in the devnet datadir when
 * one is given), and funds an empty server wallet from the faucet.
 */
export async function startDevnetWithArk(options: StartDevnetWithArkOptions = {}): Promise<DevnetWithArk> {
  const { ark: arkOptions, fundServerWalletSat, ...devnetOptions } = options;
  const devnet = await startDevnet(devnetOptions);
  let ark: RunningArkServer;
  try {
    ark = await startArkServer({ ...arkOptions, node: devnet.node, ...(options.datadir !== undefined ? { datadir: options.datadir } : {}) });
  } catch (e) {
    await devnet.stop();
    throw e;
  }
  const funding = fundServerWalletSat ?? DEFAULT_SERVER_WALLET_FUNDING_SAT;
  if (funding > 0n && ark.server.walletStatus().totalBalance === 0n) {
    ark.server.wallet.fundFromFaucet(funding);
    devnet.node.mine(1);
  }
  return {
    ...devnet,
    ark,
    arkUrl: ark.url,
    arkAdminUrl: ark.adminUrl,
    stop: async () => {
      await ark.stop();
      await devnet.stop();
    },
  };
}
