/**
 * @tender/tenderd — the composition root: the one place that knows every plugin and every
 * backend adapter, and puts them together with the kernel into the `tenderd` binary.
 */
import { tenderdMain, type Distribution } from "@tender/core";
import { DEFAULT_PLUGINS } from "./default-plugins.js";
import { backendServices } from "./backends.js";
import { exitKitMain } from "./exit-kit/kit-cli.js";

/** The tenderd distribution: its default plugins, plugin module resolution, and its backends. */
export const TENDERD: Distribution = {
  defaultPlugins: DEFAULT_PLUGINS,
  // resolved from this package, which depends on every plugin it ships
  importModule: (specifier) => import(specifier),
  hostServices: backendServices(),
};

/** Runs the `tenderd` command line (`tenderd exit-kit …` runs an exit kit, without the daemon). */
export function runTenderd(argv: string[]): Promise<number> {
  if (argv[0] === "exit-kit") return exitKitMain(argv.slice(1));
  return tenderdMain(argv, TENDERD);
}

export { DEFAULT_PLUGINS, DEFAULT_PLUGIN_MODULES } from "./default-plugins.js";
export { backendServices } from "./backends.js";
export { exitKitMain } from "./exit-kit/kit-cli.js";
export { runExitKit, type KitRunOptions } from "./exit-kit/kit-runner.js";
