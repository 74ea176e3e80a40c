/**
 * Ark protocol core (pure: bytes in, bytes out). Spec: ark-protocol-core.md.
 */
export * from "./errors.js";
export * from "./constants.js";
export * from "./encoding.js";
export * from "./hashes.js";
export * from "./keys.js";
export * from "./network.js";
export * from "./wallet-keys.js";
export * from "./script.js";
export * from "./taproot.js";
export * from "./clause.js";
export * from "./policy.js";
export * from "./tx.js";
export * from "./sighash.js";
export * from "./schnorr.js";
export * from "./vtxo-genesis.js";
export * from "./vtxo.js";
export * from "./vtxo-exit.js";
export * from "./vtxo-validate.js";
export * from "./address.js";
export * from "./signatures.js";
