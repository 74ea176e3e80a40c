// The package import graph of the workspace and the rules it must follow.
//
// `loadWorkspace` reads every workspace package (the root package.json `workspaces` entries), its
// package.json and the module specifiers its sources import; `checkRule` applies one rule of
// `PACKAGE_RULES` and returns every offending import. Specifiers are found by a small lexer
// (comments, strings, template literals and regular expressions are skipped), so an import
// written inside a string or a comment does not count.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** One import, export-from or dynamic import with a literal specifier. */
export interface ImportRef {
  /** The importing file, relative to the repository root, with `/` separators. */
  readonly file: string;
  readonly specifier: string;
}

export interface WorkspacePackage {
  /** The package folder relative to the repository root, e.g. `plugins/ark`. */
  readonly dir: string;
  readonly name: string;
  readonly dependencies: readonly string[];
  readonly devDependencies: readonly string[];
  /** Imports of `src/**\/*.ts` and `bin/*.js`: the code the package ships. */
  readonly srcImports: readonly ImportRef[];
  /** Imports of `test/**\/*.ts`. */
  readonly testImports: readonly ImportRef[];
}

export interface Violation extends ImportRef {
  /** Why the import breaks the rule. */
  readonly reason: string;
}

export interface PackageRule {
  readonly id: string;
  /** The rule as a sentence, used as the test title. */
  readonly title: string;
  /** The packages the rule constrains: a rule that applies to none guards nothing. */
  appliesTo(pkg: WorkspacePackage, all: readonly WorkspacePackage[]): boolean;
  check(pkg: WorkspacePackage, all: readonly WorkspacePackage[]): Violation[];
}

// ---------------------------------------------------------------------------------------------
// Reading the workspace

/** The folders the root package.json `workspaces` entries name (`dir` or `dir/*`) that hold a package.json. */
export function workspaceDirs(root: string): string[] {
  const rootPkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces?: string[] };
  const dirs: string[] = [];
  for (const entry of rootPkg.workspaces ?? []) {
    if (entry.endsWith("/*")) {
      const parent = entry.slice(0, -2);
      for (const child of readdirSync(join(root, parent)).sort()) {
        if (child === "node_modules") continue;
        const dir = `${parent}/${child}`;
        if (existsSync(join(root, dir, "package.json"))) dirs.push(dir);
      }
    } else if (entry.includes("*")) {
      throw new Error(`workspace pattern not understood: ${entry}`);
    } else if (existsSync(join(root, entry, "package.json"))) {
      dirs.push(entry);
    }
  }
  return dirs;
}

export function loadWorkspace(root: string): WorkspacePackage[] {
  return workspaceDirs(root).map((dir) => {
    const abs = join(root, dir);
    const pkg = JSON.parse(readFileSync(join(abs, "package.json"), "utf8")) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const importsOf = (files: string[]): ImportRef[] =>
      files.flatMap((file) =>
        scanImports(readFileSync(file, "utf8")).map((specifier) => ({
          file: relative(root, file).split(sep).join("/"),
          specifier,
        })),
      );
    return {
      dir,
      name: pkg.name,
      dependencies: Object.keys(pkg.dependencies ?? {}),
      devDependencies: Object.keys(pkg.devDependencies ?? {}),
      srcImports: importsOf([...listFiles(join(abs, "src"), ".ts", true), ...listFiles(join(abs, "bin"), ".js", false)]),
      testImports: importsOf(listFiles(join(abs, "test"), ".ts", true)),
    };
  });
}

function listFiles(dir: string, ext: string, recursive: boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    if (entry === "node_modules" || entry === "dist") continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (recursive) out.push(...listFiles(path, ext, true));
    } else if (entry.endsWith(ext)) {
      out.push(path);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Finding the specifiers of a source file

type Token = { kind: "id" | "str" | "punct"; value: string };

/** Keywords after which a `/` starts a regular expression rather than a division. */
const REGEX_AFTER_KEYWORD = new Set(["return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await"]);

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  // One entry per open `{`: true when it opened a template literal's `${`.
  const braces: boolean[] = [];
  let i = 0;
  const regexAllowed = (): boolean => {
    const last = tokens[tokens.length - 1];
    if (last === undefined) return true;
    if (last.kind === "str") return false;
    if (last.kind === "id") return REGEX_AFTER_KEYWORD.has(last.value);
    return !(last.value === ")" || last.value === "]" || last.value === "}");
  };
  // Reads a template literal's text from i (just after "`" or a closing "}") up to its end or
  // to the next `${`, which it opens. A template without substitutions is a plain string.
  const templateText = (whole: boolean): void => {
    const start = i;
    while (i < src.length) {
      const c = src[i];
      if (c === "\\") i += 2;
      else if (c === "`") {
        tokens.push({ kind: "str", value: whole ? src.slice(start, i) : "" });
        i++;
        return;
      } else if (c === "$" && src[i + 1] === "{") {
        i += 2;
        braces.push(true);
        tokens.push({ kind: "punct", value: "${" });
        return;
      } else i++;
    }
  };
  while (i < src.length) {
    const c = src[i]!;
    const next = src[i + 1];
    if (/\s/.test(c)) i++;
    else if (c === "/" && next === "/") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = src.indexOf("*/", i + 2);
      i = end < 0 ? src.length : end + 2;
    } else if (c === "'" || c === '"') {
      let value = "";
      i++;
      while (i < src.length && src[i] !== c && src[i] !== "\n") {
        if (src[i] === "\\") {
          value += src[i + 1] ?? "";
          i += 2;
        } else value += src[i++];
      }
      i++;
      tokens.push({ kind: "str", value });
    } else if (c === "`") {
      i++;
      templateText(true);
    } else if (c === "/" && regexAllowed()) {
      let inClass = false;
      i++;
      while (i < src.length && src[i] !== "\n") {
        const r = src[i];
        if (r === "\\") i += 2;
        else {
          i++;
          if (r === "[") inClass = true;
          else if (r === "]") inClass = false;
          else if (r === "/" && !inClass) break;
        }
      }
      while (i < src.length && /[a-z]/i.test(src[i]!)) i++;
      tokens.push({ kind: "str", value: "" });
    } else if (/[A-Za-z_$]/.test(c)) {
      let j = i + 1;
      while (j < src.length && /[\w$]/.test(src[j]!)) j++;
      tokens.push({ kind: "id", value: src.slice(i, j) });
      i = j;
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < src.length && /[\w.]/.test(src[j]!)) j++;
      tokens.push({ kind: "punct", value: "0" });
      i = j;
    } else if (c === "{") {
      braces.push(false);
      tokens.push({ kind: "punct", value: c });
      i++;
    } else if (c === "}") {
      i++;
      if (braces.pop() === true) templateText(false);
      else tokens.push({ kind: "punct", value: c });
    } else {
      tokens.push({ kind: "punct", value: c });
      i++;
    }
  }
  return tokens;
}

/**
 * The literal specifiers a module imports: `import … from "x"`, `import "x"`, `import("x")`,
 * `export … from "x"` (type-only forms included). Dynamic imports of a computed name are not
 * specifiers and are left out.
 */
export function scanImports(src: string): string[] {
  const tokens = tokenize(src);
  const found: string[] = [];
  const isWord = (k: number, word: string): boolean => tokens[k]?.kind === "id" && tokens[k]?.value === word;
  for (let k = 0; k < tokens.length; k++) {
    const isImport = isWord(k, "import");
    if (!isImport && !isWord(k, "export")) continue;
    // `x.import` / `x.export` are property names, not statements.
    if (tokens[k - 1]?.kind === "punct" && tokens[k - 1]?.value === ".") continue;
    const next = tokens[k + 1];
    if (isImport && next?.kind === "str") {
      found.push(next.value);
      continue;
    }
    if (isImport && next?.value === "(") {
      const arg = tokens[k + 2];
      if (arg?.kind === "str" && tokens[k + 3]?.value !== "+") found.push(arg.value);
      continue;
    }
    if (isImport && next?.value === ".") continue; // import.meta
    // A static import or export: look for `from "x"` before the statement ends.
    for (let m = k + 1; m < tokens.length; m++) {
      const t = tokens[m]!;
      if (t.kind === "punct" && t.value === ";") break;
      if (t.kind === "id" && (t.value === "import" || t.value === "export")) break;
      if (t.kind === "str" && isWord(m - 1, "from")) {
        found.push(t.value);
        break;
      }
      // Anything but a name list or a namespace before `from` means this is no re-export.
      if (t.kind === "str" || (t.kind === "punct" && !["{", "}", ",", "*"].includes(t.value))) break;
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The rules

/** The package a specifier names (`@scope/name/sub` → `@scope/name`), or undefined for relative paths and `node:` builtins. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

const TENDERD = "@tender/tenderd";
const KERNEL = "@tender/core";
const ARK_PROTOCOL = "@tender/ark-protocol";
const E2E_DIR = "test";
/** The concrete adapters; any other package under adapters/ counts as one too. */
const CONCRETE_ADAPTERS = ["@tender/chain-esplora", "@tender/chain-bitcoind", "@tender/ark-grpc", "@tender/devnet"];
const PURE_FORBIDDEN = [/^@tender\//, /^@mikro-orm\//, /^tsyringe$/, /^reflect-metadata$/, /^express$/, /^@grpc\//];

const isTender = (name: string): boolean => name.startsWith("@tender/");
const pluginNames = (all: readonly WorkspacePackage[]): Set<string> =>
  new Set(all.filter((p) => p.dir.startsWith("plugins/")).map((p) => p.name));
const adapterNames = (all: readonly WorkspacePackage[]): Set<string> =>
  new Set([...CONCRETE_ADAPTERS, ...all.filter((p) => p.dir.startsWith("adapters/")).map((p) => p.name)]);
const isPlugin = (name: string, all: readonly WorkspacePackage[]): boolean =>
  name.startsWith("@tender/plugin-") || pluginNames(all).has(name);

/** Every import of `refs` whose package `reasonFor` names a reason for, other than the package itself. */
function offending(
  pkg: WorkspacePackage,
  refs: readonly ImportRef[],
  reasonFor: (target: string) => string | undefined,
): Violation[] {
  const out: Violation[] = [];
  for (const ref of refs) {
    const target = packageOf(ref.specifier);
    if (target === undefined || target === pkg.name) continue;
    const reason = reasonFor(target);
    if (reason !== undefined) out.push({ ...ref, reason });
  }
  return out;
}

export const PACKAGE_RULES: readonly PackageRule[] = [
  {
    id: "devnet-no-plugins",
    title: "nothing under adapters/devnet imports a plugin package",
    appliesTo: (pkg) => pkg.dir === "adapters/devnet",
    check: (pkg, all) =>
      offending(pkg, [...pkg.srcImports, ...pkg.testImports], (t) => (isPlugin(t, all) ? "the devnet imports a plugin" : undefined)),
  },
  {
    id: "plugins-no-adapters",
    title: "no plugin imports a concrete adapter or the composition root @tender/tenderd",
    appliesTo: (pkg) => pkg.dir.startsWith("plugins/"),
    check: (pkg, all) =>
      offending(pkg, pkg.srcImports, (t) =>
        t === TENDERD ? "a plugin imports the composition root" : adapterNames(all).has(t) ? "a plugin imports a concrete adapter" : undefined,
      ),
  },
  {
    id: "ark-protocol-pure",
    title: "@tender/ark-protocol imports no @tender package and no ORM, DI, HTTP or gRPC library",
    appliesTo: (pkg) => pkg.name === ARK_PROTOCOL,
    check: (pkg) =>
      offending(pkg, pkg.srcImports, (t) => (PURE_FORBIDDEN.some((re) => re.test(t)) ? "the protocol core must stay pure" : undefined)),
  },
  {
    id: "kernel-independent",
    title: "the kernel @tender/core imports no plugin, adapter, @tender/ark-protocol or @tender/tenderd",
    appliesTo: (pkg) => pkg.name === KERNEL,
    check: (pkg, all) =>
      offending(pkg, pkg.srcImports, (t) =>
        isPlugin(t, all)
          ? "the kernel imports a plugin"
          : adapterNames(all).has(t)
            ? "the kernel imports an adapter"
            : t === ARK_PROTOCOL || t === TENDERD
              ? "the kernel imports a package built on it"
              : undefined,
      ),
  },
  {
    id: "only-root-imports-tenderd",
    title: "no package but @tender/tenderd and the end-to-end tests imports @tender/tenderd",
    appliesTo: (pkg) => pkg.name !== TENDERD && pkg.dir !== E2E_DIR,
    check: (pkg) =>
      offending(pkg, [...pkg.srcImports, ...pkg.testImports], (t) =>
        t === TENDERD ? "only the composition root may depend on every plugin" : undefined,
      ),
  },
  {
    id: "declared-dependencies",
    title: "every @tender package a package imports is declared in its package.json (src: dependencies; tests: dependencies or devDependencies)",
    appliesTo: (pkg) => pkg.srcImports.length + pkg.testImports.length > 0,
    check: (pkg) => [
      ...offending(pkg, pkg.srcImports, (t) =>
        isTender(t) && !pkg.dependencies.includes(t) ? `${t} is not in the dependencies of ${pkg.dir}/package.json` : undefined,
      ),
      ...offending(pkg, pkg.testImports, (t) =>
        isTender(t) && !pkg.dependencies.includes(t) && !pkg.devDependencies.includes(t)
          ? `${t} is not in the dependencies or devDependencies of ${pkg.dir}/package.json`
          : undefined,
      ),
    ],
  },
  {
    id: "workspace-only",
    title: "no package imports a @tender package outside the workspace",
    appliesTo: (pkg) => pkg.srcImports.length + pkg.testImports.length > 0,
    check: (pkg, all) => {
      const names = new Set(all.map((p) => p.name));
      return offending(pkg, [...pkg.srcImports, ...pkg.testImports], (t) =>
        isTender(t) && !names.has(t) ? `${t} is no workspace package` : undefined,
      );
    },
  },
];

/** Every violation of `rule` over the workspace `all`. */
export function checkRule(rule: PackageRule, all: readonly WorkspacePackage[]): Violation[] {
  return all.filter((pkg) => rule.appliesTo(pkg, all)).flatMap((pkg) => rule.check(pkg, all));
}

/** One line per violation: `file: "specifier" (reason)`. */
export function formatViolations(violations: readonly Violation[]): string {
  return violations.map((v) => `  ${v.file}: "${v.specifier}" (${v.reason})`).join("\n");
}
