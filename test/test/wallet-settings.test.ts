import { expect } from "chai";
import { createServer, type Server } from "node:http";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { startDevnet, type Devnet } from "@tender/devnet";
import { cleanup, runTenderd, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";

/** The on-chain rail without developer overrides: the wallet's own settings drive it. */
const CONFIG = {
  plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-chain", "@tender/plugin-fees", "@tender/plugin-onchain"],
  pluginConfig: { chain: { retryAttempts: 2 } },
};

interface Rates { fast_sat_per_vb: number; regular_sat_per_vb: number; slow_sat_per_vb: number }

/** An Esplora in front of the devnet's that has no fee estimates (`GET /fee-estimates` answers `{}`). */
async function esploraWithoutEstimates(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method === "GET" && req.url === "/fee-estimates") {
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const r = await fetch(upstream + req.url, { method: req.method, headers: { "content-type": req.headers["content-type"] ?? "text/plain" }, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
      res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "text/plain" }).end(Buffer.from(await r.arrayBuffer()));
    })().catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describe("barkd's wallet settings in config.toml and TENDER_<KEY> take effect", function () {
  this.timeout(90_000);
  let devnet: Devnet;
  let noEstimates: { url: string; close(): Promise<void> };
  let d: Daemon | undefined;
  let datadir: string;

  before(async () => {
    devnet = await startDevnet({ seed: "wallet-settings-e2e" });
    noEstimates = await esploraWithoutEstimates(devnet.esploraUrl);
  });
  after(async () => { await noEstimates.close(); await devnet.stop(); });
  beforeEach(() => { datadir = tempDatadir(); });
  afterEach(async () => { await d?.stop(); d = undefined; cleanup(datadir); });

  /** Writes `config.toml`, starts the daemon on it and creates the wallet from the file. */
  const createFromFile = async (toml: string, env: NodeJS.ProcessEnv = {}) => {
    writeFileSync(join(datadir, "config.toml"), toml);
    d = await startDaemon({ datadir, config: CONFIG, env });
    const r = await d.api("POST", "/api/v1/wallet/create", { body: { network: "regtest" } });
    expect(r.status, r.text).to.equal(200);
  };
  const rates = async () => {
    const r = await d!.api("GET", "/api/v1/fees/onchain");
    expect(r.status, r.text).to.equal(200);
    return r.json as Rates;
  };

  it("daemon_sync_interval_secs: the on-chain wallet sees a payment without a sync call", async () => {
    await createFromFile(`server_address = "http://127.0.0.1:35035"\nesplora_address = "${devnet.esploraUrl}"\ndaemon_sync_interval_secs = 1\n`);
    const { address } = (await d!.api("POST", "/api/v1/onchain/addresses/next")).json as { address: string };
    // pay only after the syncs that come with start-up and wallet load, so only a periodic one can see it
    await new Promise((r) => setTimeout(r, 2_000));
    devnet.node.faucet(address, 123_456n);
    const deadline = Date.now() + 8_000;
    let total = 0;
    while (Date.now() < deadline && total === 0) {
      await new Promise((r) => setTimeout(r, 250));
      total = ((await d!.api("GET", "/api/v1/onchain/balance")).json as { total_sat: number }).total_sat;
    }
    expect(total, "balance without POST /onchain/sync").to.equal(123_456);
  });

  it("fallback_fee_rate (sat/kWu) is the rate of GET /fees/onchain when the chain source has no estimate; TENDER_FALLBACK_FEE_RATE overrides it", async () => {
    const toml = `server_address = "http://127.0.0.1:35035"\nesplora_address = "${noEstimates.url}"\nfallback_fee_rate = 1250\n`;
    await createFromFile(toml);
    expect(await rates()).to.deep.equal({ fast_sat_per_vb: 5, regular_sat_per_vb: 5, slow_sat_per_vb: 5 });
    await d!.stop();
    // the same wallet, restarted with the variable: the environment wins over the file, which is left as it was
    d = await startDaemon({ datadir, config: CONFIG, env: { TENDER_FALLBACK_FEE_RATE: "2500" } });
    expect(await rates()).to.deep.equal({ fast_sat_per_vb: 10, regular_sat_per_vb: 10, slow_sat_per_vb: 10 });
    expect(d.stderr()).to.contain("fallback_fee_rate set by TENDER_FALLBACK_FEE_RATE");
    expect(readFileSync(join(datadir, "config.toml"), "utf8")).to.equal(toml);
  });

  it("without the key, the network default applies (1 sat/vB off mainnet)", async () => {
    await createFromFile(`server_address = "http://127.0.0.1:35035"\nesplora_address = "${noEstimates.url}"\n`);
    expect(await rates()).to.deep.equal({ fast_sat_per_vb: 1, regular_sat_per_vb: 1, slow_sat_per_vb: 1 });
  });

  it("accepts and keeps keys of rails not built yet; refuses bad values at creation and at start-up, naming the key", async () => {
    const base = `server_address = "http://127.0.0.1:35035"\nesplora_address = "${devnet.esploraUrl}"\n`;
    const railKeys = "vtxo_refresh_expiry_threshold = 24\nvtxo_exit_margin = 12\nhtlc_recv_claim_delta = 18\nlightning_receive_claim_retries = 5\n" +
      "round_tx_required_confirmations = 6\noffboard_required_confirmations = 0\noffboard_lost_tx_grace_period_secs = 3600\n" +
      "bitcoind_zmq_address = \"tcp://127.0.0.1:28332\"\nuser_agent = \"myapp/1.0\"\n";

    // a bad value: nothing is created
    writeFileSync(join(datadir, "config.toml"), base + "change_vtxo_split_factor = 4\n");
    d = await startDaemon({ datadir, config: CONFIG });
    const bad = await d.api("POST", "/api/v1/wallet/create", { body: { network: "regtest" } });
    expect(bad.status).to.equal(500);
    expect(bad.json).to.deep.equal({ message: "Error while creating wallet: change_vtxo_split_factor must be 1, 2 or 3, got 4" });
    expect(readdirSync(datadir)).to.not.include("mnemonic");
    await d.stop();

    // rail keys are accepted, and the file is left as written
    writeFileSync(join(datadir, "config.toml"), base + railKeys);
    d = await startDaemon({ datadir, config: CONFIG });
    expect((await d.api("POST", "/api/v1/wallet/create", { body: { network: "regtest" } })).status).to.equal(200);
    await d.stop();
    d = undefined;
    expect(readFileSync(join(datadir, "config.toml"), "utf8")).to.equal(base + railKeys);

    // a bad value in the environment or the file of an existing wallet: the daemon does not start
    const args = ["--datadir", datadir, "--port", "0", "--config", datadir + ".tenderd.json"];
    let r = await runTenderd(args, { TENDER_TEST_ANY_PORT: "1", TENDER_DAEMON_SYNC_INTERVAL_SECS: "soon" });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.contain(`error loading wallet configuration ${join(datadir, "config.toml")}: TENDER_DAEMON_SYNC_INTERVAL_SECS: ` +
      `daemon_sync_interval_secs = "soon" is invalid: expected a whole number of seconds from 1 to 18446744073709551615`);
    writeFileSync(join(datadir, "config.toml"), base + "daemon_manual_sync = \"sometimes\"\n");
    r = await runTenderd(args, { TENDER_TEST_ANY_PORT: "1" });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.contain(`config.toml: daemon_manual_sync = "sometimes" is invalid: expected true or false`);
  });
});
