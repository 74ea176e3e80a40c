import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WalletKeys, generateMnemonic, mnemonicToSeed, p2trAddress, parseExitKit, taprootOutput, toHex, toXOnly } from "@tender/ark-protocol";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import { EXIT_DELTA, boardAndRegister, exitDaemonConfig, fundOnchain, ok, startExitDevnet, type DevnetWithArk } from "./exits-harness.js";
import { createBody } from "./ark-harness.js";

const TENDERD = join(import.meta.dirname, "..", "..", "..", "core", "tenderd", "bin", "tenderd.js");

/** Runs `tenderd exit-kit …` (the runner alone, no daemon); `onLine` sees each stdout line as it comes. */
function runKit(args: string[], onLine: (line: string) => void = () => undefined): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [TENDERD, "exit-kit", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let pending = "";
    p.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      pending += d.toString();
      const lines = pending.split("\n");
      pending = lines.pop()!;
      lines.forEach(onLine);
    });
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    p.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}

/**
 * The portable exit kit: a wallet boards, hands out the kit of its VTXO over HTTP, and then the
 * daemon and the Ark server are gone. `tenderd exit-kit run` — no daemon, only the devnet's
 * Esplora URL, a funding key for the CPFP children and the mnemonic for the claim — takes the
 * VTXO out: the exit tx goes on chain in a package, the exit delta passes, the claim pays the
 * destination. A second run finds everything done.
 */
describe("exit kit: one VTXO exits to claimed with the kit and an Esplora URL alone", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  let d: Daemon;
  let datadir: string;
  let dir: string;
  const mnemonic = generateMnemonic();
  let vtxoId: string;
  let kitText: string;
  const destination = p2trAddress(taprootOutput(toXOnly(WalletKeys.fromMnemonic(generateMnemonic()).vtxoKey(0).publicKey)).outputKey, "regtest");
  let claimTxid: string;
  let claimFee: bigint;

  before(async () => {
    devnet = await startExitDevnet("exit-kit");
    datadir = tempDatadir();
    dir = mkdtempSync(join(tmpdir(), "exit-kit-"));
    d = await startDaemon({ datadir, config: exitDaemonConfig() });
    const created = await d.api("POST", "/api/v1/wallet/create", { body: createBody(devnet, mnemonic) });
    expect(created.status, created.text).to.equal(200);
    await fundOnchain(d, devnet, [300_000n]);
    vtxoId = await boardAndRegister(d, devnet, 100_000);
  });
  after(async () => {
    await d?.stop();
    await devnet?.stop();
    if (datadir) cleanup(datadir);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("GET /exits/kit answers the VTXO's kit as an attachment; bad, missing and unknown ids are refused", async () => {
    const res = await d.api("GET", `/api/v1/exits/kit?vtxo_ids=${vtxoId}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get("content-disposition")).to.match(/^attachment; filename="tender-exit-kit-[0-9a-f]{12}\.json"$/);
    kitText = res.text;
    const kit = parseExitKit(JSON.parse(kitText), "regtest");
    expect(kit.vtxos.map((v) => v.id)).to.deep.equal([vtxoId]);
    expect(kit.vtxos[0]!.amount).to.equal(100_000n);
    expect(kit.vtxos[0]!.claim.csvDelta).to.equal(EXIT_DELTA);
    // the key at the kit's path is the VTXO's
    expect(toHex(WalletKeys.fromMnemonic(mnemonic).vtxoKey(kit.vtxos[0]!.claim.keyIndex).publicKey)).to.equal(toHex(kit.vtxos[0]!.claim.pubkey));

    // a read key cannot take the kit (it would let it force exits), an admin key can
    for (const [scope, status] of [["read", 403], ["send", 403], ["admin", 200]] as const) {
      const key = await d.api("POST", "/api/v1/keys", { body: { name: `kit-${scope}`, scopes: [scope] } });
      expect(key.status, key.text).to.equal(200);
      const asKey = await d.api("GET", `/api/v1/exits/kit?vtxo_ids=${vtxoId}`, { token: (key.json as { secret: string }).secret });
      expect(asKey.status, `${scope} key: ${asKey.text}`).to.equal(status);
    }

    const none = await d.api("GET", "/api/v1/exits/kit");
    expect([none.status, none.json]).to.deep.equal([400, { message: "No VTXO IDs provided" }]);
    const bad = await d.api("GET", "/api/v1/exits/kit?vtxo_ids=nope");
    expect(bad.status).to.equal(400);
    expect((bad.json as { message: string }).message).to.match(/^bad request: Invalid VTXO ID: /);
    const unknown = `${"ab".repeat(32)}:0`;
    const missing = await d.api("GET", `/api/v1/exits/kit?vtxo_ids=${unknown}`);
    expect([missing.status, (missing.json as { resources: string[] }).resources]).to.deep.equal([404, [unknown]]);
  });

  it("the kit holds no secret: not the mnemonic, the seed, nor any VTXO or on-chain secret key of the wallet", () => {
    const keys = WalletKeys.fromMnemonic(mnemonic);
    const text = kitText.toLowerCase();
    expect(text).to.not.include(mnemonic.split(" ").slice(0, 3).join(" "));
    expect(text).to.not.include(toHex(mnemonicToSeed(mnemonic)).slice(0, 32));
    for (let i = 0; i < 20; i++) {
      expect(text).to.not.include(toHex(keys.vtxoKey(i).secretKey).slice(0, 32));
      expect(text).to.not.include(toHex(keys.onchainKey("regtest", i).secretKey).slice(0, 32));
    }
  });

  it("with the daemon and the Ark server stopped, the runner broadcasts the exit, waits out the delta and claims to the destination", async () => {
    await d.stop();
    const stopped = await fetch(`${devnet.arkControlUrl}/stop`, { method: "POST" });
    expect(stopped.status).to.equal(200);
    const kitFile = join(dir, "kit.json");
    writeFileSync(kitFile, kitText);
    const mnemonicFile = join(dir, "mnemonic");
    writeFileSync(mnemonicFile, `${mnemonic}\n`, { mode: 0o600 });
    const fundingFile = join(dir, "funding.key");
    const args = ["run", "--kit", kitFile, "--esplora", devnet.esploraUrl, "--destination", destination, "--funding-key", fundingFile, "--mnemonic-file", mnemonicFile, "--fee-rate", "5", "--poll-ms", "100"];

    let funded = false;
    let running = true;
    const miner = (async () => {
      while (running) {
        await new Promise((r) => setTimeout(r, 250));
        if (funded && running) devnet.node.mine(1);
      }
    })();
    const run = await runKit(args, (line) => {
      const m = /funding address (\S+)/.exec(line);
      if (m && !funded) {
        devnet.node.faucet(m[1]!, 40_000n);
        devnet.node.mine(1);
        funded = true;
      }
    });
    running = false;
    await miner;
    expect(run.code, run.err + run.out).to.equal(0);
    expect(run.err).to.not.include(mnemonic.split(" ")[0]! + " " + mnemonic.split(" ")[1]!);
    expect(readFileSync(fundingFile, "utf8").trim()).to.match(/^[0-9a-f]{64}$/);
    expect(run.out).to.match(/exit tx 1\/1 [0-9a-f]{64}: broadcast with CPFP child [0-9a-f]{64}/);
    expect(run.out).to.include("the mnemonic is needed to sign the claim");
    const claim = /claim ([0-9a-f]{64}) broadcast: (\d+) sat to (\S+) \(fee (\d+) sat\)/.exec(run.out);
    expect(claim, run.out).to.not.equal(null);
    claimTxid = claim![1]!;
    claimFee = BigInt(claim![4]!);
    expect(claim![3]).to.equal(destination);
    expect(BigInt(claim![2]!)).to.equal(100_000n - claimFee);
    expect(run.out).to.include(`done: every VTXO of the kit is claimed (claim ${claimTxid})`);
  });

  it("the claim is confirmed and the destination holds the VTXO amount minus the claim fee", async () => {
    const esplora = async <T>(path: string): Promise<T> => (await (await fetch(`${devnet.esploraUrl}${path}`)).json()) as T;
    expect((await esplora<{ confirmed: boolean }>(`/tx/${claimTxid}/status`)).confirmed).to.equal(true);
    const utxos = await esplora<{ txid: string; value: number }[]>(`/address/${destination}/utxo`);
    expect(utxos.map((u) => [u.txid, u.value])).to.deep.equal([[claimTxid, Number(100_000n - claimFee)]]);
    expect(claimFee > 0n && claimFee < 2_000n).to.equal(true);
    const [txid, vout] = vtxoId.split(":");
    expect((await esplora<{ spent: boolean; txid: string }>(`/tx/${txid}/outspend/${vout}`)).txid).to.equal(claimTxid);
  });

  it("running the kit again finds it done and broadcasts nothing", async () => {
    const args = ["run", "--kit", join(dir, "kit.json"), "--esplora", devnet.esploraUrl, "--destination", destination, "--funding-key", join(dir, "funding.key"), "--fee-rate", "5", "--poll-ms", "100"];
    const again = await runKit(args);
    expect(again.code, again.err).to.equal(0);
    expect(again.out).to.include(`done: every VTXO of the kit is claimed (claim ${claimTxid})`);
    expect(again.out).to.not.include("broadcast");
  });

  it("refuses a tampered kit and a kit for another network before touching the chain", async () => {
    const kit = JSON.parse(kitText) as { network: string; vtxos: { amount_sat: number }[] };
    const common = ["--esplora", devnet.esploraUrl, "--destination", destination, "--funding-key", join(dir, "funding.key"), "--poll-ms", "100"];
    const tampered = join(dir, "tampered.json");
    writeFileSync(tampered, JSON.stringify({ ...kit, vtxos: [{ ...kit.vtxos[0], amount_sat: kit.vtxos[0]!.amount_sat + 1 }] }));
    const t = await runKit(["run", "--kit", tampered, ...common]);
    expect(t.code).to.equal(1);
    expect(t.err).to.match(/^error: kit\.vtxos\[0\]\.claim\.amount_sat: does not match the VTXO output/);
    const signet = join(dir, "signet.json");
    writeFileSync(signet, JSON.stringify({ ...kit, network: "signet" }));
    const n = await runKit(["run", "--kit", signet, ...common]);
    expect([n.code, n.err]).to.deep.equal([1, "error: the kit is for signet, the Esplora server is on regtest\n"]);
  });
});
