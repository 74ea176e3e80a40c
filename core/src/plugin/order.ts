import type { TenderPlugin } from "./contract.js";

/** A plugin set that cannot be loaded: a missing dependency, a duplicate or a cycle. */
export class PluginGraphError extends Error {}

/**
 * Orders plugins so every plugin comes after its dependencies (stable: otherwise keeps the given
 * order). Throws {@link PluginGraphError} naming the plugins involved.
 */
export function orderPlugins(plugins: readonly TenderPlugin[]): TenderPlugin[] {
  const byName = new Map<string, TenderPlugin>();
  for (const p of plugins) {
    if (byName.has(p.name)) throw new PluginGraphError(`plugin ${p.name} is enabled twice`);
    byName.set(p.name, p);
  }
  for (const p of plugins) {
    for (const d of p.dependencies ?? []) {
      if (!byName.has(d)) throw new PluginGraphError(`plugin ${p.name} needs plugin ${d}, which is not enabled`);
    }
  }
  const out: TenderPlugin[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (p: TenderPlugin, path: string[]) => {
    const s = state.get(p.name);
    if (s === "done") return;
    if (s === "visiting") {
      const cycle = [...path.slice(path.indexOf(p.name)), p.name];
      throw new PluginGraphError(`plugin dependency cycle: ${cycle.join(" -> ")}`);
    }
    state.set(p.name, "visiting");
    for (const d of p.dependencies ?? []) visit(byName.get(d)!, [...path, p.name]);
    state.set(p.name, "done");
    out.push(p);
  };
  for (const p of plugins) visit(p, []);
  return out;
}
