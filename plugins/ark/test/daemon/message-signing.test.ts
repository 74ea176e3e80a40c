import { expect } from "chai";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "@tender/core";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { encodeArkAddress, fromHex, toHex, walletArkAddress } from "@tender/ark-protocol";
import { ArkKeys } from "../../src/daemon/keys/ark-keys.js";
import { signWithAddress, verifySigned } from "../../src/daemon/message/message-signing.js";
import { MNEMONIC, SERVER, masterOf, memoryDb, randomKey } from "./fixtures.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const vector = JSON.parse(readFileSync(join(HERE, "../../../../../test/vectors/ark-vectors.json"), "utf8")).message_signing as {
  public_key: string; message_ascii: string; signature: string;
};

describe("message signing: BIP-340 over SHA-256(\"bark/message\" ‖ message), barkd's refusals", () => {
  let db: Database;
  let keys: ArkKeys;
  const addressOf = (pubkey: Uint8Array, secretKey: Uint8Array) => encodeArkAddress(walletArkAddress({
    network: "regtest", serverPubkey: SERVER.pk, serverMailboxPubkey: randomKey().pk, mailboxId: keys.mailboxKey().publicKey, vtxoPubkey: pubkey, vtxoSecretKey: secretKey,
  }));
  const refusal = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      expect((e as { status?: number }).status).to.equal(400);
      return (e as Error).message;
    }
    throw new Error("no refusal");
  };
  const asyncRefusal = async (f: () => Promise<unknown>): Promise<string> => {
    const e = await f().then(() => undefined, (err: unknown) => err);
    if (e === undefined) throw new Error("no refusal");
    expect((e as { status?: number }).status).to.equal(400);
    return (e as Error).message;
  };

  beforeEach(async () => {
    db = await memoryDb();
    keys = await ArkKeys.load(db, masterOf(MNEMONIC));
  });
  afterEach(() => db.close());

  it("verifies bark's reference signature with its pubkey (compressed and uncompressed); a changed message or signature is false", () => {
    const { message_ascii: message, signature, public_key: pubkey } = vector;
    expect(verifySigned({ message, signature, pubkey })).to.deep.equal({ valid: true });
    const uncompressed = toHex(secp256k1.Point.fromHex(pubkey).toBytes(false));
    expect(verifySigned({ message, signature, pubkey: uncompressed })).to.deep.equal({ valid: true });
    expect(verifySigned({ message: message + ".", signature, pubkey })).to.deep.equal({ valid: false });
    const flipped = fromHex(signature);
    flipped[63] = flipped[63]! ^ 1;
    expect(verifySigned({ message, signature: toHex(flipped), pubkey })).to.deep.equal({ valid: false });
  });

  it("signs with the key of a handed-out address; verifies with the address and with its pubkey; the signature is random each time", async () => {
    const key = await keys.nextVtxoKey();
    const address = addressOf(key.publicKey, key.secretKey);
    const a = await signWithAddress(keys, "hello ark ✓", address);
    const b = await signWithAddress(keys, "hello ark ✓", address);
    expect(a.signature).to.match(/^[0-9a-f]{128}$/);
    expect(a.signature).to.not.equal(b.signature);
    expect(verifySigned({ message: "hello ark ✓", signature: a.signature, address })).to.deep.equal({ valid: true });
    expect(verifySigned({ message: "hello ark ✓", signature: b.signature, pubkey: toHex(key.publicKey) })).to.deep.equal({ valid: true });
    expect(verifySigned({ message: "hello ark", signature: a.signature, address })).to.deep.equal({ valid: false });
  });

  it("refuses to sign for a bad address and for an address whose key was never handed out", async () => {
    expect(await asyncRefusal(() => signWithAddress(keys, "m", "tark1notanaddress"))).to.match(/^bad request: invalid ark address: /);
    const notYet = keys.deriveVtxoKey(3);
    expect(await asyncRefusal(() => signWithAddress(keys, "m", addressOf(notYet.publicKey, notYet.secretKey))))
      .to.equal("bad request: address does not belong to this wallet or its key has not been derived");
  });

  it("refuses a verify request with a bad signature, both or neither of pubkey and address, a bad pubkey or a bad address", () => {
    const { message_ascii: message, signature, public_key: pubkey } = vector;
    expect(refusal(() => verifySigned({ message, signature: signature.slice(2), pubkey }))).to.match(/^bad request: invalid signature/);
    expect(refusal(() => verifySigned({ message, signature: "zz" + signature.slice(2), pubkey }))).to.match(/^bad request: invalid signature/);
    expect(refusal(() => verifySigned({ message, signature }))).to.equal("exactly one of pubkey and address must be set");
    expect(refusal(() => verifySigned({ message, signature, pubkey, address: "tark1x" }))).to.equal("exactly one of pubkey and address must be set");
    expect(refusal(() => verifySigned({ message, signature, pubkey: "02" + "00".repeat(32) }))).to.match(/^bad request: invalid pubkey/);
    expect(refusal(() => verifySigned({ message, signature, pubkey: "abc" }))).to.match(/^bad request: invalid pubkey/);
    expect(refusal(() => verifySigned({ message, signature, address: "bc1qnotark" }))).to.match(/^bad request: invalid ark address: /);
  });
});
