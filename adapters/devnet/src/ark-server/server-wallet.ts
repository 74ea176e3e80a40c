/**
 * The server's own on-chain wallet on the devnet (captaind's "rounds wallet", reported by the
 * admin `WalletStatus`): one key-path P2TR address derived from the server seed, funded from
 * the devnet faucet. Confirmed coins count as trusted, mempool coins as untrusted.
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
  status(): WalletStatus {
    const utxos = this.ctx.chain.utxosForScript(this.ctx.keys.walletScript);
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

  /** Pays `amountSat` from the devnet faucet to the wallet; returns the (mempool) txid. */
  fundFromFaucet(amountSat: bigint): string {
    const txid = this.ctx.chain.faucet(this.address, amountSat);
    this.ctx.logger.debug(`server wallet funded with ${amountSat} sat: ${txid}`);
    return txid;
  }
}
