import { ChainSourceRegistryService, hostService, type HostService } from "@tender/core";
import { chainSourceRegistry } from "./chain-sources.js";

/**
 * The backends tenderd offers its plugins: the chain-source kinds a wallet's configuration may
 * name, and the Ark server connector.
 */
export function backendServices(): HostService[] {
  return [hostService(ChainSourceRegistryService, chainSourceRegistry())];
}
