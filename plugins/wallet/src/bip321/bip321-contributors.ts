import { defineService } from "@tender/core";

/**
 * The payment methods a BIP-321 URI can carry, each produced by the rail that receives on it:
 * `onchain` (a fresh on-chain address, when asked for), `ark` (a fresh Ark address, always),
 * `lightning` (a BOLT11 invoice for the amount, when an amount is given).
 */
export const BIP321_PARTS = ["onchain", "ark", "lightning"] as const;
export type Bip321Part = (typeof BIP321_PARTS)[number];

/** What a contributor is asked for: the requested amount, if any. */
export interface Bip321Request {
  amountSat?: bigint;
}

/** Produces the part's destination (an address or an invoice), deriving a fresh one each call. */
export type Bip321Contribution = (request: Bip321Request) => Promise<string>;

/**
 * The BIP-321 extension point: `POST /api/v1/wallet/bip321` is owned by the wallet plugin; each
 * rail contributes the destination of its part (the Ark rail `ark`, the on-chain wallet `onchain`,
 * a Lightning receive rail `lightning`). One contributor per part.
 */
export class Bip321Contributors {
  private readonly byPart = new Map<Bip321Part, { plugin: string; produce: Bip321Contribution }>();

  /** `plugin` produces the destination of `part`. */
  contribute(part: Bip321Part, plugin: string, produce: Bip321Contribution): void {
    if (!BIP321_PARTS.includes(part)) throw new Error(`plugin ${plugin} contributes to the unknown BIP-321 part ${part}`);
    const existing = this.byPart.get(part);
    if (existing) throw new Error(`the BIP-321 part ${part} is contributed by both plugin ${existing.plugin} and plugin ${plugin}`);
    this.byPart.set(part, { plugin, produce });
  }

  /** The plugin contributing `part`, if any. */
  contributor(part: Bip321Part): string | undefined {
    return this.byPart.get(part)?.plugin;
  }

  /** The destination of `part`, or `undefined` when no enabled plugin contributes it. */
  async produce(part: Bip321Part, request: Bip321Request): Promise<string | undefined> {
    const c = this.byPart.get(part);
    return c ? c.produce(request) : undefined;
  }
}

/** The BIP-321 extension point, provided by the wallet plugin. */
export const Bip321ContributorsService = defineService<Bip321Contributors>("wallet.bip321-contributors");
