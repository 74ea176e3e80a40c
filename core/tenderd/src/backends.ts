import type { HostService } from "@tender/core";

/**
 * The backends tenderd offers its plugins: the chain-source kinds a wallet's configuration may
 * name, and the Ark server connector.
 */
export function backendServices(): HostService[] {
  return [];
}
