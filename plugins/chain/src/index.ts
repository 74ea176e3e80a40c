/** @tender/plugin-bitcoin — the loaded wallet's chain source, its creation check, and `GET /api/v1/bitcoin/tip`. */
export { bitcoinPlugin as default, bitcoinPlugin, WalletChainToken } from "./plugin.js";
export { WalletChain, NoWalletChainError } from "./wallet-chain.js";
export {
  chainSourceFromConfig, chainNetworkOf, NoChainSourceConfiguredError, UnsupportedWalletNetworkError, type ChainSourceTuning,
} from "./chain-source-factory.js";
export { checkChainNetwork, chainSourceCreationCheck, ChainNetworkMismatchError } from "./network-check.js";
export { TipResponse, bitcoinRoutes } from "./routes.js";
export { ChainBirthdayRow, bitcoinChainStateMigration, readBirthday, writeBirthday } from "./chain-birthday.js";
