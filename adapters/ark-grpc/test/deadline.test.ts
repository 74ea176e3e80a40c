import { expect } from "chai";
import { ArkServerClient, ArkServerDeadlineError, OffboardFeeRateResponse } from "../src/index.js";
import { FakeArkServer, useFakeServers } from "./fake-server.js";

describe("ark-grpc deadlines", () => {
  const fx = useFakeServers();
  let server: FakeArkServer;
  let client: ArkServerClient | undefined;

  it("sends a 10-minute deadline on unary calls by default", async () => {
    server = await fx.server({ ark: { getOffboardFeeRate: (_c, cb) => cb(null, OffboardFeeRateResponse.create({ satVkb: 2_000n })) } }).start();
    client = fx.client({ url: server.url, network: "regtest" });
    expect((await client.ark("getOffboardFeeRate", {})).satVkb).to.equal(2_000n);
    const d = server.callsTo("GetOffboardFeeRate")[0]!.deadlineInMs;
    expect(d).to.be.within(10 * 60_000 - 5_000, 10 * 60_000);
  });

  it("fails a call that outlives its deadline with a transient deadline error, and stays connected", async () => {
    server = await fx.server({
      ark: { getOffboardFeeRate: (_c, cb) => void setTimeout(() => cb(null, OffboardFeeRateResponse.create({ satVkb: 1n })), 1_500).unref() },
    }).start();
    client = fx.client({ url: server.url, network: "regtest" });
    await client.connect();
    const started = Date.now();
    const err = await client.ark("getOffboardFeeRate", {}, { deadlineMs: 150 }).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(err).to.be.instanceOf(ArkServerDeadlineError);
    expect((err as ArkServerDeadlineError).isTransient).to.equal(true);
    expect(took).to.be.lessThan(1_000);
    expect(server.callsTo("GetOffboardFeeRate")[0]!.deadlineInMs).to.be.at.most(150);
    expect(client.connected).to.equal(true);
  });
});
