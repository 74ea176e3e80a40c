/**
 * BOLT 12 signatures: the merkle root and signature digest against BOLT 12's signature test file
 * (test/vectors/bolts/bolt12-signature-test.json, from lightning/bolts bolt12/signature-test.json),
 * the vector invoice request's signature checked with them, and the invoice reader refusing
 * what is not a signed invoice.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { schnorr } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { bolt12MerkleRoot, bolt12SignatureDigest, bolt12StringBytes, decodeBolt12Invoice, encodeBolt12String, readTlvStream } from "../src/index.js";
import { codeOf } from "./decode-outcome.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bolts");
const VECTORS = JSON.parse(readFileSync(join(DIR, "bolt12-signature-test.json"), "utf8")) as
  { comment: string; tlv?: string; bolt12?: string; digest?: string; merkle: string }[];

describe("BOLT 12 signature merkle tree and invoice reader", () => {
  for (const v of VECTORS.filter((x) => x.tlv)) {
    it(`merkle root of ${v.comment}`, () => {
      expect(bytesToHex(bolt12MerkleRoot(readTlvStream(hexToBytes(v.tlv!))))).to.equal(v.merkle);
    });
  }

  it("the vector invoice request: merkle root, signature digest, and Bob's signature verifies over it", () => {
    const v = VECTORS.find((x) => x.bolt12)!;
    const records = readTlvStream(bolt12StringBytes(v.bolt12!, "lnr").bytes);
    expect(bytesToHex(bolt12MerkleRoot(records))).to.equal(v.merkle);
    const digest = bolt12SignatureDigest("invoice_request", records);
    expect(bytesToHex(digest)).to.equal(v.digest);
    const payer = records.find((r) => r.type === 88n)!.value;
    const sig = records.find((r) => r.type === 240n)!.value;
    expect(schnorr.verify(sig, digest, payer.subarray(1))).to.equal(true);
  });

  it("an invoice request is not an invoice (no payment hash), and a string round-trips through the BOLT 12 encoding", () => {
    const v = VECTORS.find((x) => x.bolt12)!;
    const bytes = bolt12StringBytes(v.bolt12!, "lnr").bytes;
    expect(encodeBolt12String("lnr", bytes)).to.equal(v.bolt12);
    expect(codeOf(() => decodeBolt12Invoice(bytes))).to.equal("missing-field");
    expect(codeOf(() => decodeBolt12Invoice(v.bolt12!))).to.equal("encoding");
  });
});
