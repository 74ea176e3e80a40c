import type { InjectionToken } from "tsyringe";
import type { DaemonConfig } from "./config/daemon-config.js";
import type { Logger } from "./log/logger.js";
import type { AuthToken } from "./http/auth-token.js";

/** DI tokens for the kernel's own services (classes such as `EventBus` are their own tokens). */
export const DaemonConfigToken: InjectionToken<DaemonConfig> = Symbol.for("tender.DaemonConfig");
export const LoggerToken: InjectionToken<Logger> = Symbol.for("tender.Logger");
/** The API token, or `undefined` in no-auth mode. */
export const AuthTokenToken: InjectionToken<AuthToken | undefined> = Symbol.for("tender.AuthToken");
