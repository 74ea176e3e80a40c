import { createHash } from "node:crypto";
import { expect } from "chai";
import {
  assertHash,
  ChainSourceInvalidRequestError,
  ChainSourceProtocolError,
  ChainSourceRejectedError,
  feeRateForTarget,
  networkFromBitcoindChain,
  networkFromGenesisHash,
  parseBlockHeaderHex,
  parseSubmitPackageResult,
  redactUrl,
} from "../../src/chain/index.js";

// Bitcoin Core's regtest genesis block header.
const REGTEST_GENESIS_HEADER =
  "0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4adae5494dffff7f2002000000";
const REGTEST_GENESIS_HASH = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";

describe("chain source helpers", () => {
  it("parses a serialized header into its fields", () => {
    const h = parseBlockHeaderHex(REGTEST_GENESIS_HEADER, REGTEST_GENESIS_HASH, 0)!;
    const digest = createHash("sha256").update(createHash("sha256").update(Buffer.from(REGTEST_GENESIS_HEADER, "hex")).digest()).digest();
    expect(Buffer.from(digest).reverse().toString("hex")).to.equal(REGTEST_GENESIS_HASH);
    expect(h).to.include({ version: 1, previousBlockHash: null, time: 1296688602, bits: 0x207fffff, nonce: 2, height: 0 });
    expect(h.merkleRoot).to.equal("4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b");
    expect(parseBlockHeaderHex("00", REGTEST_GENESIS_HASH, 0)).to.equal(null);
  });

  it("recognises networks by genesis hash and by bitcoind chain name", () => {
    expect(networkFromGenesisHash(REGTEST_GENESIS_HASH)).to.equal("regtest");
    expect(networkFromGenesisHash("000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f")).to.equal("mainnet");
    expect(networkFromGenesisHash("11".repeat(32))).to.equal(null);
    expect(networkFromBitcoindChain("main")).to.equal("mainnet");
    expect(networkFromBitcoindChain("testnet4")).to.equal("testnet4");
    expect(networkFromBitcoindChain("liquid")).to.equal(null);
  });

  it("picks the rate of the largest target not above the one asked, else the smallest", () => {
    const rates = new Map([[1, 30], [3, 12], [6, 4], [144, 1]]);
    expect(feeRateForTarget(rates, 1)).to.equal(30);
    expect(feeRateForTarget(rates, 2)).to.equal(30);
    expect(feeRateForTarget(rates, 5)).to.equal(12);
    expect(feeRateForTarget(rates, 1000)).to.equal(1);
    expect(feeRateForTarget(new Map([[6, 4]]), 1)).to.equal(4);
    expect(feeRateForTarget(new Map(), 3)).to.equal(null);
  });

  it("removes credentials and query from URLs shown in messages", () => {
    expect(redactUrl("http://user:hunter2@127.0.0.1:18443/wallet/x?token=t")).to.equal("http://127.0.0.1:18443/wallet/x");
    expect(redactUrl("https://blockstream.info/api/")).to.equal("https://blockstream.info/api");
    expect(redactUrl("not a url hunter2")).to.equal("<invalid url>");
  });

  it("validates hashes before anything is sent", () => {
    expect(() => assertHash("s", "ab".repeat(32))).to.not.throw();
    expect(() => assertHash("s", "../etc")).to.throw(ChainSourceInvalidRequestError);
  });

  it("reads submitpackage results: txids on success, the first error as the rejection reason", () => {
    const ok = { package_msg: "success", "tx-results": { w1: { txid: "aa".repeat(32), vsize: 100 }, w2: { txid: "bb".repeat(32), vsize: 110 } }, "replaced-transactions": [] };
    expect(parseSubmitPackageResult("s", ok, 2).txids).to.deep.equal(["aa".repeat(32), "bb".repeat(32)]);
    const failed = { package_msg: "transaction failed", "tx-results": { w1: { txid: "aa".repeat(32), error: "min relay fee not met, 0 < 110" } } };
    expect(() => parseSubmitPackageResult("s", failed, 1)).to.throw(ChainSourceRejectedError, /min relay fee not met/);
    expect(() => parseSubmitPackageResult("s", { nope: 1 }, 1)).to.throw(ChainSourceProtocolError);
  });
});
