import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  allVtxos, boardAndRegister, externalAddress, fundedWallet, offboardDaemonConfig, offboardMovements, ok, startOffboardDevnet, type Balance,
  type DevnetWithArk, type Movement,
} from "./offboard-harness.js";

const MAINNET = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";

describe("offboard refusals: barkd's codes and texts, nothing changes (issue 11)", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  let d: Daemon;
  let vtxo: string;

  before(async () => {
    devnet = await startOffboardDevnet("offboard-refusals");
    d = await startDaemon({ config: offboardDaemonConfig() });
    await fundedWallet(d, devnet, [300_000n]);
    vtxo = await boardAndRegister(d, devnet, 200_000);
  });
  after(async () => {
    await d.stop();
    cleanup(d.datadir);
    await devnet.stop();
  });

  /** Everything a refusal must leave as it was. */
  const snapshot = async () => ({
    balance: await ok<Balance>(d, "GET", "/api/v1/wallet/balance"),
    vtxos: (await allVtxos(d)).map((v) => [v.id, v.state.type]),
    history: (await ok<Movement[]>(d, "GET", "/api/v1/history")).map((m) => [m.id, m.status]),
  });

  it("refuses bad requests before anything happens, with barkd's status, content type and text", async () => {
    const before = await snapshot();
    const unknown = `${"ab".repeat(32)}:0`;
    const to = externalAddress();
    const cases: [string, string, unknown, number, string | RegExp][] = [
      ["POST", "/api/v1/wallet/offboard/vtxos", { vtxos: [] }, 400, "No VTXO IDs provided"],
      ["POST", "/api/v1/wallet/offboard/vtxos", { vtxos: [vtxo], address: "not-an-address" }, 400, /^bad request: invalid destination address: /],
      ["POST", "/api/v1/wallet/offboard/vtxos", { vtxos: [vtxo], address: MAINNET }, 400, /^bad request: address is not valid for configured network/],
      ["POST", "/api/v1/wallet/offboard/vtxos", { vtxos: ["xyz"], address: to }, 400, /^bad request: Invalid VTXO id: /],
      ["POST", "/api/v1/wallet/offboard/vtxos", { vtxos: [unknown], address: to }, 404, `not found [resources=${unknown}]: VTXO not found`],
      ["POST", "/api/v1/wallet/offboard/all", { address: "nope" }, 400, /^bad request: invalid destination address: /],
      ["POST", "/api/v1/wallet/send-onchain", { destination: MAINNET, amount_sat: 10_000 }, 400, /^bad request: address is not valid for configured network/],
      ["POST", "/api/v1/wallet/send-onchain", { destination: "nope", amount_sat: 10_000 }, 400, /^bad request: invalid destination address: /],
      ["POST", "/api/v1/wallet/send-onchain", { destination: to, amount_sat: 329 }, 500, `the minimum you can send to ${to} is 0.00000330 BTC`],
      ["POST", "/api/v1/wallet/send-onchain", { destination: to, amount_sat: 1_000_000 }, 500, "Insufficient money available. Needed 1000000 but 200000 is available"],
      ["POST", "/api/v1/fees/offboard", { address: to, vtxos: [] }, 400, "No VTXO IDs provided"],
      ["POST", "/api/v1/fees/offboard", { address: "nope", vtxos: [vtxo] }, 400, /^bad request: Invalid destination address: /],
      ["POST", "/api/v1/fees/offboard", { address: to, vtxos: [unknown] }, 404, `not found [resources=${unknown}]: VTXO not found`],
      ["GET", `/api/v1/fees/offboard-all?address=${MAINNET}`, undefined, 400, /^bad request: Address is not valid for configured network/],
      ["GET", `/api/v1/fees/send-onchain?amount_sat=1000&address=nope`, undefined, 400, /^bad request: Invalid destination address: /],
    ];
    for (const [method, path, body, status, text] of cases) {
      const r = await d.api(method, path, body === undefined ? {} : { body });
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}: ${r.text}`).to.equal(status);
      const message = (r.json as { message: string }).message;
      if (typeof text === "string") expect(message, path).to.equal(text);
      else expect(message, path).to.match(text);
      if (status === 404) expect((r.json as { resources: string[] }).resources).to.deep.equal([unknown]);
    }
    // request extraction, as barkd: offboard/all needs a JSON body, a wrong shape is a plain-text 422, a missing query key a plain 400
    const noBody = await d.api("POST", "/api/v1/wallet/offboard/all", { headers: { "content-type": "text/plain" }, body: "x" });
    expect(noBody.status).to.equal(415);
    const shape = await d.api("POST", "/api/v1/wallet/send-onchain", { body: { destination: to, amount_sat: -1 } });
    expect([shape.status, shape.headers.get("content-type")?.startsWith("text/plain")]).to.deep.equal([422, true]);
    const query = await d.api("GET", `/api/v1/fees/send-onchain?address=${to}`);
    expect(query.status).to.equal(400);
    expect(query.headers.get("content-type")).to.match(/^text\/plain/);
    expect(await snapshot()).to.deep.equal(before);
  });

  it("answers 422 No wallet set without a wallet", async () => {
    const empty = await startDaemon({ config: offboardDaemonConfig() });
    try {
      for (const [method, path, body] of [
        ["POST", "/api/v1/wallet/offboard/all", {}], ["POST", "/api/v1/wallet/send-onchain", { destination: externalAddress(), amount_sat: 1000 }],
        ["GET", `/api/v1/fees/offboard-all?address=${externalAddress()}`, undefined],
      ] as const) {
        const r = await empty.api(method, path, body === undefined ? {} : { body });
        expect([r.status, r.json], path).to.deep.equal([422, { message: "No wallet set" }]);
      }
    } finally {
      await empty.stop();
      cleanup(empty.datadir);
    }
  });

  it("a blocklisted destination is refused by the server: offboard and send-onchain fail, the VTXOs are spendable again and the balance is unchanged", async () => {
    const blocked = externalAddress();
    const set = await fetch(`${devnet.arkControlUrl}/settings`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ bitcoin_address_blocklist: [blocked] }),
    });
    expect(set.status).to.equal(200);
    try {
      const r = await d.api("POST", "/api/v1/wallet/offboard/vtxos", { body: { vtxos: [vtxo], address: blocked } });
      expect(r.status).to.equal(500);
      expect((r.json as { message: string }).message).to.contain(`requested output address is blocked: ${blocked}`);
      expect((await allVtxos(d)).find((v) => v.id === vtxo)?.state.type).to.equal("spendable");
      const send = await d.api("POST", "/api/v1/wallet/send-onchain", { body: { destination: blocked, amount_sat: 50_000 } });
      expect(send.status).to.equal(500);
      expect((send.json as { message: string }).message).to.contain("requested output address is blocked");
      // the arkoor split happened (free): the exact-sized VTXO and the change are spendable, the balance is whole
      expect((await ok<Balance>(d, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(200_000);
      expect((await ok<{ state: { type: string } }[]>(d, "GET", "/api/v1/wallet/vtxos")).every((v) => v.state.type === "spendable")).to.equal(true);
      // barkd records what was tried as failed movements that moved nothing
      const failed = await offboardMovements(d);
      expect(failed.map((m) => [m.subsystem.kind, m.status, m.effective_balance_sat])).to.deep.equal([["offboard", "failed", 0], ["send_onchain", "failed", 0]]);
    } finally {
      await fetch(`${devnet.arkControlUrl}/settings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ bitcoin_address_blocklist: [] }) });
    }
    // unblocked, the same VTXOs offboard
    const to = externalAddress();
    expect((await ok<{ offboard_txid: string }>(d, "POST", "/api/v1/wallet/offboard/all", { address: to })).offboard_txid).to.match(/^[0-9a-f]{64}$/);
    expect((await ok<Balance>(d, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(0);
  });
});
