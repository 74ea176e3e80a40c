import type { LightningRail } from "./lightning-rail.js";

/**
 * What a Lightning receive works with: the send rail's services, plus the chain lookups that
 * validate granted HTLC-recv VTXOs against their anchor transaction.
 */
export interface LightningReceiveRail extends LightningRail {
  /** The raw transaction (hex) of `txid`, on chain or in the mempool; `undefined` if unknown. */
  getTxHex(txid: string): Promise<string | undefined>;
}

/** The loaded wallet's receive rail; rejects with 422 `No wallet set` without a wallet. */
export type LightningReceiveRailSource = () => Promise<LightningReceiveRail>;
