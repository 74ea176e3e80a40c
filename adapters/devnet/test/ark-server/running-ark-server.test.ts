import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ArkServerUnavailableError } from "@tender/ark-grpc";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { ArkServerRestartError, startArkServer, type RunningArkServer } from "../../src/ark-server/start-ark-server.js";
import { grpcClient } from "./grpc-api.js";
import { rejection } from "./fixture.js";

describe("ark server: RunningArkServer stops and starts again in the same process", function () {
  this.timeout(30_000);
  const node = new DevnetNode({ seed: "running-ark-server" });
  let ark: RunningArkServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await ark?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    ark = undefined;
    dir = undefined;
  });

  it("after a kill, start serves the same keys on the same ports with the settings changed at run time", async () => {
    dir = mkdtempSync(join(tmpdir(), "tender-running-ark-"));
    ark = await startArkServer({ node, datadir: dir, profile: "test" });
    const { url, adminUrl } = ark;
    const keys = ark.server.ctx.keys.serverPubkey;
    ark.settings.update({ maxReadMailboxItems: 3 });
    await ark.kill();
    expect(ark.running).to.equal(false);
    const down = grpcClient(url);
    try {
      expect(await rejection(down.ark("getArkInfo", {}))).to.be.instanceOf(ArkServerUnavailableError);
    } finally {
      down.close();
    }
    await ark.start();
    expect([ark.running, ark.url, ark.adminUrl]).to.deep.equal([true, url, adminUrl]);
    expect(ark.server.ctx.keys.serverPubkey).to.deep.equal(keys);
    expect(ark.server.config.maxReadMailboxItems).to.equal(3);
    const up = grpcClient(url);
    try {
      expect((await up.ark("getArkInfo", {})).serverPubkey).to.deep.equal(keys);
    } finally {
      up.close();
    }
  });

  it("refuses to start while running, and to start again a server whose database was in memory", async () => {
    ark = await startArkServer({ node, profile: "test" });
    expect((await rejection(ark.start())).message).to.equal("the Ark server is already running");
    await ark.stop();
    await ark.stop(); // a second stop does nothing
    const err = await rejection(ark.start());
    expect(err).to.be.instanceOf(ArkServerRestartError);
    expect(err.message).to.match(/database is in memory/);
    expect(ark.running).to.equal(false);
  });
});
