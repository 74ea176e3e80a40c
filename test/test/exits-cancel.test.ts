import { expect } from "chai";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  boardAndRegister, exitDaemonConfig, fundOnchain, fundedWallet, liveExits, ok, payArk, progressUntilClaimable, startExitDevnet,
  type Balance, type DevnetWithArk, type ExitProgress, type ExitStatus, type Movement, type VtxoInfo,
} from "./exits-harness.js";

/**
 * Canceling exits (barkd's rules and texts), restarting a canceled one, and barkd's answers to
 * bad input on every exit route.
 */
describe("exits: cancel, restart and refusals", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;
  const datadirs = [tempDatadir(), tempDatadir()];
  let boardA: string;
  let boardB: string;
  let received: string;

  before(async () => {
    devnet = await startExitDevnet("exits-cancel");
    alice = await startDaemon({ datadir: datadirs[0], config: exitDaemonConfig() });
    bob = await startDaemon({ datadir: datadirs[1], config: exitDaemonConfig() });
    await fundedWallet(alice, devnet, [300_000n]);
    await fundedWallet(bob, devnet, [200_000n]);
    boardA = await boardAndRegister(alice, devnet, 80_000);
    boardB = await boardAndRegister(alice, devnet, 70_000);
    await boardAndRegister(bob, devnet, 100_000);
    received = await payArk(bob, alice, 60_000);
    await fundOnchain(alice, devnet, [100_000n]);
  });
  after(async () => {
    await alice?.stop();
    await bob?.stop();
    await devnet?.stop();
    for (const d of datadirs) cleanup(d);
  });

  const balance = () => ok<Balance>(alice, "GET", "/api/v1/wallet/balance");
  const vtxo = async (id: string) => (await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos?all=true")).find((v) => v.id === id)!;
  const exitMovements = async () => (await ok<Movement[]>(alice, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.exit");

  it("cancels an exit whose ancestors are on chain but whose final tx is not: the VTXO is spendable again, the movement canceled", async () => {
    const spendable = (await balance()).spendable_sat;
    await ok(alice, "POST", "/api/v1/exits/start/vtxos", { vtxos: [received] });
    expect(await vtxo(received)).to.deep.include({ state: { type: "locked", action_id: "exit.1" } });
    expect(await balance()).to.deep.include({ spendable_sat: spendable - 60_000, pending_exit_sat: 60_000 });
    // two passes: the first exit tx goes out and confirms, then the second; the final one not yet
    await ok(alice, "POST", "/api/v1/exits/progress", {});
    devnet.node.mine(1);
    await ok(alice, "POST", "/api/v1/exits/progress", {});
    const [live] = await liveExits(alice);
    expect(live!.state.type).to.equal("processing");
    const txs = live!.state.transactions as { txid: string; status: { type: string } }[];
    expect(txs[0]!.status.type).to.equal("confirmed");
    expect(txs.at(-1)!.status.type).to.be.oneOf(["awaiting-input-confirmation", "verify-inputs"]);

    expect(await ok(alice, "POST", `/api/v1/exits/cancel/${received}`)).to.deep.equal({ message: "Exit canceled successfully" });
    expect(await ok(alice, "POST", `/api/v1/exits/cancel/${received}`), "a second cancel is a no-op").to.deep.equal({ message: "Exit canceled successfully" });
    expect(await liveExits(alice)).to.deep.equal([]);
    const finished = await ok<ExitStatus[]>(alice, "GET", "/api/v1/exits/status/finished?history=true");
    expect(finished.map((e) => [e.vtxo_id, e.state.type])).to.deep.equal([[received, "canceled"]]);
    const kinds = finished[0]!.history!.map((h) => h.type);
    expect(kinds[0]).to.equal("start");
    expect(kinds.slice(1).every((k) => k === "processing")).to.equal(true);
    expect(await vtxo(received)).to.deep.include({ state: { type: "spendable" } });
    expect(await balance()).to.deep.include({ spendable_sat: spendable, pending_exit_sat: 0 });
    const [m] = await exitMovements();
    expect(m!.status).to.equal("canceled");
    expect(m!.time.completed_at).to.be.a("string");
  });

  it("restarts the canceled exit and carries it to claimed", async () => {
    await ok(alice, "POST", "/api/v1/exits/start/vtxos", { vtxos: [received] });
    expect((await liveExits(alice)).map((e) => [e.vtxo_id, e.state.type])).to.deep.equal([[received, "start"]]);
    await progressUntilClaimable(devnet, [alice]);
    const { address } = await ok<{ address: string }>(alice, "POST", "/api/v1/onchain/addresses/next");
    await ok(alice, "POST", "/api/v1/exits/claim/vtxos", { destination: address, vtxos: [received] });
    devnet.node.mine(1);
    await ok(alice, "POST", "/api/v1/exits/progress", {});
    const finished = await ok<ExitStatus[]>(alice, "GET", "/api/v1/exits/status/finished");
    expect(finished.map((e) => [e.vtxo_id, e.state.type])).to.deep.equal([[received, "claimed"]]);
    expect((await exitMovements()).map((m) => m.status).sort()).to.deep.equal(["canceled", "successful"]);
  });

  it("refuses to cancel once the final exit tx is broadcast, with barkd's text", async () => {
    await ok(alice, "POST", "/api/v1/exits/start/vtxos", { vtxos: [boardA] });
    const p = await ok<ExitProgress>(alice, "POST", "/api/v1/exits/progress", {});
    expect(p.exits.find((e) => e.vtxo_id === boardA)!.state.type).to.equal("processing");
    const refused = await alice.api("POST", `/api/v1/exits/cancel/${boardA}`);
    expect(refused.status).to.equal(400);
    expect(refused.json).to.deep.equal({ message: "Exit can no longer be canceled (state: processing)" });
    devnet.node.mine(1);
    await ok(alice, "POST", "/api/v1/exits/progress", {});
    const later = await alice.api("POST", `/api/v1/exits/cancel/${boardA}`);
    expect(later.json).to.deep.equal({ message: "Exit can no longer be canceled (state: awaiting-delta)" });
    expect((await liveExits(alice)).map((e) => e.state.type)).to.deep.equal(["awaiting-delta"]);
  });

  it("refuses to cancel when the chain already has the final exit tx, though the exit has not broadcast it", async () => {
    await ok(alice, "POST", "/api/v1/exits/start/vtxos", { vtxos: [boardB] });
    const status = await ok<ExitStatus>(alice, "GET", `/api/v1/exits/status/vtxo/${boardB}?transactions=true`);
    expect(status.state.type).to.equal("start");
    const [pkg] = status.transactions!;
    expect(pkg!.child).to.equal(null);
    // someone else got the board's exit tx mined
    devnet.node.mineTransactions([pkg!.exit.tx]);
    const refused = await alice.api("POST", `/api/v1/exits/cancel/${boardB}`);
    expect(refused.status).to.equal(400);
    expect(refused.json).to.deep.equal({ message: `Exit can no longer be canceled (final exit tx ${pkg!.exit.txid} has already been broadcast)` });
    await ok(alice, "POST", "/api/v1/exits/progress", {});
    const after = await ok<ExitStatus>(alice, "GET", `/api/v1/exits/status/vtxo/${boardB}`);
    expect(after.state.type).to.equal("awaiting-delta");
  });

  it("answers bad input on every route with barkd's codes and texts", async () => {
    const bad = "not-a-vtxo";
    const unknown = `${"ab".repeat(32)}:0`;
    const expectAnswer = async (method: string, path: string, body: unknown, status: number, json?: unknown) => {
      const r = await alice.api(method, path, body === undefined ? {} : { body });
      expect(r.status, `${method} ${path}: ${r.text}`).to.equal(status);
      if (json !== undefined) expect(r.json, `${method} ${path}`).to.deep.equal(json);
      return r;
    };
    const invalidId = async (method: string, path: string, body?: unknown) => {
      const r = await expectAnswer(method, path, body, 400);
      expect((r.json as { message: string }).message).to.match(/^bad request: Invalid VTXO ID: /);
    };
    await expectAnswer("POST", "/api/v1/exits/start/vtxos", { vtxos: [] }, 400, { message: "No VTXO IDs provided" });
    await invalidId("POST", "/api/v1/exits/start/vtxos", { vtxos: [bad] });
    await expectAnswer("POST", "/api/v1/exits/start/vtxos", { vtxos: [unknown] }, 404, { resources: [unknown], message: `not found [resources=${unknown}]: VTXO not found` });
    await invalidId("GET", `/api/v1/exits/status/vtxo/${bad}`);
    await expectAnswer("GET", `/api/v1/exits/status/vtxo/${unknown}`, undefined, 404, { resources: [unknown], message: "VTXO not found" });
    await expectAnswer("GET", `/api/v1/exits/status/${unknown}`, undefined, 404, { resources: [unknown], message: "VTXO not found" });
    const plain = await alice.api("GET", "/api/v1/exits/status/all?history=maybe");
    expect(plain.status).to.equal(400);
    expect(plain.headers.get("content-type")).to.match(/^text\/plain/);
    await invalidId("POST", `/api/v1/exits/cancel/${bad}`);
    await expectAnswer("POST", `/api/v1/exits/cancel/${unknown}`, undefined, 404, { resources: [unknown], message: "No exit found for VTXO" });
    const { address } = await ok<{ address: string }>(alice, "POST", "/api/v1/onchain/addresses/next");
    const badAddress = await expectAnswer("POST", "/api/v1/exits/claim/all", { destination: "bc1-nope" }, 400);
    expect((badAddress.json as { message: string }).message).to.match(/Invalid destination address/);
    const mainnet = await expectAnswer("POST", "/api/v1/exits/claim/all", { destination: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" }, 400);
    expect((mainnet.json as { message: string }).message).to.match(/not valid for configured network/);
    await invalidId("POST", "/api/v1/exits/claim/vtxos", { destination: address, vtxos: [bad] });
    await expectAnswer("POST", "/api/v1/exits/claim/vtxos", { destination: address, vtxos: [unknown] }, 404);
    await expectAnswer("POST", "/api/v1/exits/claim/vtxos", { destination: address, vtxos: [boardA] }, 400, { message: `Unspendable VTXO provided: ${boardA}` });
    const none = await expectAnswer("POST", "/api/v1/exits/claim/vtxos", { destination: address, vtxos: [] }, 500);
    expect((none.json as { message: string }).message).to.equal("Failed to drain exits: Claim Missing Inputs: No inputs given to claim");
    await expectAnswer("POST", "/api/v1/exits/claim/all", { destination: address }, 500, { message: "Failed to drain exits: Claim Missing Inputs: No inputs given to claim" });
    await expectAnswer("GET", `/api/v1/exits/fee?vtxo_ids=${bad}`, undefined, 400);
    await expectAnswer("GET", `/api/v1/exits/fee?vtxo_ids=${unknown}`, undefined, 400, { message: `Provided VTXO ${unknown} is unknown` });
    await expectAnswer("GET", `/api/v1/exits/fee?vtxo_ids=${received}`, undefined, 400, { message: `Provided VTXO ${received} has already exited` });
    await expectAnswer("GET", "/api/v1/exits/fee?destination=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", undefined, 400);
    await expectAnswer("GET", "/api/v1/exits/fee?fee_rate_sat_per_vb=100000000000000000", undefined, 400, { message: "bad request: Fee rate too large" });
    await expectAnswer("GET", "/api/v1/exits/fee?fee_rate_sat_per_vb=abc", undefined, 400);
    // progress needs a JSON body ({} allowed)
    const noBody = await alice.api("POST", "/api/v1/exits/progress");
    expect(noBody.status).to.be.oneOf([400, 415]);
    // the deprecated listing redirects, without the query, and still wants the token
    const redirect = await fetch(`${alice.base}/api/v1/exits/status?history=true`, { redirect: "manual", headers: { authorization: `Bearer ${alice.token}` } });
    expect(redirect.status).to.equal(308);
    expect(redirect.headers.get("location")).to.equal("/api/v1/exits/status/all");
    expect(await redirect.text()).to.equal("");
    expect((await fetch(`${alice.base}/api/v1/exits/status`, { redirect: "manual" })).status).to.equal(401);
  });
});
