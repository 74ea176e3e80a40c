/**
 * Ark protocol core (pure: bytes in, bytes out), interoperable with bark's `ark` crate and
 * captaind. See this package's README for the module map.
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
export * from "./musig.js";
export * from "./fees.js";
export * from "./fees-selection.js";
export * from "./arkoor-allocation.js";
export * from "./arkoor.js";
export * from "./arkoor-package.js";
export * from "./board.js";
export * from "./tree.js";
export * from "./forfeit.js";
export * from "./exit-state.js";
export * from "./exit-weight.js";
export * from "./exit-cpfp.js";
export * from "./exit-claim.js";
export * from "./tree-signing.js";
export * from "./fees-estimate.js";
export * from "./exit-cost.js";
export * from "./exit.js";
export * from "./round-client.js";
export * from "./round-interactive.js";
export * from "./round-delegated.js";
export * from "./round-swap.js";
export * from "./offboard.js";
export * from "./lightning-send.js";
