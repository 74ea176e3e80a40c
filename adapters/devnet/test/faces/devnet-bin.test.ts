import { expect } from "chai";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "../../src/bin/devnet.js");

describe("devnet bin", function () {
  this.timeout(30_000);

  it("with --no-ark, starts only the chain and its faces", async () => {
    const child = spawn(process.execPath, [BIN, "--seed", "bin-test-no-ark", "--no-ark"], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => { out += d.toString(); const nl = out.indexOf("\n"); if (nl >= 0) resolve(out.slice(0, nl)); });
        child.once("exit", (code) => reject(new Error(`exited early with ${code}`)));
      });
      const ready = JSON.parse(line.slice("devnet ready ".length)) as Record<string, unknown>;
      expect(ready).to.have.property("esplora");
      expect(ready).to.not.have.property("ark");
      child.kill("SIGTERM");
      expect(await exited).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("prints one `devnet ready <json>` line with working URLs, the Ark server's included, and stops cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, [BIN, "--seed", "bin-test"], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const nl = out.indexOf("\n");
          if (nl >= 0) resolve(out.slice(0, nl));
        });
        child.once("exit", (code) => reject(new Error(`exited early with ${code}`)));
      });
      expect(line.startsWith("devnet ready {")).to.equal(true);
      const ready = JSON.parse(line.slice("devnet ready ".length)) as { esplora: string; bitcoind: string; cookie: string; control: string; ark?: string; ark_admin?: string; ark_server_pubkey?: string };
      expect(ready.ark).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(ready.ark_admin).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(ready.ark_server_pubkey).to.match(/^0[23][0-9a-f]{64}$/);
      expect(ready.esplora).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(ready.bitcoind).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(Number(await (await fetch(`${ready.esplora}/blocks/tip/height`)).text())).to.be.at.least(101);
      expect(existsSync(ready.cookie)).to.equal(true);
      child.kill("SIGTERM");
      expect(await exited).to.equal(0);
      expect(existsSync(ready.cookie)).to.equal(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
