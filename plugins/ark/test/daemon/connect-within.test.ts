import { expect } from "chai";
import type { Logger } from "@tender/core";
import type { ArkServer, ArkSession } from "@tender/ark-protocol/server";
import { connectWithin } from "../../src/daemon/connection/open-connection.js";

/** A logger that keeps its warnings. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const l = { warnings, trace() {}, debug() {}, info() {}, error() {}, warn: (m: string) => void warnings.push(m), child: () => l };
  return l;
}

/** A server whose `connect()` is the given promise (only `connect` is used). */
const serverConnecting = (attempt: () => Promise<ArkSession>): ArkServer => ({ connect: attempt }) as unknown as ArkServer;

describe("the first Ark server connection while a wallet loads (bounded wait, never fails the load)", () => {
  it("waits for a connection that succeeds and answers true", async () => {
    const log = recordingLogger();
    let done = false;
    const server = serverConnecting(async () => {
      await new Promise((r) => setTimeout(r, 30));
      done = true;
      return {} as ArkSession;
    });
    expect(await connectWithin(server, 5_000, log)).to.equal(true);
    expect(done).to.equal(true);
    expect(log.warnings).to.deep.equal([]);
  });

  it("answers false, without throwing, when the server refuses, and says why", async () => {
    const log = recordingLogger();
    const server = serverConnecting(() => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:9")));
    expect(await connectWithin(server, 5_000, log)).to.equal(false);
    expect(log.warnings).to.deep.equal(["Ark server not reachable while loading the wallet: connect ECONNREFUSED 127.0.0.1:9"]);
  });

  it("stops waiting after the bound when the server does not answer; the attempt's later failure is handled", async () => {
    const log = recordingLogger();
    let fail: (e: Error) => void = () => undefined;
    const server = serverConnecting(() => new Promise<ArkSession>((_, reject) => (fail = reject)));
    const t0 = Date.now();
    expect(await connectWithin(server, 50, log)).to.equal(false);
    expect(Date.now() - t0).to.be.within(40, 1_000);
    expect(log.warnings).to.deep.equal(["Ark server did not answer within 50 ms while loading the wallet; connecting in the background"]);
    fail(new Error("deadline exceeded"));
    await new Promise((r) => setImmediate(r));
    expect(log.warnings[1]).to.equal("Ark server not reachable while loading the wallet: deadline exceeded");
  });
});
