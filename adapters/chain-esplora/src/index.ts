export { EsploraChainSource, type EsploraChainSourceOptions } from "./esplora-chain-source.js";
export { parseRejection, parsePackageReply } from "./esplora-rejection.js";
