/** @tender/plugin-onchain — the daemon's BIP-86 on-chain wallet and barkd's `/api/v1/onchain` routes. */
export { onchainPlugin as default, onchainPlugin } from "./plugin.js";
export { OnchainWalletService, openedOnchainWallet } from "./onchain-wallet-service.js";
export { OnchainWallet, type OnchainWalletOptions, type Payment, type CpfpRequest } from "./onchain-wallet.js";
export { Bip86Keychain, addressNetworkOf, type DerivedKey } from "./keychain.js";
export { WalletTxGraph, COINBASE_MATURITY, type WalletUtxo, type OnchainBalanceSat, type WalletTxSummary } from "./tx-graph.js";
export { syncWallet, ADDRESS_GAP, REBROADCAST_GRACE_MS, type SyncReport } from "./chain-sync.js";
export { selectCoins, type SpendTarget, type Selection } from "./coin-selection.js";
export { signSpend, type AnchorInput, type SignedSpend, type UnsignedSpend } from "./tx-builder.js";
export { parseAmountWithUnit, parseDestinationEntry, MAX_MONEY_SAT } from "./amount.js";
export { destinationScript } from "./destination.js";
export { fetchFeeRates, wholeSatPerVb, FEE_TARGETS, type OnchainFeeRates } from "./fee-rates.js";
export { dustLimitSat, feeForVsize, P2A_SCRIPT_HEX } from "./tx-size.js";
export { MemoryOnchainStore, type OnchainStore, type StoredTx } from "./persistence/stored-tx.js";
export * from "./errors.js";
