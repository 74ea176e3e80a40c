/**
 * The devnet binary's `--ark-bitcoind` mode: only the reference Ark server, on an external
 * bitcoind (as captaind runs) instead of the devnet's chain. The server's database must live in
 * `--datadir`: its seed holds the key of the server wallet, whose coins sit in bitcoind.
 */
import { toHex } from "@tender/ark-protocol";
import type { BitcoindAuth } from "@tender/chain-bitcoind";
import type { Logger } from "@tender/core";
import { bitcoindServerChain } from "../ark-server/chain/bitcoind-server-chain.js";
import type { ArkServerProfile } from "../ark-server/server-config.js";
import { startArkServer, type RunningArkServer } from "../ark-server/start-ark-server.js";

/** What the `--ark-bitcoind` mode takes from the command line. */
export interface ArkOnBitcoindArgs {
  readonly url: string;
  readonly cookieFile?: string;
  readonly rpcUser?: string;
  readonly rpcPassword?: string;
  readonly datadir?: string;
  readonly profile: ArkServerProfile;
  readonly port?: number;
  readonly adminPort?: number;
  readonly logger: Logger;
}

function authOf(args: ArkOnBitcoindArgs): BitcoindAuth {
  if (args.cookieFile !== undefined && args.rpcUser === undefined && args.rpcPassword === undefined) return { cookieFile: args.cookieFile };
  if (args.cookieFile === undefined && args.rpcUser !== undefined && args.rpcPassword !== undefined) return { user: args.rpcUser, password: args.rpcPassword };
  throw new Error("--ark-bitcoind needs either --ark-bitcoind-cookie FILE or --ark-bitcoind-rpcuser U --ark-bitcoind-rpcpassword P");
}

/** Starts the Ark server on the bitcoind; returns it with the fields of the ready line. */
export async function startArkOnBitcoind(args: ArkOnBitcoindArgs): Promise<{ ark: RunningArkServer; ready: Record<string, string> }> {
  const auth = authOf(args);
  if (args.datadir === undefined) throw new Error("--ark-bitcoind needs --datadir: the server's seed (the key of its wallet's coins in bitcoind) must outlive the process");
  const chain = await bitcoindServerChain({ url: args.url, auth });
  const ark = await startArkServer({
    chain,
    datadir: args.datadir,
    profile: args.profile,
    logger: args.logger,
    ...(args.port !== undefined ? { port: args.port } : {}),
    ...(args.adminPort !== undefined ? { adminPort: args.adminPort } : {}),
  });
  const { keys } = ark.server.ctx;
  return {
    ark,
    ready: {
      ark: ark.url,
      ark_admin: ark.adminUrl,
      ark_server_pubkey: toHex(keys.serverPubkey),
      ark_wallet_address: keys.walletAddress,
      bitcoind: args.url,
      network: "regtest",
    },
  };
}
