/** Test helpers for adapters and plugins (`@tender/core/testing`); not used by the daemon itself. */
export { fakeServer, type FakeAnswer } from "./fake-http.js";
export { indexAnswers, type RunSql } from "./index-answers.js";
export { chainSourceContract } from "./chain-contract/chain-source-contract.js";
export {
  BURN, FAST_RETRY, deadUrl, fundWallet, hangingServer, mine, rejectsWith, sat, type ContractBackend,
} from "./chain-contract/contract-backend.js";
export { TestWallet, type Coin, type Payee, type SignedTx, type SpendOptions } from "./chain-contract/test-wallet.js";
export { regtestRpc, type RegtestRpc, type RpcAuth } from "./chain-contract/regtest-rpc.js";
export { startBitcoind, type BitcoindOptions, type RunningBitcoind } from "./chain-contract/bitcoind-process.js";
export { encodeSegwitAddress, segwitScriptOf } from "./chain-contract/bech32.js";
