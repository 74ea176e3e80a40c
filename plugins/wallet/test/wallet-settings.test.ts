import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WalletService } from "@tender/core";
import {
  WALLET_SETTING_KEYS, WalletConfigError, formatWalletConfig, parseWalletConfig, readWalletSettings, satPerVbCeil, unknownWalletConfigKeys,
  walletSettingDefaults, walletSettingEnvName, walletSettingsFromEnv, walletSyncTask, SYNC_TASK_RECHECK_MS, SYNC_TASK_TICK_MS, type WalletSettings,
} from "../src/index.js";
import { resolveCreateConfig } from "../src/lifecycle/create-config.js";

const ESPLORA = { esplora_address: "http://127.0.0.1:3002" };
const read = (toml: string, env: Record<string, string> = {}, network = "regtest") => readWalletSettings(parseWalletConfig(toml), network, env);
const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).to.be.instanceOf(WalletConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a refusal");
};

describe("wallet settings (barkd's config.toml keys)", () => {
  it("knows every key barkd reads, each overridable by TENDER_<KEY>", () => {
    expect(WALLET_SETTING_KEYS).to.deep.equal([
      "server_address", "server_access_token", "user_agent", "esplora_address", "bitcoind_address", "bitcoind_cookiefile", "bitcoind_user",
      "bitcoind_pass", "bitcoind_zmq_address", "socks5_proxy", "vtxo_refresh_expiry_threshold", "vtxo_exit_margin", "htlc_recv_claim_delta",
      "lightning_receive_claim_retries", "fallback_fee_rate", "round_tx_required_confirmations", "offboard_required_confirmations",
      "offboard_lost_tx_grace_period_secs", "daemon_sync_interval_secs", "change_vtxo_split_factor", "daemon_manual_sync",
    ]);
    expect(walletSettingEnvName("daemon_sync_interval_secs")).to.equal("TENDER_DAEMON_SYNC_INTERVAL_SECS");
  });

  it("fills barkd's network defaults: mainnet, and every other network", () => {
    const common = {
      server_address: "http://127.0.0.1:3535", vtxo_exit_margin: 12, htlc_recv_claim_delta: 18, lightning_receive_claim_retries: 5,
      round_tx_required_confirmations: 1, offboard_lost_tx_grace_period_secs: 3600, daemon_sync_interval_secs: 60, change_vtxo_split_factor: 2,
      daemon_manual_sync: false,
    };
    expect(read("")).to.deep.equal(walletSettingDefaults("regtest"));
    expect(read("", {}, "mainnet")).to.deep.equal({
      ...common, vtxo_refresh_expiry_threshold: 144, fallback_fee_rate: 500, offboard_required_confirmations: 2,
    });
    for (const network of ["signet", "mutinynet", "regtest"]) {
      expect(read("", {}, network)).to.deep.equal({
        ...common, vtxo_refresh_expiry_threshold: 12, fallback_fee_rate: 250, offboard_required_confirmations: 0,
      });
    }
    expect(satPerVbCeil(250)).to.equal(1);
    expect(satPerVbCeil(500)).to.equal(2);
    expect(satPerVbCeil(251)).to.equal(2);
  });

  it("takes the file's values over the defaults, in barkd's types (strings spelling a number or boolean too)", () => {
    const s = read(`
server_address = "https://ark.example"
esplora_address = "https://esplora.example"
bitcoind_zmq_address = "tcp://127.0.0.1:28332"
user_agent = "myapp/1.0"
vtxo_refresh_expiry_threshold = 24
vtxo_exit_margin = 13
htlc_recv_claim_delta = 19
lightning_receive_claim_retries = 6
fallback_fee_rate = 1250
round_tx_required_confirmations = 6
offboard_required_confirmations = 3
offboard_lost_tx_grace_period_secs = 7200
daemon_sync_interval_secs = 3
change_vtxo_split_factor = 3
daemon_manual_sync = "true"
`, {}, "mainnet");
    expect(s).to.deep.equal({
      server_address: "https://ark.example", esplora_address: "https://esplora.example", bitcoind_zmq_address: "tcp://127.0.0.1:28332",
      user_agent: "myapp/1.0", vtxo_refresh_expiry_threshold: 24, vtxo_exit_margin: 13, htlc_recv_claim_delta: 19,
      lightning_receive_claim_retries: 6, fallback_fee_rate: 1250, round_tx_required_confirmations: 6, offboard_required_confirmations: 3,
      offboard_lost_tx_grace_period_secs: 7200, daemon_sync_interval_secs: 3, change_vtxo_split_factor: 3, daemon_manual_sync: true,
    });
    expect(read(`daemon_sync_interval_secs = "5"\ndaemon_manual_sync = false`)).to.include({ daemon_sync_interval_secs: 5, daemon_manual_sync: false });
    expect(read(`offboard_lost_tx_grace_period_secs = 18446744073709551615`).offboard_lost_tx_grace_period_secs).to.equal(2 ** 64);
  });

  it("takes TENDER_<KEY> over the file, and the file over the defaults; an empty variable counts as unset", () => {
    const toml = `daemon_sync_interval_secs = 5\nfallback_fee_rate = 1000\nesplora_address = "http://file"\nchange_vtxo_split_factor = 3`;
    const env = {
      TENDER_DAEMON_SYNC_INTERVAL_SECS: "7", TENDER_ESPLORA_ADDRESS: "http://env", TENDER_DAEMON_MANUAL_SYNC: "yes",
      TENDER_CHANGE_VTXO_SPLIT_FACTOR: "", TENDER_VTXO_EXIT_MARGIN: "20", UNRELATED: "1",
    };
    const s = read(toml, env);
    expect(s).to.include({
      daemon_sync_interval_secs: 7, esplora_address: "http://env", daemon_manual_sync: true, vtxo_exit_margin: 20, // env
      fallback_fee_rate: 1000, change_vtxo_split_factor: 3, // file
      htlc_recv_claim_delta: 18, // default
    });
    expect(walletSettingsFromEnv(env)).to.deep.equal(["esplora_address", "vtxo_exit_margin", "daemon_sync_interval_secs", "daemon_manual_sync"]);
    for (const [word, value] of [["on", true], ["1", true], ["TRUE", true], ["off", false], ["no", false], ["0", false]] as const) {
      expect(read("daemon_manual_sync = true", { TENDER_DAEMON_MANUAL_SYNC: word }).daemon_manual_sync, word).to.equal(value);
    }
  });

  it("refuses malformed and out-of-range values, naming the key, where it came from and what is expected", () => {
    expect(refusal(() => read("daemon_sync_interval_secs = -5"))).to.equal(
      "config.toml: daemon_sync_interval_secs = -5 is invalid: expected a whole number of seconds from 1 to 18446744073709551615");
    expect(refusal(() => read("daemon_sync_interval_secs = 0"))).to.contain("daemon_sync_interval_secs = 0 is invalid");
    expect(refusal(() => read("daemon_sync_interval_secs = 1.5"))).to.contain("daemon_sync_interval_secs = 1.5 is invalid");
    expect(refusal(() => read(`fallback_fee_rate = "fast"`))).to.equal(
      `config.toml: fallback_fee_rate = "fast" is invalid: expected a whole number of sat/kWu from 0 to 18446744073709551615`);
    expect(refusal(() => read("", { TENDER_FALLBACK_FEE_RATE: "2.5" }))).to.equal(
      `TENDER_FALLBACK_FEE_RATE: fallback_fee_rate = "2.5" is invalid: expected a whole number of sat/kWu from 0 to 18446744073709551615`);
    expect(refusal(() => read("lightning_receive_claim_retries = 256"))).to.contain("from 0 to 255");
    expect(refusal(() => read("vtxo_exit_margin = 65536"))).to.contain("from 0 to 65535");
    expect(refusal(() => read("vtxo_refresh_expiry_threshold = 4294967296"))).to.contain("from 0 to 4294967295");
    expect(refusal(() => read("daemon_manual_sync = \"maybe\""))).to.equal(`config.toml: daemon_manual_sync = "maybe" is invalid: expected true or false`);
    expect(refusal(() => read("server_address = [1]"))).to.contain("server_address = [1] is invalid: expected a string");
    // barkd's rules when it opens a wallet
    for (const n of [0, 4]) expect(refusal(() => read(`change_vtxo_split_factor = ${n}`))).to.equal(`change_vtxo_split_factor must be 1, 2 or 3, got ${n}`);
    expect(refusal(() => read("", { TENDER_CHANGE_VTXO_SPLIT_FACTOR: "7" }))).to.equal("change_vtxo_split_factor must be 1, 2 or 3, got 7");
    expect(refusal(() => read(`socks5_proxy = "socks5://127.0.0.1:9050"`))).to.equal("socks5-proxy must use socks5h");
    expect(refusal(() => read(`socks5_proxy = "socks5h://127.0.0.1:9050"`))).to.contain("tender cannot route traffic through a SOCKS5 proxy yet");
    // secrets never appear
    expect(refusal(() => read("bitcoind_pass = [\"hunter2\"]"))).to.equal("config.toml: bitcoind_pass = (hidden) is invalid: expected a string");
  });

  it("keeps keys of rails not built yet and keys barkd does not know when the file is written again", () => {
    const toml = `server_address = "http://ark"\nvtxo_refresh_expiry_threshold = 24\nhtlc_recv_claim_delta = 20\n` +
      `offboard_lost_tx_grace_period_secs = 18446744073709551615\nmy_note = "kept"\n`;
    const file = parseWalletConfig(toml);
    expect(unknownWalletConfigKeys(file)).to.deep.equal(["my_note"]);
    expect(parseWalletConfig(formatWalletConfig(file))).to.deep.equal(file);
    expect(formatWalletConfig(file)).to.contain("offboard_lost_tx_grace_period_secs = 18446744073709551615").and.contain(`my_note = "kept"`);
    expect(readWalletSettings(file, "regtest", {})).to.include({ vtxo_refresh_expiry_threshold: 24, htlc_recv_claim_delta: 20 });
  });

  describe("at wallet creation", () => {
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(join(tmpdir(), "tender-settings-")); });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("reads an existing config.toml with the environment and the request network's defaults; writes nothing", () => {
      const path = join(dir, "config.toml");
      writeFileSync(path, `esplora_address = "http://e"\ndaemon_sync_interval_secs = 2\nround_tx_required_confirmations = 6\n`);
      const r = resolveCreateConfig({ network: "mainnet" }, path, { TENDER_DAEMON_SYNC_INTERVAL_SECS: "9" });
      expect(r.write).to.equal(false);
      expect(r.file).to.deep.equal({ esplora_address: "http://e", daemon_sync_interval_secs: 2, round_tx_required_confirmations: 6 });
      expect(r.settings).to.include({
        server_address: "http://127.0.0.1:3535", daemon_sync_interval_secs: 9, round_tx_required_confirmations: 6, fallback_fee_rate: 500,
      });
    });

    it("writes only the request's fields; the settings add the environment's overrides", () => {
      const r = resolveCreateConfig({ network: "regtest", ark_server: "http://ark", chain_source: { esplora: { url: "http://e" } } },
        join(dir, "config.toml"), { TENDER_FALLBACK_FEE_RATE: "1000" });
      expect(r.write).to.equal(true);
      expect(r.file).to.deep.equal({ esplora_address: "http://e", server_address: "http://ark" });
      expect(r.settings).to.include({ fallback_fee_rate: 1000, server_address: "http://ark" });
    });

    it("refuses a config.toml with a bad value, with barkd's message", () => {
      const path = join(dir, "config.toml");
      writeFileSync(path, `esplora_address = "http://e"\nchange_vtxo_split_factor = 4\n`);
      expect(refusal(() => resolveCreateConfig({ network: "regtest" }, path, {}))).to.equal("change_vtxo_split_factor must be 1, 2 or 3, got 4");
      expect(refusal(() => resolveCreateConfig({ network: "regtest", ark_server: "http://ark", chain_source: { esplora: { url: "http://e" } } },
        join(dir, "other.toml"), { TENDER_DAEMON_MANUAL_SYNC: "sometimes" }))).to.contain("TENDER_DAEMON_MANUAL_SYNC");
    });
  });
});

describe("walletSyncTask (background work every daemon_sync_interval_secs)", () => {
  const realNow = Date.now;
  let now = 1_000_000;
  beforeEach(() => { Date.now = () => now; });
  afterEach(() => { Date.now = realNow; });
  const handle = (s: { current: WalletSettings | undefined }): WalletService<WalletSettings> => ({ get: async () => s.current!, get current() { return s.current; } });
  const signal = new AbortController().signal;

  it("runs at the wallet's own interval, from its load, and not in manual-sync mode or without a wallet", async () => {
    const loaded: { current: WalletSettings | undefined } = { current: undefined };
    let runs = 0;
    const onLoad = walletSyncTask({ name: "t.a", settings: handle(loaded), runOnLoad: true, run: async () => { runs++; } });
    let laterRuns = 0;
    const later = walletSyncTask({ name: "t.b", settings: handle(loaded), run: async () => { laterRuns++; } });
    const tick = async (ms: number) => { now += ms; await onLoad.run(signal); await later.run(signal); };
    expect(onLoad.intervalMs).to.be.at.most(1_000);

    await tick(0);
    expect([runs, laterRuns]).to.deep.equal([0, 0]);
    loaded.current = { ...walletSettingDefaults("regtest"), daemon_sync_interval_secs: 3 };
    await tick(0);
    expect([runs, laterRuns]).to.deep.equal([1, 0]); // at load / not yet
    await tick(2_999);
    expect([runs, laterRuns]).to.deep.equal([1, 0]);
    await tick(1);
    expect([runs, laterRuns]).to.deep.equal([2, 1]);
    await tick(3_000);
    expect([runs, laterRuns]).to.deep.equal([3, 2]);

    // another wallet, with another interval, in manual-sync mode: nothing runs
    loaded.current = { ...walletSettingDefaults("regtest"), daemon_sync_interval_secs: 1, daemon_manual_sync: true };
    await tick(10_000);
    expect([runs, laterRuns]).to.deep.equal([3, 2]);
    loaded.current = undefined;
    await tick(10_000);
    expect([runs, laterRuns]).to.deep.equal([3, 2]);
  });

  it("sleeps until its next run is due (at most SYNC_TASK_RECHECK_MS), and ticks every SYNC_TASK_TICK_MS while no wallet is loaded", async () => {
    const loaded: { current: WalletSettings | undefined } = { current: undefined };
    let runs = 0;
    const t = walletSyncTask({ name: "t.d", settings: handle(loaded), run: async () => { runs++; } });
    const after = async (ms: number) => { now += ms; await t.run(signal); return t.nextDelayMs!(); };
    expect(await after(0)).to.equal(SYNC_TASK_TICK_MS); // no wallet
    loaded.current = { ...walletSettingDefaults("regtest"), daemon_sync_interval_secs: 60 };
    expect(t.nextDelayMs!()).to.equal(SYNC_TASK_TICK_MS); // a wallet it has not seen yet: the next tick takes it up
    expect(await after(0)).to.equal(SYNC_TASK_RECHECK_MS); // due in 60 s: it wakes at least every second
    expect(await after(59_400)).to.equal(600); // due in 0.6 s
    expect(await after(550)).to.equal(SYNC_TASK_TICK_MS); // due in 50 ms: not sooner than a tick
    expect(runs).to.equal(0);
    expect(await after(50)).to.equal(SYNC_TASK_RECHECK_MS);
    expect(runs).to.equal(1);
    loaded.current = { ...walletSettingDefaults("regtest"), daemon_manual_sync: true };
    expect(await after(0)).to.equal(SYNC_TASK_RECHECK_MS); // manual sync: nothing to wait for but another wallet
    expect(runs).to.equal(1);
    expect(SYNC_TASK_TICK_MS).to.be.below(SYNC_TASK_RECHECK_MS);
  });

  it("with a plugin-configuration override, keeps the fixed interval but still skips manual sync", async () => {
    const loaded: { current: WalletSettings | undefined } = { current: { ...walletSettingDefaults("regtest"), daemon_manual_sync: true } };
    let runs = 0;
    const t = walletSyncTask({ name: "t.c", settings: handle(loaded), overrideMs: 3_600_000, overrideFirstDelayMs: 1_000, run: async () => { runs++; } });
    expect([t.intervalMs, t.initialDelayMs]).to.deep.equal([3_600_000, 1_000]);
    await t.run(signal);
    expect(runs).to.equal(0);
    loaded.current = walletSettingDefaults("regtest");
    await t.run(signal);
    expect(runs).to.equal(1);
  });
});
