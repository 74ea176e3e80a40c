/**
 * The reference server's settings at run time: one holder of the current {@link ArkServerConfig}.
 * Every part of the server reads it on each use (`ServerContext.config` is its current value), so
 * a change takes effect at once everywhere, `GetArkInfo` included. A change is checked as a whole
 * before it replaces the settings; a refused change leaves them as they were.
 *
 * @example
 * ```ts
 * const settings = new ServerSettings(serverConfig("test"));
 * settings.update({ maxReadMailboxItems: 10 });
 * settings.current.maxReadMailboxItems; // 10
 * ```
 */
import { validateServerConfig, type ArkServerConfig } from "./server-config.js";

export class ServerSettings {
  private config: ArkServerConfig;

  /** Starts from `initial` (checked). */
  constructor(initial: ArkServerConfig) {
    validateServerConfig(initial);
    this.config = Object.freeze({ ...initial });
  }

  /** The settings in force. */
  get current(): ArkServerConfig {
    return this.config;
  }

  /** Replaces the fields of `change`; throws `ServerConfigError` (and changes nothing) when the result is invalid. */
  update(change: Partial<ArkServerConfig>): ArkServerConfig {
    const next = { ...this.config, ...change };
    validateServerConfig(next);
    this.config = Object.freeze(next);
    return this.config;
  }
}
