import { expect } from "chai";
import { sha256 } from "@noble/hashes/sha2.js";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { TestKey, buildTx, fund, refusal } from "./tx-kit.js";

function dsha(b: Uint8Array): Uint8Array {
  return sha256(sha256(b));
}

describe("devnet node: chain", function () {
  let node: DevnetNode;
  before(() => {
    node = new DevnetNode({ seed: "chain-test" });
  });

  it("starts from the real regtest genesis block and premines 110 blocks to the faucet", () => {
    expect(node.genesisHash()).to.equal("0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206");
    expect(node.blockHashAt(0)).to.equal(node.genesisHash());
    expect(node.tipHeight()).to.equal(110);
    expect(node.tipHash()).to.equal(node.blockHashAt(110));
    const faucetCoins = node.utxosForScript(node.faucetAddress());
    expect(faucetCoins).to.have.length(110);
    expect(faucetCoins.every((c) => c.amountSat === 5_000_000_000n)).to.equal(true);
  });

  it("serves headers whose hash, merkle root and proof of work check out from the raw bytes", () => {
    const hash = node.blockHashAt(5)!;
    const block = node.getBlock(hash)!;
    expect(block.height).to.equal(5);
    expect(block.prevHash).to.equal(node.blockHashAt(4));
    expect(block.nextHash).to.equal(node.blockHashAt(6));
    expect(block.bits).to.equal("207fffff");
    expect(block.txCount).to.equal(1);
    const headerHash = Buffer.from(dsha(block.rawHeader)).reverse().toString("hex");
    expect(headerHash).to.equal(hash);
    expect(BigInt("0x" + headerHash) <= 0x7fffffn << 232n).to.equal(true);
    // single-transaction block: merkle root = the coinbase txid
    expect(block.merkleRoot).to.equal(block.txids[0]);
    expect(block.raw.subarray(0, 80)).to.deep.equal(block.rawHeader);
    expect(block.size).to.equal(block.raw.length);
    expect(block.weight).to.equal(block.strippedSize * 3 + block.size);
    expect(block.chainWork).to.equal((6n * 2n).toString(16).padStart(64, "0"));
  });

  it("puts the BIP-34 height first in every coinbase and commits to witnesses", () => {
    const cb = node.getTransaction(node.getBlock(node.blockHashAt(20)!)!.txids[0]!)!;
    expect(cb.isCoinbase).to.equal(true);
    expect(Buffer.from(cb.vin[0]!.scriptSig.subarray(0, 2)).toString("hex")).to.equal("0114"); // push 1 byte: 20
    const commitment = cb.vout.find((o) => Buffer.from(o.scriptPubKey.subarray(0, 6)).toString("hex") === "6a24aa21a9ed");
    expect(commitment, "witness commitment output").to.not.equal(undefined);
    expect(cb.vin[0]!.witness).to.have.length(1);
  });

  it("advances block times by the fake clock and keeps them above median time past", () => {
    const a = node.getBlockHeader(node.blockHashAt(50)!)!;
    const b = node.getBlockHeader(node.blockHashAt(51)!)!;
    expect(b.time - a.time).to.equal(600);
    expect(b.medianTimePast).to.be.lessThan(b.time);
  });

  it("mines to a given address, and halves the subsidy at height 150", () => {
    const key = new TestKey("miner");
    const hashes = node.mine(45, key.wpkh.address);
    expect(hashes).to.have.length(45);
    expect(node.tipHeight()).to.equal(155);
    const at149 = node.getTransaction(node.getBlock(node.blockHashAt(149)!)!.txids[0]!)!;
    const at150 = node.getTransaction(node.getBlock(node.blockHashAt(150)!)!.txids[0]!)!;
    expect(at149.vout[0]!.amountSat).to.equal(5_000_000_000n);
    expect(at150.vout[0]!.amountSat).to.equal(2_500_000_000n);
    expect(node.utxosForScript(key.wpkh.script)).to.have.length(45);
  });

  it("refuses to spend a coinbase before 100 confirmations and accepts it at 100", () => {
    const key = new TestKey("maturity");
    const [hash] = node.mine(1, key.wpkh.address);
    const cbTxid = node.getBlock(hash!)!.txids[0]!;
    const amount = node.getTransaction(cbTxid)!.vout[0]!.amountSat;
    const spend = buildTx({
      inputs: [{ txid: cbTxid, vout: 0, amount, script: key.wpkh.script, key }],
      outputs: [{ script: key.wpkh.script, amount: amount - 1000n }],
    });
    node.mine(98);
    // next block would be at depth 99
    expect(refusal(() => node.submitTransaction(spend.hex)).reason).to.equal("bad-txns-premature-spend-of-coinbase");
    node.mine(1);
    expect(node.submitTransaction(spend.hex)).to.equal(spend.txid);
  });

  it("confirms a faucet payment and reports its status and position", () => {
    const key = new TestKey("status");
    const coin = fund(node, key, 123_456n);
    const status = node.getTxStatus(coin.txid)!;
    expect(status.confirmed).to.equal(true);
    expect(status.blockHeight).to.equal(node.tipHeight());
    expect(status.blockHash).to.equal(node.tipHash());
    expect(node.getBlock(node.tipHash())!.txids[status.position!]).to.equal(coin.txid);
    expect(node.getTxStatus("00".repeat(32))).to.equal(undefined);
  });
});
