import { expect } from "chai";
import { addressOf, classifyScript, scriptOf } from "../../src/node/address.js";
import { blockWork, difficultyOf, merkleRoot, targetOf } from "../../src/node/block.js";
import { sha256d } from "../../src/node/bytes.js";
import { blockSubsidy, bip34Prefix } from "../../src/node/coinbase.js";
import { InvalidInputError } from "../../src/node/node-errors.js";
import { fromHex as hex } from "../../src/consensus/bytes.js";

describe("devnet node: addresses, scripts and header arithmetic", function () {
  it("round-trips regtest addresses of every template and refuses other networks", () => {
    const cases: [string, string][] = [
      ["0014751e76e8199196d454941c45d1b3a323f1433bd6", "v0_p2wpkh"],
      ["00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262", "v0_p2wsh"],
      ["5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c", "v1_p2tr"],
      ["76a914751e76e8199196d454941c45d1b3a323f1433bd688ac", "p2pkh"],
      ["a914751e76e8199196d454941c45d1b3a323f1433bd687", "p2sh"],
      ["51024e73", "anchor"],
    ];
    for (const [script, type] of cases) {
      expect(classifyScript(hex(script)), script).to.equal(type);
      const address = addressOf(hex(script))!;
      expect(address, script).to.match(/^(bcrt1|m|n|2)/);
      expect(Buffer.from(scriptOf(address)).toString("hex")).to.equal(script);
    }
    expect(addressOf(hex("0014751e76e8199196d454941c45d1b3a323f1433bd6"))).to.equal("bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080");
    expect(() => scriptOf("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")).to.throw(InvalidInputError);
    expect(() => scriptOf("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx")).to.throw(InvalidInputError);
  });

  it("classifies data, multisig, bare keys and garbage", () => {
    expect(classifyScript(hex("6a0401020304"))).to.equal("op_return");
    expect(classifyScript(hex("6a"))).to.equal("op_return");
    expect(classifyScript(hex("6a75"))).to.equal("nonstandard");
    const key = "02" + "11".repeat(32);
    expect(classifyScript(hex(`21${key}ac`))).to.equal("p2pk");
    expect(classifyScript(hex(`5121${key}21${key}52ae`))).to.equal("multisig");
    expect(classifyScript(hex("5175"))).to.equal("nonstandard");
    expect(classifyScript(hex("5220" + "00".repeat(32)))).to.equal("unknown_witness");
    expect(classifyScript(hex("0015" + "00".repeat(21)))).to.equal("nonstandard");
  });

  it("computes regtest target, work and difficulty as bitcoind reports them", () => {
    expect(targetOf(0x207fffff)).to.equal(0x7fffffn << 232n);
    expect(blockWork(0x207fffff)).to.equal(2n);
    expect(difficultyOf(0x207fffff)).to.be.closeTo(4.656542373906925e-10, 1e-24);
    expect(difficultyOf(0x1d00ffff)).to.equal(1);
  });

  it("pairs an odd last merkle node with itself", () => {
    const [a, b, c] = [hex("01".repeat(32)), hex("02".repeat(32)), hex("03".repeat(32))];
    const ab = sha256d(new Uint8Array([...a, ...b]));
    const cc = sha256d(new Uint8Array([...c, ...c]));
    expect(merkleRoot([a, b, c])).to.deep.equal(sha256d(new Uint8Array([...ab, ...cc])));
    expect(merkleRoot([a])).to.deep.equal(a);
  });

  it("encodes BIP-34 heights as Core's script numbers and halves the subsidy every 150 blocks", () => {
    expect(Buffer.from(bip34Prefix(1)).toString("hex")).to.equal("51");
    expect(Buffer.from(bip34Prefix(16)).toString("hex")).to.equal("60");
    expect(Buffer.from(bip34Prefix(17)).toString("hex")).to.equal("0111");
    expect(Buffer.from(bip34Prefix(128)).toString("hex")).to.equal("028000");
    expect(Buffer.from(bip34Prefix(70000)).toString("hex")).to.equal("03701101");
    expect(blockSubsidy(149)).to.equal(5_000_000_000n);
    expect(blockSubsidy(150)).to.equal(2_500_000_000n);
    expect(blockSubsidy(300)).to.equal(1_250_000_000n);
    expect(blockSubsidy(150 * 64)).to.equal(0n);
  });
});
