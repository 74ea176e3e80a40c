import { expect } from "chai";
import { writeFileSync } from "node:fs";
import { runTenderd, tempDatadir, cleanup } from "../src/daemon-process.js";

describe("tenderd command line", function () {
  // several tenderd runs per case: one took 6 s on a loaded machine
  this.timeout(120_000);

  it("prints `tenderd <version> (<git revision>)` for --version", async () => {
    const r = await runTenderd(["--version"]);
    expect(r.code).to.equal(0);
    expect(r.stdout.trim()).to.match(/^tenderd 0\.1\.0 \(([0-9a-f]{7,12}|unknown)\)$/);
  });

  it("prints usage for --help, listing barkd's flags", async () => {
    const r = await runTenderd(["--help"]);
    expect(r.code).to.equal(0);
    for (const flag of ["--datadir", "--port", "--host", "--allowed-origins", "--expose-mnemonic", "--no-auth", "--dangerously-allow-remote-no-auth", "secret show", "secret refresh"]) {
      expect(r.stdout).to.contain(flag);
    }
  });

  it("refuses bad flags with a non-zero exit and the reason on stderr", async () => {
    const dir = tempDatadir();
    for (const [args, reason] of [
      [["--port", "0"], "invalid port"],
      [["--host", "example.com"], "invalid host"],
      [["--allowed-origins", "ftp://x"], "invalid CORS origin: ftp://x"],
      [["-v", "-q"], "cannot be used together"],
      [["--bogus"], "Unknown option"],
    ] as const) {
      const r = await runTenderd(["--datadir", dir, ...args]);
      expect(r.code, args.join(" ")).to.not.equal(0);
      expect(r.stderr).to.contain(reason);
    }
    cleanup(dir);
  });

  it("refuses to start when an enabled plugin's dependency is not enabled, naming both", async () => {
    const dir = tempDatadir();
    const config = `${dir}.tenderd.json`;
    writeFileSync(config, JSON.stringify({ plugins: ["@tender/plugin-wallet", "@tender/e2e/example-plugin"] }));
    const r = await runTenderd(["--datadir", dir, "--port", "23998", "--config", config]);
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.contain("plugin example needs plugin notifications, which is not enabled");
    cleanup(dir);
  });

  it("refuses to start when a configured plugin module does not exist", async () => {
    const dir = tempDatadir();
    const r = await runTenderd(["--datadir", dir, "--port", "23997"], { TENDER_PLUGINS: "@tender/plugin-wallet,@tender/no-such-plugin" });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.contain("cannot load plugin module @tender/no-such-plugin");
    cleanup(dir);
  });
});
