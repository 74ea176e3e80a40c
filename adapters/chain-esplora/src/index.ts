export { EsploraChainSource, type EsploraChainSourceOptions } from "./esplora-chain-source.js";
export { parseRejection } from "./esplora-rejection.js";
