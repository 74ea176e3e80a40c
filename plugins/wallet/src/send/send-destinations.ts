import { defineService } from "@tender/core";
import { DESTINATION_KINDS, unclaimedKindError, type DestinationKind, type SendDestination } from "./destination-kinds.js";

/** What a rail answers once it sent (or, for Lightning, initiated) a payment. */
export interface SendOutcome {
  /** Hex payment hash, for Lightning payments. */
  readonly paymentHash?: string;
}

/** A rail's payer for one destination kind. */
export type DestinationPayer = (destination: SendDestination) => Promise<SendOutcome>;

/**
 * The send extension point: `POST /api/v1/wallet/send` is owned by the wallet plugin, which
 * recognizes the destination; the rail that claimed its kind pays it. Each kind has at most one
 * claimant (a second claim is an error at start-up naming both plugins).
 */
export class SendDestinations {
  private readonly payers = new Map<DestinationKind, { plugin: string; pay: DestinationPayer }>();

  /** `plugin` pays destinations of `kind`. */
  claim(kind: DestinationKind, plugin: string, pay: DestinationPayer): void {
    if (!DESTINATION_KINDS.includes(kind)) throw new Error(`plugin ${plugin} claims the unknown send destination kind ${kind}`);
    const prior = this.payers.get(kind);
    if (prior) throw new Error(`send destinations of kind ${kind} are claimed by both plugin ${prior.plugin} and plugin ${plugin}`);
    this.payers.set(kind, { plugin, pay });
  }

  /** The plugin paying `kind`, if any. */
  claimant(kind: DestinationKind): string | undefined {
    return this.payers.get(kind)?.plugin;
  }

  /** Hands `destination` to the rail that claimed its kind; barkd's error for the kind when none did. */
  pay(destination: SendDestination): Promise<SendOutcome> {
    const payer = this.payers.get(destination.kind);
    if (!payer) return Promise.reject(unclaimedKindError(destination.kind));
    return payer.pay(destination);
  }
}

/** The send extension point, provided by the wallet plugin. */
export const SendDestinationsService = defineService<SendDestinations>("wallet.send-destinations");
