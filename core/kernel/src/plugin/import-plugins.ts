import type { TenderPlugin } from "./contract.js";

/** A configured plugin module could not be imported or does not export a plugin. */
export class PluginImportError extends Error {}

function isPlugin(v: unknown): v is TenderPlugin {
  return !!v && typeof v === "object" && typeof (v as TenderPlugin).name === "string" &&
    typeof (v as TenderPlugin).register === "function";
}

/**
 * Imports the plugin modules named in the configuration. A module exports its plugin as
 * `default` or as `plugin`.
 */
export async function importPlugins(
  specifiers: readonly string[],
  importModule: (specifier: string) => Promise<unknown> = (s) => import(s),
): Promise<TenderPlugin[]> {
  const out: TenderPlugin[] = [];
  for (const spec of specifiers) {
    let mod: Record<string, unknown>;
    try {
      mod = (await importModule(spec)) as Record<string, unknown>;
    } catch (e) {
      throw new PluginImportError(`cannot load plugin module ${spec}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const p = mod.default ?? mod.plugin;
    if (!isPlugin(p)) throw new PluginImportError(`module ${spec} does not export a tender plugin (default or \`plugin\`)`);
    out.push(p);
  }
  return out;
}
