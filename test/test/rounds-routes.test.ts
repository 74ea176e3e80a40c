import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC } from "./ark-harness.js";
import {
  ROUNDS_ENV, ROUND_CONFIRMATIONS, balance, boardedWallet, createBody, history, ok, printLogsOnFailure, refreshFeeOf, rounds, roundsDaemonConfig,
  runRound, serverState, startRoundsDevnet, until, untilMovementEnded, untilRoundStatus, vtxos,
  type DevnetWithArk, type PendingRoundInfo,
} from "./rounds-harness.js";

/** barkd's `NotFoundError` body of `refresh/counterparty` when nothing qualifies. */
const NO_COUNTERPARTY_VTXO = { resources: [], message: "No VTXO to refresh" };

/** The refresh routes' choices of inputs (`refresh/vtxos`, `refresh/counterparty`) and their refusals. */
describe("refresh routes: which VTXOs each takes, and barkd's refusals that change nothing", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    devnet = await startRoundsDevnet("rounds-routes");
    [alice, bob] = await Promise.all([
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
    ]);
    await boardedWallet(alice, devnet, ALICE_MNEMONIC, [100_000, 50_000]);
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
  });
  afterEach(function () {
    printLogsOnFailure(this, { alice, bob });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  /** Everything a refused request must leave as it was. */
  const snapshot = async (d: Daemon) => ({ balance: await balance(d), vtxos: await vtxos(d), history: await history(d), rounds: await rounds(d) });

  it("refresh/counterparty takes only VTXOs someone else signed for (404 for own board and change VTXOs); refresh/vtxos exactly the ids given", async () => {
    // Bob has no VTXO yet: nothing to refresh on either route
    const bobEmpty = await snapshot(bob);
    let r = await bob.api("POST", "/api/v1/wallet/refresh/all", { body: {} });
    expect([r.status, r.json]).to.deep.equal([400, { message: "No VTXOs to refresh" }]);
    r = await bob.api("POST", "/api/v1/wallet/refresh/counterparty", { body: {} });
    expect([r.status, r.json]).to.deep.equal([404, NO_COUNTERPARTY_VTXO]);
    expect(await snapshot(bob)).to.deep.equal(bobEmpty);
    // Alice holds board VTXOs only: nothing with counterparty risk
    r = await alice.api("POST", "/api/v1/wallet/refresh/counterparty", { body: {} });
    expect([r.status, r.json]).to.deep.equal([404, NO_COUNTERPARTY_VTXO]);
    // her change from paying Bob is hers alone too; Bob's received VTXO is not his alone
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 30_000 });
    await until("Bob received", async () => ((await balance(bob)).spendable_sat === 30_000 ? true : undefined));
    const aliceVtxos = await vtxos(alice);
    expect(aliceVtxos.some((v) => (v.exit_depth ?? 0) > 1), "Alice holds change").to.equal(true);
    const aliceBefore = await snapshot(alice);
    r = await alice.api("POST", "/api/v1/wallet/refresh/counterparty", { body: {} });
    expect([r.status, r.json]).to.deep.equal([404, NO_COUNTERPARTY_VTXO]);
    expect(await snapshot(alice)).to.deep.equal(aliceBefore);

    const [received] = await vtxos(bob);
    const bobRefresh = await ok<PendingRoundInfo>(bob, "POST", "/api/v1/wallet/refresh/counterparty");
    expect(bobRefresh.participation.inputs).to.deep.equal([received!.id]);
    expect(bobRefresh.participation.outputs.map((o) => o.amount_sat)).to.deep.equal([30_000 - refreshFeeOf(30_000)]);

    // Alice refreshes one VTXO of hers by id; the others stay spendable
    const [chosen, ...rest] = aliceVtxos;
    const aliceRefresh = await ok<PendingRoundInfo>(alice, "POST", "/api/v1/wallet/refresh/vtxos", { vtxos: [chosen!.id] });
    expect(aliceRefresh.participation.inputs).to.deep.equal([chosen!.id]);
    expect((await vtxos(alice)).map((v) => [v.id, v.state.type])).to.deep.equal([[chosen!.id, "locked"], ...rest.map((v) => [v.id, "spendable"])]);
    expect(await balance(alice)).to.deep.include({ spendable_sat: aliceBefore.balance.spendable_sat - chosen!.amount_sat, pending_in_round_sat: chosen!.amount_sat - refreshFeeOf(chosen!.amount_sat) });

    expect(await runRound(devnet)).to.equal("finished");
    await untilRoundStatus(alice, aliceRefresh.id, "unconfirmed");
    await untilRoundStatus(bob, bobRefresh.id, "unconfirmed");
    devnet.node.mine(ROUND_CONFIRMATIONS);
    for (const d of [alice, bob]) expect((await untilMovementEnded(d, (await history(d))[0]!.id)).status).to.equal("successful");
    expect(await serverState(devnet, received!.id)).to.equal("spent");
    for (const v of rest) expect(await serverState(devnet, v.id)).to.equal("spendable");
    expect((await vtxos(alice)).filter((v) => rest.some((x) => x.id === v.id)).map((v) => v.state.type)).to.deep.equal(rest.map(() => "spendable"));
    // Bob's new VTXO comes from a round, on his own key: no counterparty risk left
    r = await bob.api("POST", "/api/v1/wallet/refresh/counterparty", { body: {} });
    expect([r.status, r.json]).to.deep.equal([404, NO_COUNTERPARTY_VTXO]);
  });

  it("refuses bad input on every route with barkd's codes and texts, and changes nothing", async () => {
    // Bob pays Alice a dust VTXO and one whose refresh output would be dust after the fee
    const { address } = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    await ok(bob, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 300 });
    await ok(bob, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 400 });
    const dust = await until("the dust VTXOs", async () => {
      const v = await vtxos(alice);
      const d300 = v.find((x) => x.amount_sat === 300);
      const d400 = v.find((x) => x.amount_sat === 400);
      return d300 && d400 ? { d300, d400 } : undefined;
    });
    const [big] = (await vtxos(alice)).filter((v) => v.amount_sat > 10_000);
    // a VTXO already held by a pending refresh
    const held = await ok<PendingRoundInfo>(alice, "POST", "/api/v1/wallet/refresh/vtxos", { vtxos: [big!.id] });
    const before = await snapshot(alice);
    const unknown = `${"ab".repeat(32)}:7`;

    const cases: { path: string; body: unknown; status: number; text: string | RegExp }[] = [];
    for (const path of ["/api/v1/wallet/refresh/vtxos", "/api/v1/wallet/refresh/delegated/vtxos"]) {
      cases.push(
        { path, body: { vtxos: [] }, status: 400, text: '{"message":"No VTXO IDs provided"}' },
        { path, body: { vtxos: ["not-a-vtxo"] }, status: 400, text: /^\{"message":"bad request: Invalid VTXO id: / },
        { path, body: { vtxos: [dust.d300.id, "ab:1"] }, status: 400, text: /^\{"message":"bad request: Invalid VTXO id: / },
        { path, body: { vtxos: [unknown] }, status: 500, text: new RegExp(`^\\{"message":"Failed to build round participation: vtxo with id ${unknown} not found`) },
        { path, body: { vtxos: [dust.d300.id, dust.d300.id] }, status: 500, text: `{"message":"Failed to build round participation: duplicate VTXO id: ${dust.d300.id}"}` },
        { path, body: { vtxos: [dust.d300.id] }, status: 500, text: '{"message":"Failed to build round participation: vtxo amount must be at least 0.00000330 BTC to participate in a round"}' },
        {
          path, body: { vtxos: [dust.d400.id] }, status: 500,
          text: '{"message":"Failed to build round participation: Amount after fee (0.00000299 BTC) is below dust limit (0.00000330 BTC). Amount: 0.00000400 BTC, Fee: 0.00000101 BTC"}',
        },
        { path, body: {}, status: 422, text: /^Failed to deserialize the JSON body into the target type: / },
        { path, body: { vtxos: dust.d300.id }, status: 422, text: /^Failed to deserialize the JSON body into the target type: / },
      );
    }
    const delegated = "/api/v1/wallet/refresh/delegated/vtxos";
    cases.push(
      { path: delegated, body: { vtxos: [dust.d400.id], height: -1 }, status: 422, text: /^Failed to deserialize the JSON body into the target type: / },
      { path: delegated, body: { vtxos: [dust.d400.id], height: 1.5 }, status: 422, text: /^Failed to deserialize the JSON body into the target type: / },
      { path: delegated, body: { vtxos: [dust.d400.id], height: 2 ** 32 }, status: 422, text: /^Failed to deserialize the JSON body into the target type: / },
      // the VTXO held by the pending refresh cannot join a second one
      { path: "/api/v1/wallet/refresh/vtxos", body: { vtxos: [big!.id] }, status: 500, text: /^\{"message":"Failed to store round participation: failed to lock input VTXOs: / },
    );
    for (const c of cases) {
      const r = await alice.api("POST", c.path, { body: c.body });
      expect(r.status, `${c.path} ${JSON.stringify(c.body)}: ${r.text}`).to.equal(c.status);
      if (typeof c.text === "string") expect(r.text).to.equal(c.text);
      else expect(r.text).to.match(c.text);
      expect(await snapshot(alice), `${c.path} ${JSON.stringify(c.body)} changed nothing`).to.deep.equal(before);
    }
    expect((await rounds(alice)).map((x) => x.id)).to.deep.equal([held.id]);
  });
});
