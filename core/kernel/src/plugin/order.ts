import type { TenderPlugin } from "./contract.js";

/** A plugin set that cannot be loaded: a missing dependency, a duplicate or a cycle. */
export class PluginGraphError extends Error {}

/** The provider name of services the host (the daemon binary) provides. */
const HOST = "(host)";

/** Which plugin provides each service id. Throws when two plugins provide the same one. */
export function serviceProviders(plugins: readonly TenderPlugin[], hostServices: readonly string[] = []): Map<string, string> {
  const providers = new Map<string, string>(hostServices.map((id) => [id, HOST]));
  for (const p of plugins) {
    for (const ref of p.provides ?? []) {
      const other = providers.get(ref.id);
      if (other !== undefined && other !== p.name) {
        const first = other === HOST ? "the host" : `plugin ${other}`;
        throw new PluginGraphError(`service ${ref.id} is provided by both ${first} and plugin ${p.name}`);
      }
      providers.set(ref.id, p.name);
    }
  }
  return providers;
}

/** The plugins `p` must load after: its named dependencies and the providers of what it consumes. */
function prerequisites(p: TenderPlugin, providers: ReadonlyMap<string, string>): string[] {
  const out = new Set(p.dependencies ?? []);
  for (const ref of p.consumes ?? []) {
    const by = providers.get(ref.id);
    if (by === undefined) throw new PluginGraphError(`plugin ${p.name} needs service ${ref.id}, which no enabled plugin provides`);
    if (by !== p.name && by !== HOST) out.add(by);
  }
  for (const ref of p.optional ?? []) {
    const by = providers.get(ref.id);
    if (by !== undefined && by !== p.name && by !== HOST) out.add(by);
  }
  return [...out];
}

/**
 * Orders plugins so every plugin comes after its dependencies and after the providers of the
 * services it consumes (stable: otherwise keeps the given order). Throws
 * {@link PluginGraphError} naming the plugins involved: a missing plugin or service, a service
 * provided twice, a cycle.
 */
export function orderPlugins(plugins: readonly TenderPlugin[], hostServices: readonly string[] = []): TenderPlugin[] {
  const byName = new Map<string, TenderPlugin>();
  for (const p of plugins) {
    if (byName.has(p.name)) throw new PluginGraphError(`plugin ${p.name} is enabled twice`);
    byName.set(p.name, p);
  }
  const providers = serviceProviders(plugins, hostServices);
  const needs = new Map<string, string[]>();
  for (const p of plugins) {
    for (const d of p.dependencies ?? []) {
      if (!byName.has(d)) throw new PluginGraphError(`plugin ${p.name} needs plugin ${d}, which is not enabled`);
    }
    needs.set(p.name, prerequisites(p, providers));
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
    for (const d of needs.get(p.name)!) visit(byName.get(d)!, [...path, p.name]);
    state.set(p.name, "done");
    out.push(p);
  };
  for (const p of plugins) visit(p, []);
  return out;
}
