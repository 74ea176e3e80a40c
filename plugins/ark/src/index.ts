/**
 * @tender/plugin-ark — the Ark rail. The daemon plugin (routes, tasks, storage) is registered
 * here once it exists; today the package exposes the pure protocol core, which is also
 * importable on its own as `@tender/plugin-ark/protocol` (no daemon or kernel imports).
 */
export * as protocol from "./protocol/index.js";
