import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BitcoindRpc } from "@tender/chain-bitcoind";
import { startBitcoind, type RunningBitcoind } from "@tender/core/testing";
import { toHex } from "@tender/ark-protocol";
import { grpcClient } from "./grpc-api.js";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "../../src/bin/devnet.js");
const exe = process.env.BITCOIND_EXE;

/** Runs the devnet binary; resolves with its ready JSON (or rejects with its stderr when it exits first). */
function run(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const ready = new Promise<Record<string, string>>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve(JSON.parse(out.slice("devnet ready ".length, nl)) as Record<string, string>);
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code}: ${err}`)));
  });
  return { child, exited, ready };
}

/**
 * `devnet --ark-bitcoind`: only the reference Ark server, on an external Bitcoin Core, its
 * database in --datadir (the same keys after a restart), its wallet watch-only in Core.
 */
describe("devnet bin --ark-bitcoind: the Ark server on an external Bitcoin Core", function () {
  this.timeout(60_000);
  if (!exe) {
    it("starts the Ark server on Bitcoin Core", function () {
      console.log("      skipped: BITCOIND_EXE is not set (point it at a bitcoind binary to run the Ark server on Bitcoin Core)");
      this.skip();
    });
    return;
  }
  let core: RunningBitcoind;
  const dir = mkdtempSync(join(tmpdir(), "ark-on-bitcoind-"));
  before(async () => {
    core = await startBitcoind(exe, { wallet: true });
  });
  after(async () => {
    await core?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses to start without --datadir or without credentials", async () => {
    const noDatadir = run(["--ark-bitcoind", core.url, "--ark-bitcoind-cookie", core.cookieFile]);
    expect(String(await noDatadir.ready.catch((e: unknown) => e))).to.contain("--ark-bitcoind needs --datadir");
    expect(await noDatadir.exited).to.equal(1);
    const noAuth = run(["--ark-bitcoind", core.url, "--datadir", dir]);
    expect(String(await noAuth.ready.catch((e: unknown) => e))).to.contain("--ark-bitcoind needs either --ark-bitcoind-cookie");
  });

  it("serves Ark info over gRPC, keeps its wallet in Core, and has the same keys after a restart", async () => {
    const args = ["--ark-bitcoind", core.url, "--ark-bitcoind-rpcuser", core.rpcUser.user, "--ark-bitcoind-rpcpassword", core.rpcUser.password, "--datadir", dir, "--profile", "test"];
    const first = run(args);
    let child = first.child;
    try {
      const ready = await first.ready;
      expect(ready).to.deep.include({ bitcoind: core.url, network: "regtest" });
      expect(ready).to.not.have.property("esplora");
      const client = grpcClient(ready.ark!);
      try {
        expect(toHex((await client.arkInfo()).serverPubkey)).to.equal(ready.ark_server_pubkey);
      } finally {
        client.close();
      }
      const wallet = new BitcoindRpc("test", { url: `${core.url}/wallet/ark-server`, auth: { cookieFile: core.cookieFile } });
      const address = (await wallet.call("getaddressinfo", [ready.ark_wallet_address])) as { ismine: boolean };
      expect(address.ismine, "the server wallet's address is watched by Core's ark-server wallet").to.equal(true);
      child.kill("SIGTERM");
      expect(await first.exited).to.equal(0);

      const second = run(args);
      child = second.child;
      const again = await second.ready;
      expect(again.ark_server_pubkey).to.equal(ready.ark_server_pubkey);
      expect(again.ark_wallet_address).to.equal(ready.ark_wallet_address);
      child.kill("SIGTERM");
      expect(await second.exited).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
