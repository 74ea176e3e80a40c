import { expect } from "chai";
import { innerScripts } from "../../src/esplora/esplora-json.js";
import { coreAsm, esploraAsm } from "../../src/esplora/script-asm.js";
import { btc, satFromBtc, toCoreJson } from "../../src/rpc/core-amount.js";
import { targetFromBits } from "../../src/rpc/core-json.js";
import { withDescriptorChecksum } from "../../src/rpc/descriptor-checksum.js";
import { fromHex as bytes } from "../../src/consensus/bytes.js";

describe("devnet face encodings", () => {
  it("appends the descriptor checksums Bitcoin Core prints", () => {
    // Checksums as printed by Bitcoin Core for these regtest addresses.
    expect(withDescriptorChecksum("addr(bcrt1qtfjrpdwcxa7et498ead2gwxrnscl8eaaxvdxzp)")).to.equal("addr(bcrt1qtfjrpdwcxa7et498ead2gwxrnscl8eaaxvdxzp)#hjw9tktm");
    expect(withDescriptorChecksum("addr(bcrt1qrljpc5ffr3rj4p0u5hm709kkfcumx8unsndnzs)")).to.equal("addr(bcrt1qrljpc5ffr3rj4p0u5hm709kkfcumx8unsndnzs)#ad9swys7");
    expect(() => withDescriptorChecksum("addr(\u00e9)")).to.throw(RangeError);
  });

  it("prints amounts with exactly eight decimals and parses them back", () => {
    expect(toCoreJson({ a: btc(150_000n), b: btc(5_000_000_000n), c: [btc(1n)], n: 3n })).to.equal('{"a":0.00150000,"b":50.00000000,"c":[0.00000001],"n":3}');
    expect(satFromBtc(0.0015)).to.equal(150_000n);
    expect(satFromBtc("21000000")).to.equal(2_100_000_000_000_000n);
    expect(satFromBtc(-1)).to.equal(null);
    expect(satFromBtc("1e3")).to.equal(null);
  });

  it("disassembles scripts in Esplora's and Core's styles", () => {
    const p2wpkh = bytes("0014751e76e8199196d454941c45d1b3a323f1433bd6");
    expect(esploraAsm(p2wpkh)).to.equal("OP_0 OP_PUSHBYTES_20 751e76e8199196d454941c45d1b3a323f1433bd6");
    expect(coreAsm(p2wpkh)).to.equal("0 751e76e8199196d454941c45d1b3a323f1433bd6");
    const csv = bytes("029000b275"); // <144> OP_CSV OP_DROP
    expect(esploraAsm(csv)).to.equal("OP_PUSHBYTES_2 9000 OP_CSV OP_DROP");
    expect(coreAsm(csv)).to.equal("144 OP_CHECKSEQUENCEVERIFY OP_DROP");
    expect(esploraAsm(bytes("51024e73"))).to.equal("OP_PUSHNUM_1 OP_PUSHBYTES_2 4e73");
    expect(esploraAsm(bytes("4c05ab"))).to.equal("<unexpected end>");
    expect(coreAsm(bytes("4c05ab"))).to.equal("[error]");
  });

  it("expands compact bits into the 256-bit target", () => {
    expect(targetFromBits("207fffff")).to.equal(`7fffff${"0".repeat(58)}`);
    expect(targetFromBits("1d00ffff")).to.equal(`00000000ffff${"0".repeat(52)}`);
  });

  it("names the inner scripts of P2SH, P2WSH and taproot script-path inputs as Esplora does", () => {
    const script = bytes("029000b275"); // <144> OP_CSV OP_DROP
    const asm = "OP_PUSHBYTES_2 9000 OP_CSV OP_DROP";
    expect(innerScripts("v0_p2wsh", new Uint8Array(), [bytes("3044"), script])).to.deep.equal({ inner_witnessscript_asm: asm });
    const wshProgram = `0020${"11".repeat(32)}`;
    expect(innerScripts("p2sh", bytes(`22${wshProgram}`), [script])).to.deep.equal({ inner_redeemscript_asm: `OP_0 OP_PUSHBYTES_32 ${"11".repeat(32)}`, inner_witnessscript_asm: asm });
    const control = bytes(`c0${"22".repeat(32)}`);
    expect(innerScripts("v1_p2tr", new Uint8Array(), [bytes("aa".repeat(64)), script, control])).to.deep.equal({ inner_witnessscript_asm: asm });
    expect(innerScripts("v1_p2tr", new Uint8Array(), [bytes("aa".repeat(64)), script, control, bytes("50ff")])).to.deep.equal({ inner_witnessscript_asm: asm });
    expect(innerScripts("v1_p2tr", new Uint8Array(), [bytes("aa".repeat(64))])).to.deep.equal({});
    expect(innerScripts("v0_p2wpkh", new Uint8Array(), [bytes("3044"), bytes("02".repeat(33))])).to.deep.equal({});
  });
});
