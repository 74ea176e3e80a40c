import { expect } from "chai";
import {
  ArkClientClosedError,
  ArkServerClient,
  HandshakeResponse,
  NextRoundTimeResponse,
  InvalidArkInfoError,
  ProtocolVersionMismatchError,
  negotiateProtocolVersion,
  readPver,
  callMetadata,
  PpmExpiryFeeEntry,
  OffboardFees,
  FeeSchedule,
} from "../src/index.js";
import { FakeArkServer, MAILBOX_PUBKEY, SERVER_PUBKEY, sampleArkInfo, useFakeServers } from "./fake-server.js";

describe("ark-grpc handshake, pver and Ark info", () => {
  const fx = useFakeServers();
  let server: FakeArkServer;
  let client: ArkServerClient | undefined;

  it("sends the first Handshake without pver, then pver 5 and x-user-agent on every later call", async () => {
    server = await fx.server({ ark: { nextRoundTime: (_c, cb) => cb(null, NextRoundTimeResponse.create({ timestamp: 1_900_000_000n })) } }).start();
    client = fx.client({ url: server.url, network: "regtest" });
    expect(client.connected).to.equal(false);
    await client.connect();
    expect((await client.ark("nextRoundTime", {})).timestamp).to.equal(1_900_000_000n);
    expect(await client.heartbeat()).to.equal(true);
    expect(server.calls.map((c) => [c.method, c.pver])).to.deep.equal([
      ["Handshake", undefined],
      ["GetArkInfo", "5"],
      ["NextRoundTime", "5"],
      ["Handshake", "5"],
    ]);
    expect(server.calls.every((c) => c.userAgent === "tender/0.1.0")).to.equal(true);
    expect(client.connected).to.equal(true);
  });

  it("sends its software version in the handshake and a custom user agent when configured", async () => {
    const versions: (string | undefined)[] = [];
    server = await fx.server({
      ark: {
        handshake: (call, cb) => {
          versions.push(call.request.barkVersion);
          cb(null, HandshakeResponse.create({ minProtocolVersion: 4n, maxProtocolVersion: 5n }));
        },
      },
    }).start();
    client = fx.client({ url: server.url, network: "regtest", userAgent: "my-app/2.1.0", clientVersion: "my-app 2.1.0" });
    await client.connect();
    expect(versions).to.deep.equal(["my-app 2.1.0"]);
    expect(server.calls.map((c) => c.userAgent)).to.deep.equal(["my-app/2.1.0", "my-app/2.1.0"]);
  });

  it("negotiates min(client max, server max): 5 against a 4..5 server, refuses ranges that do not meet", () => {
    expect(negotiateProtocolVersion({ min: 5, max: 5 }, { min: 4, max: 5 })).to.equal(5);
    expect(negotiateProtocolVersion({ min: 4, max: 5 }, { min: 1, max: 4 })).to.equal(4);
    expect(() => negotiateProtocolVersion({ min: 5, max: 5 }, { min: 6, max: 7 })).to.throw(ProtocolVersionMismatchError, "version mismatch. Client max is: 5, server min is: 6");
    expect(() => negotiateProtocolVersion({ min: 5, max: 5 }, { min: 1, max: 4 })).to.throw(ProtocolVersionMismatchError, "version mismatch. Client min is: 5, server max is: 4");
  });

  for (const [min, max, text] of [
    [6n, 7n, "version mismatch. Client max is: 5, server min is: 6"],
    [1n, 4n, "version mismatch. Client min is: 5, server max is: 4"],
  ] as const) {
    it(`refuses a server speaking ${min}..${max} without calling GetArkInfo, and stays disconnected`, async () => {
      server = await fx.server({ ark: { handshake: (_c, cb) => cb(null, HandshakeResponse.create({ minProtocolVersion: min, maxProtocolVersion: max })) } }).start();
      client = fx.client({ url: server.url, network: "regtest" });
      const err = await client.connect().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(ProtocolVersionMismatchError);
      expect((err as Error).message).to.equal(text);
      expect(server.callsTo("GetArkInfo")).to.have.length(0);
      expect(client.connected).to.equal(false);
      expect(await client.connectWithBackoff({ maxAttempts: 3 }).catch((e: unknown) => e)).to.be.instanceOf(ProtocolVersionMismatchError);
      expect(server.callsTo("Handshake")).to.have.length(2); // not retried by connectWithBackoff
    });
  }

  it("logs the server's PSA and keeps it in the session", async () => {
    server = await fx.server({ ark: { handshake: (_c, cb) => cb(null, HandshakeResponse.create({ minProtocolVersion: 4n, maxProtocolVersion: 5n, psa: "maintenance at noon" })) } }).start();
    const lines: string[] = [];
    const logger = { debug() {}, info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
    client = fx.client({ url: server.url, network: "regtest", logger });
    const session = await client.connect();
    expect(session.psa).to.equal("maintenance at noon");
    expect(session.serverVersions).to.deep.equal({ min: 4, max: 5 });
    expect(lines).to.deep.equal(["Message from the Ark server: maintenance at noon"]);
  });

  it("decodes every ArkInfo field: bigint amounts, 33-byte keys, fee tables, optional fields", async () => {
    server = await fx.server().start();
    client = fx.client({ url: server.url, network: "regtest" });
    const info = await client.arkInfo();
    expect(info).to.deep.equal(sampleArkInfo());
    expect(Buffer.from(info.serverPubkey)).to.deep.equal(Buffer.from(SERVER_PUBKEY));
    expect(Buffer.from(info.mailboxPubkey)).to.deep.equal(Buffer.from(MAILBOX_PUBKEY));
    expect(info.maxVtxoAmount).to.equal(21_000_000_00_000_000n);
    expect(info.fees?.offboard?.ppmExpiryTable.map((e) => [e.expiryBlocksThreshold, e.ppm])).to.deep.equal([
      [10, 100n],
      [50, 500n],
    ]);
    expect(info.tosLink).to.equal("https://example.invalid/tos");
    // the client asks once per connection: a second read comes from the session
    await client.arkInfo();
    expect(server.callsTo("GetArkInfo")).to.have.length(1);
  });

  const badInfos: [string, () => ReturnType<typeof sampleArkInfo>, string][] = [
    ["another network", () => sampleArkInfo({ network: "signet" }), "network mismatch. Expected: regtest, Got: signet"],
    ["no fee schedule", () => sampleArkInfo({ fees: undefined }), "missing fees"],
    ["a fee schedule without its refresh part", () => sampleArkInfo({ fees: FeeSchedule.create({ ...sampleArkInfo().fees, refresh: undefined }) }), "missing fees"],
    ["an exit delta above 16383", () => sampleArkInfo({ vtxoExitDelta: 16384 }), "vtxo_exit_delta 16384 exceeds the maximum block delta 16383"],
    [
      "a fee table whose ppm decreases",
      () =>
        sampleArkInfo({
          fees: FeeSchedule.create({
            ...sampleArkInfo().fees,
            offboard: OffboardFees.create({ baseFeeSat: 1n, fixedAdditionalVb: 1n, ppmExpiryTable: [PpmExpiryFeeEntry.create({ expiryBlocksThreshold: 1, ppm: 10n }), PpmExpiryFeeEntry.create({ expiryBlocksThreshold: 2, ppm: 5n })] }),
          }),
        }),
      "invalid fee schedule",
    ],
    ["a truncated server key", () => sampleArkInfo({ serverPubkey: SERVER_PUBKEY.slice(0, 32) }), "server_pubkey is not a 33-byte compressed public key"],
  ];
  for (const [what, info, text] of badInfos) {
    it(`refuses Ark info with ${what}`, async () => {
      server = await fx.server({ ark: { getArkInfo: (_c, cb) => cb(null, info()) } }).start();
      client = fx.client({ url: server.url, network: "regtest" });
      const err = await client.connect().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(InvalidArkInfoError);
      expect((err as Error).message).to.contain(text);
      expect(client.connected).to.equal(false);
    });
  }

  it("refresh() re-fetches Ark info on the open channel and replaces the session", async () => {
    let n = 0;
    server = await fx.server({ ark: { getArkInfo: (_c, cb) => cb(null, sampleArkInfo({ minBoardAmount: BigInt(++n * 1000) })) } }).start();
    client = fx.client({ url: server.url, network: "regtest" });
    expect((await client.arkInfo()).minBoardAmount).to.equal(1000n);
    const refreshed = await client.refresh();
    expect(refreshed.arkInfo.minBoardAmount).to.equal(2000n);
    expect((await client.arkInfo()).minBoardAmount).to.equal(2000n);
    expect(server.callsTo("GetArkInfo").map((c) => c.pver)).to.deep.equal(["5", "5"]);
  });

  it("a closed client refuses every call without touching the server", async () => {
    server = await fx.server().start();
    client = fx.client({ url: server.url, network: "regtest" });
    await client.connect();
    client.close();
    expect(client.connected).to.equal(false);
    expect(await client.ark("getArkInfo", {}).catch((e: unknown) => e)).to.be.instanceOf(ArkClientClosedError);
    expect(await client.connect().catch((e: unknown) => e)).to.be.instanceOf(ArkClientClosedError);
    expect(await client.heartbeat()).to.equal(false);
    expect(server.calls).to.have.length(2);
  });

  it("reads pver the way captaind does: missing and unparsable headers get its texts", () => {
    expect(readPver(callMetadata({ pver: 5, userAgent: undefined }))).to.deep.equal({ pver: 5 });
    expect(readPver(callMetadata({ pver: undefined, userAgent: "a/1" }))).to.deep.equal({ error: "missing pver header" });
    const md = callMetadata({ pver: undefined, userAgent: undefined });
    md.set("pver", "five");
    expect(readPver(md)).to.deep.equal({ error: "invalid protocol version header" });
  });
});
