import { expect } from "chai";
import { cleanup, daemonDatabase, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, arkDaemonConfig, boardToDaemon, createBody, ok, spendable, startArkDevnet, until,
  type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";
import { findSamples as find, parseExposition } from "./prometheus-text.js";

describe("health and metrics (/healthz, /readyz, /metrics)", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;
  let fingerprint: string;

  before(async () => {
    devnet = await startArkDevnet("health-metrics-e2e");
    alice = await startDaemon({ config: arkDaemonConfig() });
    bob = await startDaemon({ config: arkDaemonConfig() });
    fingerprint = (await ok<{ fingerprint: string }>(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC))).fingerprint;
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  it("/healthz and /readyz answer without a token, 200 with every check named, and reveal no fingerprint, address or token", async () => {
    const health = await alice.api("GET", "/healthz", { token: null });
    expect(health.status).to.equal(200);
    expect(health.json).to.deep.equal({ status: "ok" });
    const ready = await alice.api("GET", "/readyz", { token: null });
    expect(ready.status).to.equal(200);
    const body = ready.json as { status: string; checks: Record<string, { ok: boolean; detail?: string }> };
    expect(body.status).to.equal("ready");
    expect(Object.keys(body.checks).sort()).to.deep.equal(["ark_server", "chain", "database", "wallet"]);
    for (const c of Object.values(body.checks)) expect(c.ok).to.equal(true);
    expect(body.checks.ark_server!.detail).to.match(/^connected, protocol version \d+$/);
    expect(body.checks.chain!.detail).to.match(/^tip at height \d+$/);
    for (const secret of [fingerprint, alice.token!, devnet.arkUrl, devnet.esploraUrl]) expect(ready.text).not.to.contain(secret);
  });

  it("/metrics needs the owner token; it counts a payment by rail and outcome, requests by route template, VTXOs by state, chain lag, the Ark connection, the time of each phase of the payment's action and the syncs of the database's log", async () => {
    expect((await alice.api("GET", "/metrics", { token: null })).status).to.equal(401);
    const hex = await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 50_000n);
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 20_000 });
    await until("Bob received", async () => ((await spendable(bob)) === 20_000 ? true : undefined), 30_000);
    const sent = (await ok<Movement[]>(alice, "GET", "/api/v1/history")).filter((m) => m.subsystem.kind === "send");
    expect(sent).to.have.length(1);
    expect(sent[0]!.status).to.equal("successful");
    const vtxos = await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos");
    await ok(alice, "GET", `/api/v1/wallet/vtxos/${vtxos[0]!.id}`);

    const res = await alice.api("GET", "/metrics");
    expect(res.status).to.equal(200);
    expect(res.headers.get("content-type")).to.contain("text/plain");
    const samples = parseExposition(res.text);
    const payments = find(samples, "tender_payments_total", { rail: sent[0]!.subsystem.name, kind: "send", outcome: "successful" });
    expect(payments.map((s) => s.value)).to.deep.equal([1]);
    expect(find(samples, "tender_payments_total", { outcome: "failed" })).to.deep.equal([]);
    // requests are labelled by route template, never by raw path
    expect(find(samples, "tender_http_requests_total", { method: "POST", route: "/api/v1/wallet/send", status: "200" })[0]!.value).to.equal(1);
    expect(find(samples, "tender_http_requests_total", { method: "GET", route: "/api/v1/wallet/vtxos/{id}", status: "200" })[0]!.value).to.equal(1);
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes(vtxos[0]!.id)))).to.equal(false);
    expect(find(samples, "tender_http_request_duration_seconds_count", { method: "POST", route: "/api/v1/wallet/send" })[0]!.value).to.equal(1);
    // VTXOs by state: what the wallet lists
    const held = vtxos.filter((v) => v.state.type === "spendable");
    expect(find(samples, "tender_vtxos", { state: "spendable" })[0]!.value).to.equal(held.length);
    expect(find(samples, "tender_vtxo_amount_sat", { state: "spendable" })[0]!.value).to.equal(held.reduce((a, v) => a + v.amount_sat, 0));
    expect(find(samples, "tender_vtxo_amount_sat", { state: "spendable" })[0]!.value).to.equal(await spendable(alice));
    expect(find(samples, "tender_chain_tip_height")[0]!.value).to.equal(devnet.node.tipHeight());
    expect(find(samples, "tender_chain_lag_seconds")[0]!.value).to.be.at.least(0);
    expect(find(samples, "tender_ark_server_connected")[0]!.value).to.equal(1);
    expect(find(samples, "tender_ark_protocol_version")[0]!.value).to.be.greaterThan(0);
    expect(find(samples, "tender_wallet_state", { state: "unlocked" })[0]!.value).to.equal(1);
    // the native addon has a prebuild for this platform (linux-x64): the wasm fallback only when asked for
    expect(find(samples, "tender_secp256k1_info").map((s) => s.labels)).to.deep.equal([{ implementation: process.env.TENDER_SECP256K1 === "wasm" ? "wasm" : "native" }]);
    // every unfinished action is counted; after the payment none is left
    expect(find(samples, "tender_action_queue_depth").reduce((a, s) => a + s.value, 0)).to.equal(0);
    // where the payment's time went, phase by phase: its first commit, each step, each step's commit
    const phases = find(samples, "tender_action_phase_duration_seconds_count", { kind: "ark.arkoor-send" }).map((s) => `${s.labels.phase}=${s.value}`).sort();
    expect(phases).to.deep.equal(["begin=1", "cosign=1", "deliver=1", "record:cosign=1", "record:deliver=1"]);
    const cosignSeconds = find(samples, "tender_action_phase_duration_seconds_sum", { kind: "ark.arkoor-send", phase: "cosign" })[0]!.value;
    expect(cosignSeconds).to.be.greaterThan(0).and.below(find(samples, "tender_http_request_duration_seconds_sum", { method: "POST", route: "/api/v1/wallet/send" })[0]!.value);
    // the disk's share: on SQLite every durable commit waited for a sync of the wallet database's
    // log (the send made three); PostgreSQL's commits are durable when they return (none to time)
    const logSyncs = find(samples, "tender_database_log_sync_duration_seconds_count")[0]!.value;
    expect(find(samples, "tender_database_log_sync_duration_seconds_bucket", { le: "+Inf" })[0]!.value).to.equal(logSyncs);
    if (daemonDatabase(alice.datadir).dialect === "sqlite") {
      expect(logSyncs).to.be.at.least(3);
      expect(find(samples, "tender_database_log_sync_duration_seconds_sum")[0]!.value).to.be.greaterThan(0);
    } else {
      expect(logSyncs).to.equal(0);
    }
  });

  it("with --metrics-public /metrics answers without a token; /readyz still says nothing sensitive", async () => {
    const open = await startDaemon({ args: ["--metrics-public"], config: arkDaemonConfig() });
    try {
      const res = await open.api("GET", "/metrics", { token: null });
      expect(res.status).to.equal(200);
      expect(find(parseExposition(res.text), "tender_wallet_state", { state: "none" })[0]!.value).to.equal(1);
      const ready = await open.api("GET", "/readyz", { token: null });
      expect(ready.status).to.equal(200);
      expect((ready.json as { checks: Record<string, { detail?: string }> }).checks.wallet!.detail).to.equal("no wallet loaded");
    } finally {
      await open.stop();
      cleanup(open.datadir);
    }
  });

  it("with the Ark server stopped, /readyz answers 503 naming the ark_server check while /healthz stays 200, and the metric shows the connection down", async () => {
    const stopped = await fetch(`${devnet.arkControlUrl}/stop`, { method: "POST" });
    expect(stopped.ok).to.equal(true);
    const ready = await until("readyz fails", async () => {
      const r = await alice.api("GET", "/readyz", { token: null });
      return r.status === 503 ? r : undefined;
    }, 30_000);
    const body = ready.json as { status: string; checks: Record<string, { ok: boolean; detail?: string }> };
    expect(body.status).to.equal("not_ready");
    expect(body.checks.ark_server).to.deep.equal({ ok: false, detail: "not connected" });
    expect(body.checks.database!.ok).to.equal(true);
    expect(body.checks.chain!.ok).to.equal(true);
    expect((await alice.api("GET", "/healthz", { token: null })).status).to.equal(200);
    const samples = parseExposition((await alice.api("GET", "/metrics")).text);
    expect(find(samples, "tender_ark_server_connected")[0]!.value).to.equal(0);
  });
});
