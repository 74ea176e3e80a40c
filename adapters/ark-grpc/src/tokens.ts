import type { InjectionToken } from "tsyringe";
import type { ArkServerClient } from "./client.js";

/** DI token under which the daemon registers the wallet's {@link ArkServerClient}. */
export const ArkServerClientToken: InjectionToken<ArkServerClient> = Symbol.for("tender.ArkServerClient");
