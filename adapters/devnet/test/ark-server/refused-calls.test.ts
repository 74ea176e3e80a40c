import { expect } from "chai";
import type { ArkServerClient } from "@tender/ark-grpc";
import { startDevnetWithArk, type DevnetWithArk } from "../../src/ark-server/devnet-with-ark.js";
import { grpcClient } from "./grpc-api.js";
import { rejection } from "./fixture.js";

describe("devnet control refused_calls: the server refuses an HTLC revocation, a receive claim or a board registration whatever the request", function () {
  this.timeout(60_000);
  let devnet: DevnetWithArk;
  let client: ArkServerClient;

  before(async () => {
    devnet = await startDevnetWithArk({ seed: "ark-refused-calls", ark: { profile: "test" } });
    client = grpcClient(devnet.arkUrl);
  });
  after(async () => {
    client?.close();
    await devnet?.stop();
  });

  const settings = async (body: unknown): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`${devnet.arkControlUrl}/settings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: res.status === 200 ? JSON.parse(text) : text };
  };
  const revoke = () => rejection(client.ark("requestLightningPayHtlcRevocation", { parts: [] }));
  const claim = () => rejection(client.ark("claimLightningReceive", { paymentHash: new Uint8Array(32), paymentPreimage: new Uint8Array(32), cosignRequest: { parts: [] } }));
  const registerBoard = () => rejection(client.ark("registerBoardVtxo", { boardVtxo: new Uint8Array(10) }));

  it("lists the refused calls in the settings; each listed call is answered with the refusal, the others as before; [] lifts it", async () => {
    expect((await revoke()).message).to.not.match(/refused by the devnet's controls/);
    expect((await claim()).message).to.not.match(/refused by the devnet's controls/);
    const on = await settings({ refused_calls: ["RequestLightningPayHtlcRevocation"] });
    expect(on.status).to.equal(200);
    expect(on.body).to.deep.include({ refused_calls: ["RequestLightningPayHtlcRevocation"] });
    expect((await revoke()).message).to.match(/RequestLightningPayHtlcRevocation refused by the devnet's controls \(refused_calls\)/);
    expect((await claim()).message).to.not.match(/refused by the devnet's controls/);
    await settings({ refused_calls: ["ClaimLightningReceive", "RequestLightningPayHtlcRevocation"] });
    expect((await claim()).message).to.match(/ClaimLightningReceive refused by the devnet's controls/);
    // a board registration is refused before its VTXO is even read
    expect((await registerBoard()).message).to.not.match(/refused by the devnet's controls/);
    await settings({ refused_calls: ["RegisterBoardVtxo"] });
    expect((await registerBoard()).message).to.match(/RegisterBoardVtxo refused by the devnet's controls/);
    expect((await claim()).message).to.not.match(/refused by the devnet's controls/);
    const off = await settings({ refused_calls: [] });
    expect(off.body).to.deep.include({ refused_calls: [] });
    expect((await revoke()).message).to.not.match(/refused by the devnet's controls/);
  });

  it("refuses an unknown call name or a non-array with 400, changing nothing", async () => {
    for (const bad of [{ refused_calls: ["Board"] }, { refused_calls: "ClaimLightningReceive" }]) {
      const a = await settings(bad);
      expect(a.status, JSON.stringify(bad)).to.equal(400);
      expect(a.body).to.match(/^refused_calls must be an array of call names \(known: RequestLightningPayHtlcRevocation, ClaimLightningReceive, RegisterBoardVtxo\)/);
    }
    const r = await fetch(`${devnet.arkControlUrl}/settings`);
    expect(((await r.json()) as { refused_calls: unknown }).refused_calls).to.deep.equal([]);
  });
});
