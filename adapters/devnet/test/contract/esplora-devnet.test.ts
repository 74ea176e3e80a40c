import { chainSourceContract } from "./chain-source.contract.js";
import { esploraOnDevnet } from "./devnet-backends.js";

chainSourceContract("EsploraChainSource on the devnet Esplora face", () => esploraOnDevnet("contract-esplora"));
