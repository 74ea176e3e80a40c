import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const PKG = join(dirname(fileURLToPath(import.meta.url)), "..", ".."); // dist/test → package root
const require = createRequire(import.meta.url);

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? listFiles(p) : [p];
  });
}

describe("ark-grpc generated code", function () {
  this.timeout(60_000);

  it("is exactly what `buf generate` makes from proto/ (the committed src/gen cannot drift)", () => {
    const buf = require.resolve("@bufbuild/buf/bin/buf");
    const plugin = require.resolve("ts-proto/protoc-gen-ts_proto");
    const out = mkdtempSync(join(tmpdir(), "ark-grpc-gen-"));
    try {
      execFileSync(process.execPath, [buf, "generate", "--output", out], {
        cwd: PKG,
        env: { ...process.env, PATH: [join(dirname(dirname(plugin)), ".bin"), dirname(plugin), dirname(process.execPath), process.env.PATH ?? ""].join(":") },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const committedDir = join(PKG, "src", "gen");
      const fresh = listFiles(join(out, "src", "gen")).map((p) => relative(join(out, "src", "gen"), p)).sort();
      const committed = listFiles(committedDir).map((p) => relative(committedDir, p)).sort();
      expect(fresh).to.deep.equal(committed);
      expect(fresh.length).to.be.greaterThan(5);
      for (const f of fresh) {
        expect(readFileSync(join(out, "src", "gen", f), "utf8"), `src/gen/${f} differs from a fresh generation: run npm run gen:proto`).to.equal(readFileSync(join(committedDir, f), "utf8"));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
