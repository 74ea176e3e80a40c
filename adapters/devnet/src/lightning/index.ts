/** The devnet's simulated Lightning network, its controls, and the Lightning backend interface the reference Ark server pays through. */
export * from "./lightning-backend.js";
export * from "./simulated-network.js";
export * from "./bolt11-codec.js";
export { lnControlRoutes } from "./ln-control-routes.js";
