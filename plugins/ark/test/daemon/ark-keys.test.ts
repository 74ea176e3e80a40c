import { expect } from "chai";
import type { Database } from "@tender/core";
import { WalletKeys, bytesEqual, toHex } from "@tender/ark-protocol";
import { ArkKeys, NoWalletKeysError } from "../../src/daemon/keys/ark-keys.js";
import { MNEMONIC, masterOf, memoryDb } from "./fixtures.js";

describe("Ark keys (m/350'/0'/i from the wallet's master, persisted index)", () => {
  let db: Database;
  beforeEach(async () => { db = await memoryDb(); });
  afterEach(() => db.close());

  it("derives the same VTXO and mailbox keys as the protocol core's WalletKeys", async () => {
    const keys = await ArkKeys.load(db, masterOf(MNEMONIC));
    const reference = WalletKeys.fromMnemonic(MNEMONIC);
    for (const i of [0, 1, 7]) expect(bytesEqual(keys.deriveVtxoKey(i).publicKey, reference.vtxoKey(i).publicKey)).to.equal(true);
    expect(bytesEqual(keys.mailboxKey().publicKey, reference.mailboxKey().publicKey)).to.equal(true);
  });

  it("hands out each index once, also across a reload, and peeks only handed-out indexes", async () => {
    const keys = await ArkKeys.load(db, masterOf(MNEMONIC));
    const [a, b] = await Promise.all([keys.nextVtxoKey(), keys.nextVtxoKey()]);
    expect([a.index, b.index].sort()).to.deep.equal([0, 1]);
    expect((await keys.peekVtxoKey(1))?.index).to.equal(1);
    expect(await keys.peekVtxoKey(2)).to.equal(undefined);
    const again = await ArkKeys.load(db, masterOf(MNEMONIC));
    expect((await again.nextVtxoKey()).index).to.equal(2);
    expect((await again.keyByPubkey(a.publicKey))?.index).to.equal(a.index);
    expect(await again.isOwnPubkey(WalletKeys.fromMnemonic(MNEMONIC).vtxoKey(5).publicKey)).to.equal(false);
  });

  it("hands out several keys at once (a payment's change keys), skipping the ones refused, every one persisted", async () => {
    const keys = await ArkKeys.load(db, masterOf(MNEMONIC));
    await keys.nextVtxoKey();
    const refused = keys.deriveVtxoKey(2).publicKey;
    const got = await keys.nextVtxoKeys(2, (k) => bytesEqual(k.publicKey, refused));
    expect(got.map((k) => k.index)).to.deep.equal([1, 3]);
    const again = await ArkKeys.load(db, masterOf(MNEMONIC));
    for (const i of [1, 2, 3]) expect((await again.peekVtxoKey(i))?.index).to.equal(i); // the skipped one is handed out too
    expect((await again.nextVtxoKey()).index).to.equal(4);
  });

  it("claims a key of the seed that was never handed out (import into a restored wallet) and refuses a foreign one", async () => {
    const keys = await ArkKeys.load(db, masterOf(MNEMONIC));
    const k9 = WalletKeys.fromMnemonic(MNEMONIC).vtxoKey(9).publicKey;
    expect((await keys.claimKey(k9))?.index).to.equal(9);
    expect(await keys.isOwnPubkey(k9)).to.equal(true);
    expect(await keys.peekVtxoKey(3)).to.equal(undefined); // below the next index, never handed out
    expect((await keys.nextVtxoKey()).index).to.equal(10);
    const foreign = WalletKeys.fromMnemonic("legal winner thank year wave sausage worth useful legal winner thank yellow").vtxoKey(0).publicKey;
    expect(await keys.claimKey(foreign, 20)).to.equal(undefined);
  });

  it("refuses to derive without a loaded wallet", () => {
    expect(() => new ArkKeys(db).mailboxKey()).to.throw(NoWalletKeysError);
  });
  it("loading reads no key: a key handed out before is found by its public key when asked, and kept then", async () => {
    const keys = await ArkKeys.load(db, masterOf(MNEMONIC));
    const handed = await keys.nextVtxoKeys(5);
    const again = await ArkKeys.load(db, masterOf(MNEMONIC));
    expect(again.keptKeys).to.equal(0);
    expect(again.nextUnusedIndex).to.equal(5);
    expect((await again.keyByPubkey(handed[2]!.publicKey))?.index).to.equal(2);
    expect((await again.keyByPubkey(toHex(handed[4]!.publicKey).toUpperCase()))?.index).to.equal(4);
    expect(again.keptKeys).to.equal(2);
    expect(await again.keyByPubkey(WalletKeys.fromMnemonic(MNEMONIC).vtxoKey(5).publicKey)).to.equal(undefined);
    expect(again.keptKeys).to.equal(2); // a key never handed out is not kept
  });

  it("keeps only the most recently used keys in memory; the others are still found, from the database", async () => {
    const keys = await ArkKeys.load(db, masterOf(MNEMONIC), { keptKeys: 3 });
    const handed = await keys.nextVtxoKeys(8);
    expect(keys.keptKeys).to.equal(3);
    for (const k of handed) expect((await keys.keyByPubkey(k.publicKey))?.index).to.equal(k.index);
    expect(keys.keptKeys).to.equal(3);
    expect(await keys.isOwnPubkey(handed[0]!.publicKey)).to.equal(true);
    expect((await keys.peekVtxoKey(1))?.index).to.equal(1);
    // reserved change keys are known before the transaction recording them commits
    const { keys: [change], persist } = await keys.reserveVtxoKeys(1);
    expect((await keys.keyByPubkey(change!.publicKey))?.index).to.equal(8);
    await persist();
    const reloaded = await ArkKeys.load(db, masterOf(MNEMONIC), { keptKeys: 3 });
    expect(reloaded.nextUnusedIndex).to.equal(9);
    expect((await reloaded.keyByPubkey(handed[0]!.publicKey))?.index).to.equal(0);
  });
});
