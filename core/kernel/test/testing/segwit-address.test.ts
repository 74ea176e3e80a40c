import { expect } from "chai";
import { TestWallet, encodeSegwitAddress, segwitScriptOf } from "../../src/testing/index.js";

describe("the contract kit's segwit addresses and test wallet", () => {
  it("encodes and decodes BIP-173 (v0, bech32) and BIP-350 (v1, bech32m) addresses", () => {
    const program = Buffer.from("751e76e8199196d454941c45d1b3a323f1433bd6", "hex");
    expect(encodeSegwitAddress("bc", 0, program)).to.equal("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4");
    expect(Buffer.from(segwitScriptOf("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4")).toString("hex")).to.equal("0014751e76e8199196d454941c45d1b3a323f1433bd6");
    expect(Buffer.from(segwitScriptOf("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0")).toString("hex"))
      .to.equal("512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
  });

  it("refuses what is not a valid segwit address (bad checksum, v0 with a bech32m checksum, mixed case, base58)", () => {
    for (const bad of [
      "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5",
      "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh",
      "bc1Qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
      "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",
    ]) expect(() => segwitScriptOf(bad), bad).to.throw("not a segwit address");
  });

  it("derives the same regtest P2WPKH key from the same label", () => {
    const a = new TestWallet("label");
    expect(a.address).to.equal(new TestWallet("label").address).and.to.match(/^bcrt1q[02-9ac-hj-np-z]{38}$/);
    expect(a.scriptHex).to.equal(Buffer.from(segwitScriptOf(a.address)).toString("hex"));
    expect(new TestWallet("other").address).to.not.equal(a.address);
  });
});
