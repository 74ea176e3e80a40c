/**
 * The devnet with its reference Ark server: {@link startDevnet} plus {@link startArkServer} on the
 * same node, stopped together, with the server's controls mounted under the devnet's control API
 * (`/devnet/ark`, see `ark-control-routes.ts`); {@link arkReadyFields} gives the fields the
 * "devnet ready" line gains. Without a datadir the server's database lives in a temporary
 * directory removed at stop, so the controls can stop and start the server without losing state.
 *
 * @example
 * ```ts
 * const devnet = await startDevnetWithArk({ seed: "demo", ark: { profile: "test" } });
 * // devnet.arkUrl → "http://127.0.0.1:<port>", devnet.arkControlUrl → "<control>/ark"
 * await devnet.stop();
 * ```
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevnet, type Devnet, type StartDevnetOptions } from "../devnet.js";
import { toHex } from "@tender/ark-protocol";
import { arkControlRoutes } from "./ark-control-routes.js";
import { startArkServer, type RunningArkServer, type StartArkServerOptions } from "./start-ark-server.js";
import { SimulatedLightningNetwork, type SimulatedRouting } from "../lightning/simulated-network.js";
import { lnControlRoutes } from "../lightning/ln-control-routes.js";
import { LnurlPayServer } from "../lightning/lnurl-server.js";
import { startLnurlHttpsServer, type LnurlHttpsServer } from "../lightning/lnurl-https.js";
import { offerControlRoutes } from "../lightning/offer-control-routes.js";
import { startFaultProxy, type FaultProxy } from "./fault-proxy/fault-proxy.js";

/** Options of {@link startDevnetWithArk}: the devnet's, plus the Ark server's (node and datadir are shared). */
export interface StartDevnetWithArkOptions extends StartDevnetOptions {
  readonly ark?: Omit<StartArkServerOptions, "node" | "datadir">;
  /**
   * Sats the devnet faucet pays to the server's on-chain wallet when that wallet is empty
   * (confirmed by one block mined right away); default 1 BTC, 0 = do not fund.
   */
  readonly fundServerWalletSat?: bigint;
  /** Routing of the simulated Lightning network the server pays through. */
  readonly lightningRouting?: Partial<SimulatedRouting>;
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
  /** Base URL of the Ark server's controls (`<control>/ark`). */
  readonly arkControlUrl: string;
  /**
   * The fault-injecting gRPC proxy in front of the Ark server (`fault-proxy/`): a wallet given
   * {@link arkProxyUrl} as its server talks to the server through it; its faults are armed over
   * `<control>/ark/faults`.
   */
  readonly arkProxy: FaultProxy;
  /** Public gRPC URL of the fault proxy. */
  readonly arkProxyUrl: string;
  /** The simulated Lightning network (the server's node and an external payee). */
  readonly lightning: SimulatedLightningNetwork;
  /** Base URL of its controls (`<control>/ln`). */
  readonly lnControlUrl: string;
  /** The payee's LNURL-pay service (Lightning addresses `<user>@<domain>`). */
  readonly lnurl: LnurlPayServer;
  /** Plain-http base URL serving the LNURL domain (`<control>/lnurl`): a regtest wallet may map the domain to it (no TLS). */
  readonly lnurlBaseUrl: string;
  /** The LNURL routes over https with a certificate for the domain, signed by a CA made at start. */
  readonly lnurlHttps: LnurlHttpsServer;
  /** `https://127.0.0.1:<port>`: what a regtest wallet maps the LNURL domain to for verified TLS. */
  readonly lnurlHttpsUrl: string;
  /** PEM file of the CA that signed the LNURL certificate (`<datadir>/lnurl-ca.pem`, else in a temporary directory). */
  readonly lnurlCaFile: string;
  /** Base URL of the offer and LNURL-user controls (`<control>/ln-offers`). */
  readonly lnOffersControlUrl: string;
}

/**
 * The fields the "devnet ready" JSON gains: `ark`, `ark_admin`, `ark_control`, `ark_server_pubkey`, and `lightning` (its controls,
 * the payee's node id, the LNURL domain with its plain-http base, its https URL and the CA file to trust).
 */
export function arkReadyFields(devnet: Pick<DevnetWithArk, "ark" | "arkControlUrl"> & Partial<Pick<DevnetWithArk, "arkProxyUrl" | "lightning" | "lnControlUrl" | "lnurl" | "lnurlBaseUrl" | "lnurlHttpsUrl" | "lnurlCaFile" | "lnOffersControlUrl">>): {
  ark: string; ark_admin: string; ark_control: string; ark_server_pubkey: string; ark_fault_proxy?: string;
  lightning?: {
    control: string; network: string; payee_node_id: string; offers_control?: string; lnurl_domain?: string; lnurl_base_url?: string;
    lnurl_https_url?: string; lnurl_ca_file?: string;
  };
} {
  const { ark } = devnet;
  return {
    ark: ark.url, ark_admin: ark.adminUrl, ark_control: devnet.arkControlUrl, ark_server_pubkey: toHex(ark.server.ctx.keys.serverPubkey),
    ...(devnet.arkProxyUrl ? { ark_fault_proxy: devnet.arkProxyUrl } : {}),
    ...(devnet.lightning && devnet.lnControlUrl ? {
      lightning: {
        control: devnet.lnControlUrl, network: devnet.lightning.network, payee_node_id: toHex(devnet.lightning.payeeNodeId),
        ...(devnet.lnOffersControlUrl ? { offers_control: devnet.lnOffersControlUrl } : {}),
        ...(devnet.lnurl && devnet.lnurlBaseUrl ? { lnurl_domain: devnet.lnurl.domain, lnurl_base_url: devnet.lnurlBaseUrl } : {}),
        ...(devnet.lnurl && devnet.lnurlHttpsUrl && devnet.lnurlCaFile ? { lnurl_https_url: devnet.lnurlHttpsUrl, lnurl_ca_file: devnet.lnurlCaFile } : {}),
      },
    } : {}),
  };
}

/**
 * Starts the devnet, then the Ark server on its node (its database in the devnet datadir when
 * one is given), and funds an empty server wallet from the faucet.
 */
export async function startDevnetWithArk(options: StartDevnetWithArkOptions = {}): Promise<DevnetWithArk> {
  const { ark: arkOptions, fundServerWalletSat, lightningRouting, ...devnetOptions } = options;
  const devnet = await startDevnet(devnetOptions);
  const arkDir = options.datadir ?? (arkOptions?.database ? undefined : await mkdtemp(join(tmpdir(), "tender-devnet-ark-")));
  const removeTempDir = async () => {
    if (arkDir !== undefined && arkDir !== options.datadir) await rm(arkDir, { recursive: true, force: true });
  };
  const lightning = new SimulatedLightningNetwork({ tipHeight: () => devnet.node.tipHeight(), ...(lightningRouting ? { routing: lightningRouting } : {}) });
  let ark: RunningArkServer;
  try {
    ark = await startArkServer({ lightning, ...arkOptions, node: devnet.node, ...(arkDir !== undefined ? { datadir: arkDir } : {}) });
  } catch (e) {
    lightning.close();
    await devnet.stop();
    await removeTempDir();
    throw e;
  }
  let arkProxy: FaultProxy;
  try {
    arkProxy = await startFaultProxy({ upstream: ark.url, ...(arkOptions?.logger ? { logger: arkOptions.logger } : {}) });
  } catch (e) {
    await ark.stop();
    lightning.close();
    await devnet.stop();
    await removeTempDir();
    throw e;
  }
  const arkControlUrl = devnet.mountControl("/ark", arkControlRoutes(ark, arkProxy));
  const lnControlUrl = devnet.mountControl("/ln", lnControlRoutes(lightning));
  const lnurl = new LnurlPayServer(lightning);
  const lnurlBaseUrl = devnet.mountControl("/lnurl", lnurl.router());
  let lnurlHttps: LnurlHttpsServer;
  try {
    lnurlHttps = await startLnurlHttpsServer({ router: lnurl.router(), hosts: [lnurl.domain], ...(options.datadir !== undefined ? { dir: options.datadir } : {}) });
  } catch (e) {
    await arkProxy.stop();
    await ark.stop();
    lightning.close();
    await devnet.stop();
    await removeTempDir();
    throw e;
  }
  const lnOffersControlUrl = devnet.mountControl("/ln-offers", offerControlRoutes(lightning, lnurl));
  const funding = fundServerWalletSat ?? DEFAULT_SERVER_WALLET_FUNDING_SAT;
  if (funding > 0n && (await ark.server.walletStatus()).totalBalance === 0n) {
    await ark.server.wallet.fundFromFaucet(funding);
    devnet.node.mine(1);
  }
  return {
    ...devnet,
    ark,
    arkUrl: ark.url,
    arkAdminUrl: ark.adminUrl,
    arkControlUrl,
    arkProxy,
    arkProxyUrl: arkProxy.url,
    lightning,
    lnControlUrl,
    lnurl,
    lnurlBaseUrl,
    lnurlHttps,
    lnurlHttpsUrl: lnurlHttps.url,
    lnurlCaFile: lnurlHttps.caFile,
    lnOffersControlUrl,
    stop: async () => {
      await lnurlHttps.stop();
      await arkProxy.stop();
      await ark.stop();
      lightning.close();
      await devnet.stop();
      await removeTempDir();
    },
  };
}
