import { defineService, spendingCap } from "@tender/core";
import { DESTINATION_KINDS, unclaimedKindError, type DestinationKind, type SendDestination } from "./destination-kinds.js";
import { capRailOf, payAmountOf } from "./spend-amount.js";

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
  private readonly payers = new Map<string, { plugin: string; pay: DestinationPayer }>();
  private readonly added = new Map<string, { plugin: string; recognize: (destination: string) => boolean }>();

  /**
   * `plugin` adds a destination kind of its own, recognized by `recognize` (given the
   * destination as sent) when none of barkd's kinds matched. It still has to {@link claim} it.
   */
  addKind(kind: string, plugin: string, recognize: (destination: string) => boolean): void {
    if ((DESTINATION_KINDS as readonly string[]).includes(kind)) throw new Error(`plugin ${plugin} adds the send destination kind ${kind}, which is built in`);
    const prior = this.added.get(kind);
    if (prior) throw new Error(`the send destination kind ${kind} is added by both plugin ${prior.plugin} and plugin ${plugin}`);
    this.added.set(kind, { plugin, recognize });
  }

  /** The added kind `destination` is of, if any (in the order the kinds were added). */
  recognizeAdded(destination: string): string | undefined {
    for (const [kind, k] of this.added) if (k.recognize(destination)) return kind;
    return undefined;
  }

  /** `plugin` pays destinations of `kind` (built in, or added with {@link addKind}). */
  claim(kind: DestinationKind | (string & {}), plugin: string, pay: DestinationPayer): void {
    if (!(DESTINATION_KINDS as readonly string[]).includes(kind) && !this.added.has(kind)) {
      throw new Error(`plugin ${plugin} claims the unknown send destination kind ${kind}`);
    }
    const prior = this.payers.get(kind);
    if (prior) throw new Error(`send destinations of kind ${kind} are claimed by both plugin ${prior.plugin} and plugin ${plugin}`);
    this.payers.set(kind, { plugin, pay });
  }

  /** The plugin paying `kind`, if any. */
  claimant(kind: string): string | undefined {
    return this.payers.get(kind)?.plugin;
  }

  /** Hands `destination` to the rail that claimed its kind; barkd's error for the kind when none did. */
  async pay(destination: SendDestination): Promise<SendOutcome> {
    const payer = this.payers.get(destination.kind);
    if (!payer) throw unclaimedKindError(destination.kind);
    // an API key's spending cap is asked before the rail moves any money
    await spendingCap(capRailOf(destination.kind), payAmountOf(destination));
    return payer.pay(destination);
  }
}

/** The send extension point, provided by the wallet plugin. */
export const SendDestinationsService = defineService<SendDestinations>("wallet.send-destinations");
