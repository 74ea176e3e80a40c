import { expect } from "chai";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, arkDaemonConfig, boardToDaemon, createBody, ok, spendable, startArkDevnet, until,
  type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";

const PASSPHRASE = "correct horse battery staple";

describe("encrypted seed at rest (--encrypt-seed, POST /wallet/unlock, POST /wallet/lock)", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;
  let bobAddress: string;
  const aliceDir = tempDatadir("tenderd-seed-");
  const args = ["--encrypt-seed", "--expose-mnemonic"];
  const restartAlice = async () => {
    await alice.stop();
    alice = await startDaemon({ datadir: aliceDir, args, config: arkDaemonConfig() });
  };

  before(async () => {
    devnet = await startArkDevnet("encrypted-seed-e2e");
    bob = await startDaemon({ config: arkDaemonConfig() });
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    bobAddress = (await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next")).address;
    alice = await startDaemon({ datadir: aliceDir, args, config: arkDaemonConfig() });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  it("with --encrypt-seed a wallet without a passphrase is refused; created with one, the seed file is 0600, versioned with its scrypt parameters, and holds none of the mnemonic's words", async () => {
    const refused = await alice.api("POST", "/api/v1/wallet/create", { body: createBody(devnet, ALICE_MNEMONIC) });
    expect(refused.status).to.equal(400);
    expect((refused.json as { message: string }).message).to.contain("passphrase is required");
    const short = await alice.api("POST", "/api/v1/wallet/create", { body: { ...createBody(devnet, ALICE_MNEMONIC), passphrase: "short" } });
    expect(short.status).to.equal(400);

    const keyed = { headers: { "Idempotency-Key": "create-with-passphrase" }, body: { ...createBody(devnet, ALICE_MNEMONIC), passphrase: PASSPHRASE } };
    expect((await alice.api("POST", "/api/v1/wallet/create", keyed)).status).to.equal(200);
    // the passphrase-carrying request is never stored under its key: a retry runs again (and finds the wallet) instead of a replay
    const retry = await alice.api("POST", "/api/v1/wallet/create", keyed);
    expect(retry.status).to.equal(400);
    expect(retry.json).to.deep.equal({ message: "Wallet already set" });
    expect(retry.headers.get("idempotent-replayed")).to.equal(null);
    expect(await ok(alice, "GET", "/api/v1/wallet/lock")).to.deep.equal({ encrypted: true, locked: false });
    const file = join(aliceDir, "mnemonic");
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const text = readFileSync(file, "utf8");
    for (const word of new Set(ALICE_MNEMONIC.split(" "))) expect(text).not.to.contain(word);
    expect(text).not.to.contain(PASSPHRASE);
    const stored = JSON.parse(text) as { format: string; version: number; kdf: { name: string; N: number; r: number; p: number; salt: string }; cipher: { name: string } };
    expect(stored.format).to.equal("tender-encrypted-seed");
    expect(stored.version).to.equal(1);
    expect(stored.kdf.name).to.equal("scrypt");
    expect(stored.kdf.N).to.be.at.least(1 << 17);
    expect(stored.cipher.name).to.equal("aes-256-gcm");
    // unlocked right after creation: the wallet works and the export route hands out the mnemonic
    expect(await ok(alice, "GET", "/api/v1/wallet/mnemonic")).to.deep.equal({ mnemonic: ALICE_MNEMONIC });
    const hex = await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 60_000n);
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
    expect(await spendable(alice)).to.equal(60_000);
  });

  it("restarted, the daemon is locked: reads work, a payment, a new address and the mnemonic export answer 423, and /readyz names the locked wallet", async () => {
    await restartAlice();
    expect(alice.stderr()).to.contain("locked");
    expect(await ok(alice, "GET", "/api/v1/wallet/lock")).to.deep.equal({ encrypted: true, locked: true });
    const fingerprint = (await ok<{ fingerprint: string }>(alice, "GET", "/api/v1/wallet")).fingerprint;
    expect(fingerprint).to.match(/^[0-9a-f]{8}$/);
    expect(await spendable(alice)).to.equal(60_000);
    const vtxos = await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos");
    expect(vtxos.map((v) => [v.amount_sat, v.state.type])).to.deep.equal([[60_000, "spendable"]]);
    expect(await ok<Movement[]>(alice, "GET", "/api/v1/history")).to.be.an("array");

    const send = await alice.api("POST", "/api/v1/wallet/send", { body: { destination: bobAddress, amount_sat: 10_000 } });
    expect(send.status).to.equal(423);
    expect(send.json).to.deep.equal({ message: "Wallet is locked: unlock it with POST /api/v1/wallet/unlock" });
    expect((await alice.api("POST", "/api/v1/wallet/addresses/next")).status).to.equal(423);
    expect((await alice.api("GET", "/api/v1/wallet/mnemonic")).status).to.equal(423);
    expect((await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos")).map((v) => v.state.type)).to.deep.equal(["spendable"]);

    const ready = await alice.api("GET", "/readyz", { token: null });
    expect(ready.status).to.equal(503);
    const body = ready.json as { status: string; checks: Record<string, { ok: boolean; detail?: string }> };
    expect(body.status).to.equal("not_ready");
    expect(body.checks.wallet).to.deep.equal({ ok: false, detail: "wallet is locked" });
    expect(body.checks.database!.ok).to.equal(true);
    // background work waits for the keys quietly: nothing warns or fails while the wallet is locked
    await new Promise((r) => setTimeout(r, 3_000));
    const complaints = alice.stderr().split("\n").filter((l) => /^\[[^\]]* (ERROR|WARN )\]/.test(l));
    expect(complaints).to.deep.equal([]);
  });

  it("a wrong passphrase is refused with 403; after three in a row the next attempt must wait (429); the right one unlocks and the payment goes through", async () => {
    for (let i = 0; i < 3; i++) {
      const wrong = await alice.api("POST", "/api/v1/wallet/unlock", { body: { passphrase: `not the passphrase ${i}` } });
      expect(wrong.status).to.equal(403);
      expect(wrong.json).to.deep.equal({ message: "Wrong passphrase" });
    }
    const throttled = await alice.api("POST", "/api/v1/wallet/unlock", { body: { passphrase: PASSPHRASE } });
    expect(throttled.status).to.equal(429);
    expect((throttled.json as { message: string }).message).to.match(/^Too many wrong passphrases: retry in \d+ s$/);
    expect(await ok(alice, "GET", "/api/v1/wallet/lock")).to.deep.equal({ encrypted: true, locked: true });

    await new Promise((r) => setTimeout(r, 1_200));
    expect(await ok(alice, "POST", "/api/v1/wallet/unlock", { passphrase: PASSPHRASE })).to.deep.equal({ encrypted: true, locked: false });
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: 10_000 });
    expect(await spendable(alice)).to.equal(50_000);
    await until("Bob received", async () => ((await spendable(bob)) === 10_000 ? true : undefined), 30_000);
    expect(await ok(alice, "GET", "/api/v1/wallet/mnemonic")).to.deep.equal({ mnemonic: ALICE_MNEMONIC });
    const ready = await alice.api("GET", "/readyz", { token: null });
    expect((ready.json as { checks: Record<string, { ok: boolean }> }).checks.wallet!.ok).to.equal(true);
  });

  it("POST /wallet/lock locks it again (payments 423, reads work); neither the passphrase nor the mnemonic ever reaches the daemon's output", async () => {
    expect(await ok(alice, "POST", "/api/v1/wallet/lock")).to.deep.equal({ encrypted: true, locked: true });
    expect((await alice.api("POST", "/api/v1/wallet/send", { body: { destination: bobAddress, amount_sat: 1_000 } })).status).to.equal(423);
    expect(await spendable(alice)).to.equal(50_000);
    expect(await ok(alice, "POST", "/api/v1/wallet/unlock", { passphrase: PASSPHRASE })).to.deep.equal({ encrypted: true, locked: false });
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: 1_000 });
    expect(await spendable(alice)).to.equal(49_000);
    const output = alice.stderr();
    expect(output).not.to.contain(PASSPHRASE);
    expect(output).not.to.contain("not the passphrase");
    expect(output).not.to.contain(ALICE_MNEMONIC.split(" ").slice(0, 4).join(" "));
  });

  it("a wallet created without a passphrase on a daemon without --encrypt-seed is plain and cannot be locked", async () => {
    const plain = await startDaemon({ config: arkDaemonConfig() });
    try {
      expect(await ok(plain, "GET", "/api/v1/wallet")).to.deep.equal({ fingerprint: null });
      await ok(plain, "POST", "/api/v1/wallet/create", createBody(devnet));
      expect(await ok(plain, "GET", "/api/v1/wallet/lock")).to.deep.equal({ encrypted: false, locked: false });
      const lock = await plain.api("POST", "/api/v1/wallet/lock");
      expect(lock.status).to.equal(400);
      expect(readFileSync(join(plain.datadir, "mnemonic"), "utf8").trim().split(" ")).to.have.length(12);
    } finally {
      await plain.stop();
      cleanup(plain.datadir);
    }
  });
});
