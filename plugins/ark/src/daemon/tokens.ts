import { defineService } from "@tender/core";
import type { ArkServerConnector } from "@tender/ark-protocol/server";
import type { InjectionToken } from "tsyringe";
import type { ArkConnection } from "./connection/ark-connection.js";
import type { ArkKeys } from "./keys/ark-keys.js";
import type { VtxoStore } from "./vtxos/vtxo-store.js";

/** DI token of the loaded wallet's Ark server connection (the server, cached Ark info, `connected`). */
export const ArkConnectionToken: InjectionToken<ArkConnection> = Symbol.for("tender.ark.ArkConnection");
/** DI token of the wallet's Ark keys (next VTXO key, lookup by pubkey, mailbox key). */
export const ArkKeysToken: InjectionToken<ArkKeys> = Symbol.for("tender.ark.ArkKeys");
/** DI token of the wallet's VTXO store (states, locks, balance sums). */
export const VtxoStoreToken: InjectionToken<VtxoStore> = Symbol.for("tender.ark.VtxoStore");


/**
 * Opens connections to Ark servers. The daemon binary provides it (gRPC, from `@tender/ark-grpc`);
 * tests provide fakes. The Ark plugin never imports a transport.
 */
export const ArkServerConnectorService = defineService<ArkServerConnector>("ark.server-connector");
