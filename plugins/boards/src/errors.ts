import { InternalServerError } from "@tender/core";

/**
 * A board the wallet refuses or that failed before anything reached the chain (amount below the
 * server minimum, fee eating the amount, insufficient funds, server refusal). barkd answers all
 * of these with 500 and a message, and so do we; nothing is broadcast or stored.
 */
export class BoardRefusedError extends InternalServerError {}
