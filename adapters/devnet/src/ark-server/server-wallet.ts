/**
 * The server's own on-chain wallet (captaind's "rounds wallet", reported by the admin
 * `WalletStatus`): one key-path P2TR address derived from the server seed, funded from the
 * devnet faucet or, on a real node, by paying its address. Confirmed coins count as trusted,
 * mempool coins as untrusted.
 */
import type { ServerContext } from "./server-context.js";

/** The admin `WalletStatus` message as plain data. */
export interface WalletStatus {
  address: string;
  totalBalance: bigint;
  trustedBalance: bigint;
  untrustedBalance: bigint;
  /** `txid:vout` */
  confirmedUtxos: string[];
  unconfirmedUtxos: string[];
}

/** The server's on-chain wallet. */
export class ServerWallet {
  constructor(private readonly ctx: ServerContext) {}

  /** The wallet's receive address. */
  get address(): string {
    return this.ctx.keys.walletAddress;
  }

  /** Balances and coins as the chain sees them now. */
  async status(): Promise<WalletStatus> {
    const utxos = await this.ctx.chain.utxosForScript(this.ctx.keys.walletScript);
    const confirmed = utxos.filter((u) => u.status.confirmed);
    const unconfirmed = utxos.filter((u) => !u.status.confirmed);
    const sum = (us: typeof utxos) => us.reduce((s, u) => s + u.amountSat, 0n);
    return {
      address: this.address,
      totalBalance: sum(utxos),
      trustedBalance: sum(confirmed),
      untrustedBalance: sum(unconfirmed),
      confirmedUtxos: confirmed.map((u) => `${u.txid}:${u.vout}`),
      unconfirmedUtxos: unconfirmed.map((u) => `${u.txid}:${u.vout}`),
    };
  }

  /** Pays `amountSat` from the devnet faucet to the wallet; returns the (mempool) txid. Refused on a chain without a faucet. */
  async fundFromFaucet(amountSat: bigint): Promise<string> {
    const { faucet } = this.ctx.chain;
    if (!faucet) throw new Error(`this chain has no faucet: pay the server wallet's address ${this.address} from a wallet instead`);
    const txid = await faucet(this.address, amountSat);
    this.ctx.logger.debug(`server wallet funded with ${amountSat} sat: ${txid}`);
    return txid;
  }
}
