import { defineEvent } from "../events/event-bus.js";
import type { RouteScope } from "../http/route.js";

/** The scopes an API key may hold. `admin` grants every scope but `owner`. */
export const API_SCOPES = ["read", "receive", "send", "admin"] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/** The rails a spending cap is set for: where the money goes (an Ark address, a Lightning payment, a Bitcoin address). */
export const SPEND_RAILS = ["ark", "lightning", "onchain"] as const;
export type SpendRail = (typeof SPEND_RAILS)[number];

/** A key's limits on one rail, in sats. */
export interface RailCap {
  perPaymentSat?: bigint;
  /** Over any 24 hours. */
  perDaySat?: bigint;
}

export type SpendingCaps = Partial<Record<SpendRail, RailCap>>;

/** A stored API key (its secret's hash, never the secret). */
export interface ApiKey {
  id: string;
  name: string | undefined;
  scopes: ApiScope[];
  caps: SpendingCaps;
  createdAt: number;
  expiresAt: number | undefined;
  revokedAt: number | undefined;
  secretHash: string;
}

/** Whether a key with `scopes` may call a route needing `needed`. */
export function scopeAllows(scopes: readonly ApiScope[], needed: RouteScope): boolean {
  if (needed === "owner") return false;
  return scopes.includes("admin") || scopes.includes(needed);
}

/** Who made a request. */
export type Principal = { kind: "owner" } | { kind: "key"; key: ApiKey };

/**
 * Raised once an API key is revoked: whatever a key opened that outlives its requests (a
 * notification websocket, unused tickets) is closed.
 */
export const ApiKeyRevoked = defineEvent<{ keyId: string }>("access.api-key-revoked");
