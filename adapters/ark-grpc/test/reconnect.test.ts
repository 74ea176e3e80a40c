import { expect } from "chai";
import { ArkServerClient, ArkServerConnectionLostError, ArkServerError, ArkServerUnavailableError, Backoff } from "../src/index.js";
import { FAST_BACKOFF, FakeArkServer, until, useFakeServers } from "./fake-server.js";

describe("ark-grpc reconnection", () => {
  const fx = useFakeServers();
  let server: FakeArkServer;
  let client: ArkServerClient | undefined;

  it("reports the server down, then reconnects with back-off once it is back on the same port", async () => {
    server = await fx.server().start();
    client = fx.client({ url: server.url, network: "regtest", backoff: FAST_BACKOFF });
    await client.connect();
    server.stop();
    const err = await client.ark("nextRoundTime", {}).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ArkServerUnavailableError);
    expect(client.connected).to.equal(false);
    expect(await client.heartbeat()).to.equal(false);

    const pending = client.connectWithBackoff();
    await new Promise((r) => setTimeout(r, 120)); // a few failed attempts while down
    const handshakesBefore = server.callsTo("Handshake").length;
    await server.start();
    const session = await pending;
    expect(session.protocolVersion).to.equal(5);
    expect(client.connected).to.equal(true);
    expect(server.callsTo("Handshake").length).to.equal(handshakesBefore + 1);
    expect(server.callsTo("GetArkInfo").at(-1)!.pver).to.equal("5");
  });

  it("the heartbeat flips `connected` off while the server is down and back on after its restart", async () => {
    server = await fx.server().start();
    client = fx.client({ url: server.url, network: "regtest", backoff: FAST_BACKOFF, heartbeatDeadlineMs: 300 });
    await client.connect();
    const hb = client.startHeartbeat(25);
    try {
      server.stop();
      await until(() => client!.connected === false);
      // the channel saw the connection go (or a heartbeat failed with UNAVAILABLE / CANCELLED)
      expect(client.lastError).to.satisfy((e: unknown) => e instanceof ArkServerConnectionLostError || (e instanceof ArkServerError && e.isTransient));
      await server.start();
      await until(() => client!.connected === true);
    } finally {
      hb.stop();
    }
  });

  it("gives up connecting after maxAttempts with the last transport error", async () => {
    server = await fx.server().start();
    server.stop();
    client = fx.client({ url: server.url, network: "regtest", backoff: FAST_BACKOFF });
    const err = await client.connectWithBackoff({ maxAttempts: 3 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ArkServerUnavailableError);
  });

  it("backs off exponentially with equal jitter from 1 s up to 30 s, and resets after progress", () => {
    const low = new Backoff({ random: () => 0 });
    expect([1, 2, 3, 4, 5, 6, 7].map(() => low.next())).to.deep.equal([500, 1000, 2000, 4000, 8000, 15000, 15000]);
    const high = new Backoff({ random: () => 0.999999 });
    expect([1, 2, 3, 4, 5, 6].map(() => high.next())).to.deep.equal([1000, 2000, 4000, 8000, 16000, 30000]);
    high.reset();
    expect(high.next()).to.equal(1000);
  });
});
