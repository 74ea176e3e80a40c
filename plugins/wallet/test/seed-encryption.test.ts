import { expect } from "chai";
import { DEFAULT_SCRYPT, UnreadableSeedFileError, WrongPassphraseError, decryptSeed, encryptSeed, isEncryptedSeed, readSeedHeader } from "../src/keys/seed-encryption.js";
import { TooManyAttemptsError, UnlockThrottle } from "../src/lifecycle/unlock-throttle.js";

const MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow";
/** A cheap scrypt cost so the tests run fast; the daemon uses the default (2^17). */
const CHEAP = { N: 1 << 10, r: 8, p: 1 };

describe("encrypted seed file", () => {
  it("decrypts with the passphrase it was encrypted with, and the file holds neither the words nor the passphrase", async () => {
    const text = await encryptSeed(MNEMONIC, "a long passphrase", "0a1b2c3d", CHEAP);
    expect(isEncryptedSeed(text)).to.equal(true);
    expect(isEncryptedSeed(MNEMONIC + "\n")).to.equal(false);
    for (const w of MNEMONIC.split(" ")) expect(text).not.to.contain(w);
    expect(text).not.to.contain("a long passphrase");
    expect(readSeedHeader(text).fingerprint).to.equal("0a1b2c3d");
    expect(readSeedHeader(text).kdf).to.include({ name: "scrypt", N: CHEAP.N, r: 8, p: 1 });
    expect(await decryptSeed(text, "a long passphrase")).to.equal(MNEMONIC);
  });

  it("two encryptions of one seed differ (fresh salt and nonce)", async () => {
    const a = JSON.parse(await encryptSeed(MNEMONIC, "a long passphrase", "0a1b2c3d", CHEAP));
    const b = JSON.parse(await encryptSeed(MNEMONIC, "a long passphrase", "0a1b2c3d", CHEAP));
    expect(a.kdf.salt).not.to.equal(b.kdf.salt);
    expect(a.cipher.nonce).not.to.equal(b.cipher.nonce);
    expect(a.ciphertext).not.to.equal(b.ciphertext);
  });

  it("a wrong passphrase, or any change to the authenticated header or the ciphertext, is refused as a wrong passphrase", async () => {
    const text = await encryptSeed(MNEMONIC, "a long passphrase", "0a1b2c3d", CHEAP);
    let err = await decryptSeed(text, "another passphrase").catch((e: unknown) => e);
    expect(err).to.be.instanceOf(WrongPassphraseError);
    const f = JSON.parse(text);
    for (const altered of [{ ...f, fingerprint: "ffffffff" }, { ...f, kdf: { ...f.kdf, r: 4 } }, { ...f, ciphertext: Buffer.from("x".repeat(40)).toString("base64") }]) {
      err = await decryptSeed(JSON.stringify(altered), "a long passphrase").catch((e: unknown) => e);
      expect(err).to.be.instanceOf(WrongPassphraseError);
    }
  });

  it("an unknown version or a malformed file is refused with what is wrong", async () => {
    const f = JSON.parse(await encryptSeed(MNEMONIC, "a long passphrase", "0a1b2c3d", CHEAP));
    expect(() => readSeedHeader(JSON.stringify({ ...f, version: 2 }))).to.throw(UnreadableSeedFileError, /version 2/);
    expect(() => readSeedHeader(JSON.stringify({ ...f, kdf: { ...f.kdf, N: 1000 } }))).to.throw(UnreadableSeedFileError, /malformed/);
    expect(() => readSeedHeader("{not json")).to.throw(UnreadableSeedFileError);
  });

  it("refuses a shortened authentication tag or a nonce of another size before trying the passphrase", async () => {
    const f = JSON.parse(await encryptSeed(MNEMONIC, "a long passphrase", "0a1b2c3d", CHEAP));
    const tag = Buffer.from(f.tag, "base64");
    for (const altered of [
      { ...f, tag: tag.subarray(0, 4).toString("base64") }, { ...f, tag: tag.subarray(0, 12).toString("base64") },
      { ...f, cipher: { ...f.cipher, nonce: Buffer.alloc(16).toString("base64") } },
    ]) {
      const text = JSON.stringify(altered);
      expect(() => readSeedHeader(text)).to.throw(UnreadableSeedFileError, /malformed/);
      expect(await decryptSeed(text, "a long passphrase").catch((e: unknown) => e)).to.be.instanceOf(UnreadableSeedFileError);
    }
  });

  it("refuses scrypt costs no tender writes (a huge N, r or p would take the daemon's memory or minutes of CPU at each unlock)", async () => {
    const f = JSON.parse(await encryptSeed(MNEMONIC, "a long passphrase", "0a1b2c3d", CHEAP));
    for (const kdf of [{ N: 2 ** 30 }, { N: 2 ** 21 }, { r: 1024 }, { p: 2 ** 20 }, { N: 2 ** 18, r: 16 }]) {
      const text = JSON.stringify({ ...f, kdf: { ...f.kdf, ...kdf } });
      expect(() => readSeedHeader(text), JSON.stringify(kdf)).to.throw(UnreadableSeedFileError, /cost/);
      const err = await decryptSeed(text, "a long passphrase").catch((e: unknown) => e);
      expect(err, JSON.stringify(kdf)).to.be.instanceOf(UnreadableSeedFileError);
    }
    // the default cost, and twice it, are read
    expect(readSeedHeader(JSON.stringify({ ...f, kdf: { ...f.kdf, ...DEFAULT_SCRYPT } })).kdf.N).to.equal(DEFAULT_SCRYPT.N);
    expect(readSeedHeader(JSON.stringify({ ...f, kdf: { ...f.kdf, N: 2 ** 18 } })).kdf.N).to.equal(2 ** 18);
  });
});

describe("unlock throttle", () => {
  it("lets three wrong passphrases through, then doubles the wait after each further one, and a right one clears it", () => {
    let now = 0;
    const t = new UnlockThrottle(() => now);
    for (let i = 0; i < 2; i++) { t.check(); t.failed(); }
    t.check();
    t.failed(); // third wrong one: wait 1 s
    expect(() => t.check()).to.throw(TooManyAttemptsError, "retry in 1 s");
    now += 1_000;
    t.check();
    t.failed(); // fourth: 2 s
    now += 1_999;
    expect(() => t.check()).to.throw(TooManyAttemptsError);
    now += 1;
    t.check();
    t.succeeded();
    t.failed();
    t.check();
  });
});
