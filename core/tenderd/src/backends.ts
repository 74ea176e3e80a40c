import { ChainSourceRegistryService, hostService, type HostService } from "@tender/core";
import { grpcArkServerConnector } from "@tender/ark-grpc";
import { ArkServerConnectorService } from "@tender/plugin-ark";
import { chainSourceRegistry } from "./chain-sources.js";

/**
 * The backends tenderd offers its plugins: the chain-source kinds a wallet's configuration may
 * name, and the Ark server connector (gRPC).
 */
export function backendServices(): HostService[] {
  return [
    hostService(ChainSourceRegistryService, chainSourceRegistry()),
    hostService(ArkServerConnectorService, grpcArkServerConnector),
  ];
}
