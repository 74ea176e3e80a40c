/** The devnet's simulated Lightning network, its controls, and the Lightning backend interface the reference Ark server pays through. */
export * from "./lightning-backend.js";
export * from "./simulated-network.js";
export * from "./bolt11-codec.js";
export { lnControlRoutes } from "./ln-control-routes.js";
export * from "./lnurl-server.js";
export { SimulatedOffers, OFFER_MODES, type SimulatedOffer, type SimulatedOfferMode } from "./simulated-offers.js";
export { offerControlRoutes } from "./offer-control-routes.js";
export { makeLnurlTlsMaterial, type LnurlTlsMaterial } from "./lnurl-tls.js";
export { startLnurlHttpsServer, LNURL_CA_FILE_NAME, type LnurlHttpsServer } from "./lnurl-https.js";
