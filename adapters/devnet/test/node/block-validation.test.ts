import { expect } from "chai";
import { sha256 } from "@noble/hashes/sha2.js";
import { encodeTx } from "../../src/consensus/index.js";
import { REGTEST_BITS, encodeBlock, grindNonce, merkleRoot, witnessCommitmentScript, type BlockHeader } from "../../src/node/block.js";
import { validateBlock } from "../../src/node/block-validator.js";
import { internalFromDisplay, sha256d } from "../../src/node/bytes.js";
import { ChainState } from "../../src/node/chain-state.js";
import { buildCoinbase } from "../../src/node/coinbase.js";
import { BlockValidationError, DevnetNode } from "../../src/node/devnet-node.js";
import { TestKey, buildTx, refusal } from "./tx-kit.js";

/** A chain state replaying a node's blocks, to try hand-made blocks on top. */
function replay(node: DevnetNode): ChainState {
  const chain = new ChainState();
  for (let h = 0; h <= node.tipHeight(); h++) chain.connect(validateBlock(chain, node.getBlock(node.blockHashAt(h)!)!.raw));
  return chain;
}

function craft(chain: ChainState, opts: { value?: bigint; height?: number; prev?: string; time?: number; badMerkle?: boolean }): Uint8Array {
  const height = opts.height ?? chain.height + 1;
  const commitment = witnessCommitmentScript([new Uint8Array(32)], new Uint8Array(32));
  const cb = buildCoinbase(height, new TestKey("crafter").wpkh.script, opts.value ?? 2_500_000_000n, commitment);
  const header: BlockHeader = grindNonce({
    version: 0x20000000,
    prevHash: internalFromDisplay(opts.prev ?? chain.tip!.hash),
    merkleRoot: opts.badMerkle ? new Uint8Array(32) : merkleRoot([sha256d(encodeTx(cb, false))]),
    time: opts.time ?? chain.tip!.header.time + 600,
    bits: REGTEST_BITS,
    nonce: 0,
  });
  return encodeBlock(header, [encodeTx(cb, true)]);
}

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof BlockValidationError) return err.reason;
    throw err;
  }
  throw new Error("block was accepted");
}

describe("devnet node: block validation", function () {
  let node: DevnetNode;
  let chain: ChainState;
  before(() => {
    node = new DevnetNode({ seed: "blocks-test", premineBlocks: 160 });
    chain = replay(node);
  });

  it("replays the node's own blocks to the same tip", () => {
    expect(chain.tip!.hash).to.equal(node.tipHash());
  });

  it("refuses a coinbase paying more than subsidy plus fees", () => {
    expect(reasonOf(() => validateBlock(chain, craft(chain, { value: 2_500_000_001n })))).to.equal("bad-cb-amount");
    expect(() => validateBlock(chain, craft(chain, { value: 2_500_000_000n }))).to.not.throw();
  });

  it("refuses a wrong BIP-34 height, a wrong parent, a bad merkle root and an old timestamp", () => {
    expect(reasonOf(() => validateBlock(chain, craft(chain, { height: chain.height + 2 })))).to.equal("bad-cb-height");
    expect(reasonOf(() => validateBlock(chain, craft(chain, { prev: chain.blockAt(3)!.hash })))).to.equal("bad-prevblk");
    expect(reasonOf(() => validateBlock(chain, craft(chain, { badMerkle: true })))).to.equal("bad-txnmrklroot");
    expect(reasonOf(() => validateBlock(chain, craft(chain, { time: chain.tip!.medianTimePast })))).to.equal("time-too-old");
  });

  it("refuses a CSV-locked spend before its relative lock has passed, and accepts it after", () => {
    const alice = new TestKey("csv-alice");
    // P2WSH: 5 OP_CHECKSEQUENCEVERIFY OP_DROP OP_1
    const witnessScript = Uint8Array.of(0x55, 0xb2, 0x75, 0x51);
    const p2wsh = Uint8Array.from([0x00, 0x20, ...sha256(witnessScript)]);
    const txid = node.faucet(p2wsh, 20_000n);
    node.mine(1);
    const vout = node.getTransaction(txid)!.vout.findIndex((o) => o.amountSat === 20_000n);
    const coin = { txid, vout, amount: 20_000n, script: p2wsh, witness: [witnessScript] };
    const spend = buildTx({ inputs: [{ ...coin, sequence: 5 }], outputs: [{ script: alice.wpkh.script, amount: 19_000n }] });
    expect(refusal(() => node.submitTransaction(spend.hex)).reason).to.equal("non-BIP68-final");
    expect(() => node.mineTransactions([spend.hex])).to.throw(BlockValidationError, "bad-txns-nonfinal");
    const shortSequence = buildTx({ inputs: [{ ...coin, sequence: 4 }], outputs: [{ script: alice.wpkh.script, amount: 19_000n }] });
    node.mine(3);
    // confirmed at depth 4: a 5-block lock still holds, a 4-block sequence fails the script's CSV
    expect(refusal(() => node.submitTransaction(spend.hex)).reason).to.equal("non-BIP68-final");
    expect(refusal(() => node.submitTransaction(shortSequence.hex)).reason).to.equal("mempool-script-verify-flag-failed (Locktime requirement not satisfied)");
    node.mine(1);
    expect(node.submitTransaction(spend.hex)).to.equal(spend.txid);
  });

  it("refuses a transaction whose absolute locktime is in the future", () => {
    const alice = new TestKey("cltv-alice");
    const txid = node.faucet(alice.wpkh.script, 20_000n);
    node.mine(1);
    const vout = node.getTransaction(txid)!.vout.findIndex((o) => o.amountSat === 20_000n);
    const coin = { txid, vout, amount: 20_000n, script: alice.wpkh.script, key: alice };
    const locked = buildTx({ locktime: node.tipHeight() + 1, inputs: [coin], outputs: [{ script: alice.tr.script, amount: 19_000n }] });
    expect(refusal(() => node.submitTransaction(locked.hex)).reason).to.equal("non-final");
    expect(() => node.mineTransactions([locked.hex])).to.throw(BlockValidationError, "bad-txns-nonfinal");
    node.mine(1);
    expect(node.submitTransaction(locked.hex)).to.equal(locked.txid);
  });
});
