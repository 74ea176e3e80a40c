// The package import graph follows the layering of docs/architecture.md: the devnet imports no
// plugin, no plugin imports a concrete adapter, the protocol core and the kernel stay free of what
// is built on them, only the composition root (and these tests) depend on every plugin, and every
// workspace import is declared. The second half proves that each rule can fail.
import { assert, expect } from "chai";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  PACKAGE_RULES,
  checkRule,
  formatViolations,
  loadWorkspace,
  scanImports,
  type PackageRule,
  type WorkspacePackage,
} from "../src/package-graph.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

describe("package import graph", () => {
  const workspace = loadWorkspace(ROOT);

  for (const rule of PACKAGE_RULES) {
    it(rule.title, () => {
      const violations = checkRule(rule, workspace);
      if (violations.length > 0) {
        assert.fail(`${violations.length} import(s) break the rule "${rule.id}":\n${formatViolations(violations)}`);
      }
    });
  }

  it("reads every workspace package and the imports of its sources", () => {
    const dirs = workspace.map((p) => p.dir);
    for (const dir of ["config", "core/kernel", "core/ark-protocol", "core/tenderd", "adapters/devnet", "test"]) {
      expect(dirs).to.include(dir);
    }
    expect(dirs.filter((d) => d.startsWith("plugins/"))).to.have.length.above(3);
    // Every package with sources imports something: an empty list means the scanner missed them.
    for (const pkg of workspace.filter((p) => p.dir !== "config")) {
      expect(pkg.srcImports, `${pkg.dir} src`).to.not.be.empty;
    }
    const tenderd = workspace.find((p) => p.name === "@tender/tenderd");
    expect(tenderd?.srcImports.map((r) => r.file)).to.include("core/tenderd/bin/tenderd.js");
  });

  it("every rule constrains at least one package of the workspace", () => {
    const idle = PACKAGE_RULES.filter((rule) => !workspace.some((pkg) => rule.appliesTo(pkg, workspace)));
    expect(idle.map((r) => r.id)).to.deep.equal([]);
  });
});

describe("package graph checker", () => {
  describe("scanImports", () => {
    const cases: Array<[string, string, string[]]> = [
      ["default and named imports", `import a from "a";\nimport { b, c as d } from 'b';`, ["a", "b"]],
      ["a multi-line type import", `import type {\n  X,\n  Y,\n} from "@tender/core";`, ["@tender/core"]],
      ["a namespace import", `import * as ns from "ns";`, ["ns"]],
      ["a side-effect import", `import "reflect-metadata";`, ["reflect-metadata"]],
      ["re-exports", `export * from "./a.js";\nexport { x } from "x";\nexport * as y from "y";\nexport type { Z } from "z";`, ["./a.js", "x", "y", "z"]],
      ["dynamic imports with a literal", `const m = await import("dyn");\nconst t = await import(\`tmpl\`);`, ["dyn", "tmpl"]],
      ["no specifier for a computed dynamic import", `await import(name);\nawait import("p" + q);\nawait import(\`\${p}/x\`);`, []],
      ["no imports inside comments", `// import a from "a";\n/* export * from "b"; */\nimport c from "c";`, ["c"]],
      ["no imports inside strings", `const s = 'import a from "a"';\nconst t = \`export * from "b"\`;`, []],
      ["no imports inside a regular expression", `const re = /import "x"/;\nimport y from "y";`, ["y"]],
      ["template substitutions", "const t = `a${ {b: 1}.b }c`;\nimport z from \"z\";", ["z"]],
      ["exports that are not re-exports", `export const from = "no";\nexport function f() { return "x"; }\nexport { g };`, []],
      ["import.meta and property names", `const u = import.meta.url;\nobj.import("no");\nimport w from "w";`, ["w"]],
    ];
    for (const [what, src, expected] of cases) {
      it(what, () => expect(scanImports(src)).to.deep.equal(expected));
    }
  });

  // A small workspace that follows every rule.
  const spec = (
    dir: string,
    name: string,
    src: string[],
    opts: { test?: string[]; deps?: string[]; devDeps?: string[] } = {},
  ): WorkspacePackage => ({
    dir,
    name,
    dependencies: opts.deps ?? src.filter((s) => s.startsWith("@tender/")),
    devDependencies: opts.devDeps ?? [],
    srcImports: src.map((specifier) => ({ file: `${dir}/src/index.ts`, specifier })),
    testImports: (opts.test ?? []).map((specifier) => ({ file: `${dir}/test/a.test.ts`, specifier })),
  });
  const PLUGINS = ["@tender/plugin-wallet", "@tender/plugin-ark", "@tender/plugin-chain"];
  const ADAPTERS = ["@tender/chain-esplora", "@tender/ark-grpc", "@tender/devnet"];
  const clean = (): WorkspacePackage[] => [
    spec("config", "@tender/config", []),
    spec("core/kernel", "@tender/core", ["tsyringe", "express", "@mikro-orm/core", "./local.js", "node:fs"], {
      test: ["@tender/core/testing"],
    }),
    spec("core/ark-protocol", "@tender/ark-protocol", ["@noble/hashes/utils"], {
      test: ["@tender/core/testing"],
      devDeps: ["@tender/core"],
    }),
    spec("core/tenderd", "@tender/tenderd", ["@tender/core", ...PLUGINS, ...ADAPTERS]),
    spec("adapters/chain-esplora", "@tender/chain-esplora", ["@tender/core"]),
    spec("adapters/ark-grpc", "@tender/ark-grpc", ["@tender/core", "@grpc/grpc-js"]),
    spec("adapters/devnet", "@tender/devnet", ["@tender/core", "@tender/ark-protocol", "@tender/ark-grpc"], {
      test: ["@tender/chain-esplora"],
      devDeps: ["@tender/chain-esplora"],
    }),
    spec("plugins/wallet", "@tender/plugin-wallet", ["@tender/core"]),
    spec("plugins/ark", "@tender/plugin-ark", ["@tender/core", "@tender/ark-protocol", "@tender/plugin-wallet"]),
    spec("plugins/chain", "@tender/plugin-chain", ["@tender/core"], {
      // A plugin's tests may run against a real adapter and the devnet.
      test: ["@tender/chain-esplora", "@tender/devnet", "@tender/plugin-chain"],
      devDeps: ["@tender/chain-esplora", "@tender/devnet"],
    }),
    spec("test", "@tender/e2e", ["@tender/core"], {
      test: ["@tender/tenderd", ...PLUGINS],
      devDeps: ["@tender/tenderd", ...PLUGINS],
    }),
  ];

  /** `ws` with one more import in `dir`, declared in the package's dependencies unless told otherwise. */
  const withImport = (
    ws: WorkspacePackage[],
    dir: string,
    where: "src" | "test",
    specifier: string,
    declare: "dependencies" | "devDependencies" | "none" = "dependencies",
  ): WorkspacePackage[] =>
    ws.map((p) => {
      if (p.dir !== dir) return p;
      const ref = { file: `${dir}/${where}/added.ts`, specifier };
      const name = specifier.split("/").slice(0, 2).join("/");
      return {
        ...p,
        srcImports: where === "src" ? [...p.srcImports, ref] : p.srcImports,
        testImports: where === "test" ? [...p.testImports, ref] : p.testImports,
        dependencies: declare === "dependencies" ? [...p.dependencies, name] : p.dependencies,
        devDependencies: declare === "devDependencies" ? [...p.devDependencies, name] : p.devDependencies,
      };
    });
  const adding = (
    dir: string,
    where: "src" | "test",
    specifier: string,
    declare?: "dependencies" | "devDependencies" | "none",
  ): ((ws: WorkspacePackage[]) => WorkspacePackage[]) => (ws) => withImport(ws, dir, where, specifier, declare);

  const rule = (id: string): PackageRule => {
    const found = PACKAGE_RULES.find((r) => r.id === id);
    if (!found) throw new Error(`no rule ${id}`);
    return found;
  };

  it("a workspace that follows the layering breaks no rule", () => {
    for (const r of PACKAGE_RULES) {
      expect(checkRule(r, clean()), r.id).to.deep.equal([]);
    }
  });

  // Each row breaks one rule once; the rule must name exactly the added file and import.
  const breaking: Array<[string, string, (ws: WorkspacePackage[]) => WorkspacePackage[]]> = [
    ["devnet-no-plugins", "the devnet's src imports a plugin's subpath", adding("adapters/devnet", "src", "@tender/plugin-ark/protocol")],
    ["devnet-no-plugins", "the devnet's tests import a plugin", adding("adapters/devnet", "test", "@tender/plugin-wallet")],
    ["plugins-no-adapters", "a plugin imports ark-grpc", adding("plugins/ark", "src", "@tender/ark-grpc")],
    ["plugins-no-adapters", "a plugin imports a chain adapter", adding("plugins/chain", "src", "@tender/chain-bitcoind")],
    ["plugins-no-adapters", "a plugin imports the devnet", adding("plugins/wallet", "src", "@tender/devnet")],
    ["plugins-no-adapters", "a plugin imports the composition root", adding("plugins/wallet", "src", "@tender/tenderd")],
    [
      "plugins-no-adapters",
      "a plugin imports an adapter package not named in the rule",
      (ws) => withImport([...ws, spec("adapters/chain-electrum", "@tender/chain-electrum", ["@tender/core"])], "plugins/chain", "src", "@tender/chain-electrum"),
    ],
    ["ark-protocol-pure", "the protocol core imports the kernel", adding("core/ark-protocol", "src", "@tender/core")],
    ["ark-protocol-pure", "the protocol core imports the ORM", adding("core/ark-protocol", "src", "@mikro-orm/core")],
    ["ark-protocol-pure", "the protocol core imports the DI container", adding("core/ark-protocol", "src", "tsyringe")],
    ["ark-protocol-pure", "the protocol core imports reflect-metadata", adding("core/ark-protocol", "src", "reflect-metadata")],
    ["ark-protocol-pure", "the protocol core imports express", adding("core/ark-protocol", "src", "express")],
    ["ark-protocol-pure", "the protocol core imports gRPC", adding("core/ark-protocol", "src", "@grpc/grpc-js")],
    ["kernel-independent", "the kernel imports a plugin", adding("core/kernel", "src", "@tender/plugin-wallet")],
    ["kernel-independent", "the kernel imports an adapter", adding("core/kernel", "src", "@tender/chain-esplora")],
    ["kernel-independent", "the kernel imports the protocol core", adding("core/kernel", "src", "@tender/ark-protocol")],
    ["kernel-independent", "the kernel imports the composition root", adding("core/kernel", "src", "@tender/tenderd")],
    ["only-root-imports-tenderd", "an adapter imports the composition root", adding("adapters/devnet", "src", "@tender/tenderd")],
    ["only-root-imports-tenderd", "a plugin's tests import the composition root", adding("plugins/chain", "test", "@tender/tenderd", "devDependencies")],
    ["declared-dependencies", "src imports a package declared nowhere", adding("plugins/ark", "src", "@tender/plugin-chain", "none")],
    ["declared-dependencies", "src imports a package declared only for development", adding("plugins/ark", "src", "@tender/plugin-chain", "devDependencies")],
    ["declared-dependencies", "tests import a package declared nowhere", adding("plugins/wallet", "test", "@tender/ark-protocol", "none")],
    ["workspace-only", "src imports a @tender package the workspace lacks", adding("plugins/wallet", "src", "@tender/unknown")],
    ["workspace-only", "tests import a @tender package the workspace lacks", adding("core/kernel", "test", "@tender/gone/sub", "devDependencies")],
  ];
  for (const [id, what, mutate] of breaking) {
    it(`${id} fails when ${what}`, () => {
      const ws = mutate(clean());
      const added = ws.flatMap((p) => [...p.srcImports, ...p.testImports]).filter((r) => r.file.endsWith("/added.ts"));
      expect(added).to.have.length(1);
      const violations = checkRule(rule(id), ws);
      expect(violations.map(({ file, specifier }) => ({ file, specifier }))).to.deep.equal(added);
      expect(formatViolations(violations)).to.contain(added[0]!.file).and.to.contain(added[0]!.specifier);
    });
  }

  it("every rule has a row that breaks it", () => {
    const broken = new Set(breaking.map(([id]) => id));
    expect(PACKAGE_RULES.map((r) => r.id).filter((id) => !broken.has(id))).to.deep.equal([]);
  });
});
