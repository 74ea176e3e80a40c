/** @tender/plugin-chain — the loaded wallet's chain source, its creation check, and `GET /api/v1/bitcoin/tip`. */
export { chainPlugin as default, chainPlugin } from "./plugin.js";
export { chainNetworkOf, UnsupportedWalletNetworkError } from "./chain-network.js";
export { buildChainSource, chainSourceKindOf, NoChainSourceConfiguredError } from "./chain-source-kind.js";
export { checkChainNetwork, chainSourceCreationCheck, ChainNetworkMismatchError } from "./network-check.js";
export { TipResponse, chainRoutes } from "./routes.js";
export { ChainBirthdayRow, bitcoinChainStateMigration, readBirthday, writeBirthday } from "./chain-birthday.js";
