import { expect } from "chai";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { regtestWallet, sharedDevnet } from "../src/shared-devnet.js";

const ABANDON = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
/** First 4 bytes of HASH160 of m/350' for the "abandon … about" mnemonic (ark-vectors.json, key_derivation). */
const ABANDON_FINGERPRINT = "53bdf6b1";
let REGTEST: Record<string, unknown>;
before(async () => { REGTEST = await regtestWallet(); });

describe("wallet lifecycle (create, exists, delete, mnemonic)", function () {
  this.timeout(60_000);
  let d: Daemon;
  beforeEach(async () => { d = await startDaemon(); });
  afterEach(async () => { await d.stop(); cleanup(d.datadir); });

  it("starts without a wallet: fingerprint null, 422 No wallet set on wallet routes", async () => {
    expect((await d.api("GET", "/api/v1/wallet")).json).to.deep.equal({ fingerprint: null });
    const r = await d.api("GET", "/api/v1/notifications/wait");
    expect(r.status).to.equal(422);
    expect(r.json).to.deep.equal({ message: "No wallet set" });
    expect(d.stderr()).to.contain("No wallet found. Starting rest server without daemon");
  });

  it("creates a wallet from a mnemonic with the m/350' fingerprint and writes the files 0600", async () => {
    const r = await d.api("POST", "/api/v1/wallet/create", { body: { ...REGTEST, mnemonic: ABANDON } });
    expect(r.status).to.equal(200);
    expect(r.json).to.deep.equal({ fingerprint: ABANDON_FINGERPRINT });
    expect((await d.api("GET", "/api/v1/wallet")).json).to.deep.equal({ fingerprint: ABANDON_FINGERPRINT });
    expect(readFileSync(join(d.datadir, "mnemonic"), "utf8").trim()).to.equal(ABANDON);
    expect(statSync(join(d.datadir, "mnemonic")).mode & 0o777).to.equal(0o600);
    expect(statSync(join(d.datadir, "config.toml")).mode & 0o777).to.equal(0o600);
    const toml = readFileSync(join(d.datadir, "config.toml"), "utf8");
    const devnet = await sharedDevnet();
    expect(toml).to.contain(`server_address = "${devnet.arkUrl}"`);
    expect(toml).to.contain(`esplora_address = "${devnet.esploraUrl}"`);
    expect(existsSync(join(d.datadir, "wallet-create.journal"))).to.equal(false);
    expect(d.stderr()).to.not.contain("abandon");
  });

  it("generates a fresh 12-word mnemonic when none is given, through the undocumented POST /api/v1/wallet alias", async () => {
    const r = await d.api("POST", "/api/v1/wallet", { body: REGTEST });
    expect(r.status).to.equal(200);
    expect((r.json as { fingerprint: string }).fingerprint).to.match(/^[0-9a-f]{8}$/);
    expect(readFileSync(join(d.datadir, "mnemonic"), "utf8").trim().split(" ")).to.have.length(12);
  });

  it("refuses a second create with 400 Wallet already set, even with force", async () => {
    expect((await d.api("POST", "/api/v1/wallet/create", { body: REGTEST })).status).to.equal(200);
    for (const force of [false, true]) {
      const r = await d.api("POST", "/api/v1/wallet/create", { body: { ...REGTEST, force } });
      expect(r.status).to.equal(400);
      expect(r.json).to.deep.equal({ message: "Wallet already set" });
    }
  });

  it("refuses an invalid mnemonic with 400 and writes nothing", async () => {
    const r = await d.api("POST", "/api/v1/wallet/create", { body: { ...REGTEST, mnemonic: "abandon abandon nonsense" } });
    expect(r.status).to.equal(400);
    expect((r.json as { message: string }).message).to.match(/^bad request: Invalid mnemonic: /);
    expect(readdirSync(d.datadir).sort()).to.deep.equal(["auth_token", "debug.log", "tenderd.lock"]);
  });

  it("refuses unexpected datadir contents with 500 unless force, which deletes them", async () => {
    writeFileSync(join(d.datadir, "stray.txt"), "x");
    const r = await d.api("POST", "/api/v1/wallet/create", { body: REGTEST });
    expect(r.status).to.equal(500);
    expect(r.json).to.deep.equal({ message: `Error while creating wallet: Datadir has unexpected contents: ${join(d.datadir, "stray.txt")}` });
    const f = await d.api("POST", "/api/v1/wallet/create", { body: { ...REGTEST, force: true } });
    expect(f.status).to.equal(200);
    expect(existsSync(join(d.datadir, "stray.txt"))).to.equal(false);
  });

  it("validates the configuration: no config at all, a missing Ark server, config file plus fields, restore rules", async () => {
    const msg = async (body: object) => ((await d.api("POST", "/api/v1/wallet/create", { body })).json as { message: string }).message;
    expect(await msg({ network: "regtest" })).to.equal("Error while creating wallet: You need to provide config flags or a config file");
    expect(await msg({ network: "regtest", chain_source: REGTEST.chain_source })).to.equal("Error while creating wallet: missing --ark arg");
    expect(await msg({ ...REGTEST, chain_source: { esplora: { url: "http://127.0.0.1:9" } } })).to.match(/^Error while creating wallet: /);
    expect(await msg({ network: "regtest", ark_server: "x" })).to.match(/no chain source/);
    expect(await msg({ ...REGTEST, birthday_height: 5 })).to.match(/birthday_height can only be given together with a mnemonic/);
    expect(await msg({ ...REGTEST, chain_source: { bitcoind: { bitcoind: "127.0.0.1:18443", bitcoind_auth: { "user-pass": { user: "u", pass: "p" } } } }, mnemonic: ABANDON }))
      .to.match(/birthday_height is required/);
    expect(readdirSync(d.datadir).sort()).to.deep.equal(["auth_token", "debug.log", "tenderd.lock"]);
    const devnet = await sharedDevnet();
    writeFileSync(join(d.datadir, "config.toml"), `server_address = "${devnet.arkUrl}"\nesplora_address = "${devnet.esploraUrl}"\n`);
    expect(await msg({ ...REGTEST })).to.equal("Error while creating wallet: Cannot provide an existing config file and config flags");
    const ok = await d.api("POST", "/api/v1/wallet/create", { body: { network: "regtest" } });
    expect(ok.status).to.equal(200);
  });

  it("answers framework errors for malformed create bodies (422 unknown network, 415 no JSON)", async () => {
    const r = await d.api("POST", "/api/v1/wallet/create", { body: { network: "testnet3" } });
    expect(r.status).to.equal(422);
    expect(r.headers.get("content-type")).to.match(/^text\/plain/);
    const t = await d.api("POST", "/api/v1/wallet/create", { body: "{}", headers: { "content-type": "text/plain" } });
    expect(t.status).to.equal(415);
  });

  it("deletes only with dangerous=true and the right fingerprint, keeping the token and lock files", async () => {
    const del = (body: object) => d.api("DELETE", "/api/v1/wallet", { body });
    let r = await del({ dangerous: false, fingerprint: "00000000" });
    expect(r.status).to.equal(400);
    expect(r.json).to.deep.equal({ message: "deletion not confirmed: set dangerous=true" });
    r = await del({ dangerous: true, fingerprint: "00000000" });
    expect(r.json).to.deep.equal({ deleted: false, message: "No wallet to delete" });

    await d.api("POST", "/api/v1/wallet/create", { body: { ...REGTEST, mnemonic: ABANDON } });
    r = await del({ dangerous: true, fingerprint: "00000000" });
    expect(r.status).to.equal(400);
    expect(r.json).to.deep.equal({ message: "Fingerprint does not match the loaded wallet" });
    r = await del({ dangerous: true, fingerprint: ABANDON_FINGERPRINT });
    expect(r.json).to.deep.equal({ deleted: true, message: "Wallet deleted" });
    expect(readdirSync(d.datadir).filter((f) => f !== "debug.log").sort()).to.deep.equal(["auth_token", "tenderd.lock"]);
    expect((await d.api("GET", "/api/v1/wallet")).json).to.deep.equal({ fingerprint: null });
    expect((await d.api("GET", "/api/v1/notifications/wait")).status).to.equal(422);
    // a later create needs explicit configuration again, and works
    expect((await d.api("POST", "/api/v1/wallet/create", { body: { ...REGTEST, mnemonic: ABANDON } })).json).to.deep.equal({ fingerprint: ABANDON_FINGERPRINT });
  });

  it("answers 404 on the mnemonic endpoint unless --expose-mnemonic", async () => {
    await d.api("POST", "/api/v1/wallet/create", { body: REGTEST });
    const r = await d.api("GET", "/api/v1/wallet/mnemonic");
    expect(r.status).to.equal(404);
    expect(r.json).to.deep.equal({ resources: [], message: "Mnemonic endpoint is disabled" });
  });

  it("reopens the wallet after a restart", async () => {
    await d.api("POST", "/api/v1/wallet/create", { body: { ...REGTEST, mnemonic: ABANDON } });
    await d.stop();
    d = await startDaemon({ datadir: d.datadir });
    expect((await d.api("GET", "/api/v1/wallet")).json).to.deep.equal({ fingerprint: ABANDON_FINGERPRINT });
    expect(d.stderr()).to.contain("Wallet loaded and daemon started");
  });
});

describe("wallet mnemonic exposure", function () {
  this.timeout(60_000);

  it("serves the mnemonic with --expose-mnemonic, and 500 while no wallet exists", async () => {
    const d = await startDaemon({ args: ["--expose-mnemonic"] });
    try {
      const none = await d.api("GET", "/api/v1/wallet/mnemonic");
      expect(none.status).to.equal(500);
      await d.api("POST", "/api/v1/wallet/create", { body: { ...REGTEST, mnemonic: ABANDON } });
      const r = await d.api("GET", "/api/v1/wallet/mnemonic");
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal({ mnemonic: ABANDON });
    } finally { await d.stop(); cleanup(d.datadir); }
  });
});
