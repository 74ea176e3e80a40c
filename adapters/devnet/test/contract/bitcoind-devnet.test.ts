import { chainSourceContract } from "./chain-source.contract.js";
import { bitcoindOnDevnet } from "./devnet-backends.js";

chainSourceContract("BitcoindChainSource on the devnet RPC face", () => bitcoindOnDevnet("contract-bitcoind"));
