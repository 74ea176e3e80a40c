export { mailboxClaimPlugin as default, mailboxClaimPlugin, type ClaimedRecoveryIds } from "./plugin.js";
