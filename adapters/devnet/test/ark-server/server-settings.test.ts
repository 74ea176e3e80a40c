import { expect } from "chai";
import { serverConfig, ServerConfigError } from "../../src/ark-server/server-config.js";
import { ServerSettings } from "../../src/ark-server/server-settings.js";
import { serverFixture } from "./fixture.js";

describe("ark server: settings at run time (ServerSettings)", () => {
  it("a change replaces only its fields; an invalid one throws and changes nothing", () => {
    const settings = new ServerSettings(serverConfig("test"));
    const before = settings.current;
    expect(settings.update({ maxReadMailboxItems: 5, roundIntervalSecs: 20 })).to.deep.equal({ ...before, maxReadMailboxItems: 5, roundIntervalSecs: 20 });
    const valid = settings.current;
    for (const bad of [{ maxReadMailboxItems: 0 }, { roundIntervalSecs: 0.5 }, { vtxoExitDelta: 0 }, { fees: { ...valid.fees, board: { ...valid.fees.board, ppm: -1n } } }]) {
      expect(() => settings.update({ maxReadMailboxItems: 9, ...bad }), JSON.stringify(bad, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).to.throw(ServerConfigError);
      expect(settings.current).to.equal(valid);
    }
  });

  it("the server reads the settings on every use: ArkInfo and the handshake follow a change at once", async () => {
    const f = await serverFixture();
    try {
      f.server.ctx.settings.update({ roundIntervalSecs: 42, handshakePsa: "hello" });
      expect((await f.server.arkInfo()).roundIntervalSecs).to.equal(42);
      expect(f.server.handshake("0.6.0").psa).to.equal("hello");
    } finally {
      await f.close();
    }
  });
});
