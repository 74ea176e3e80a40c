import { expect } from "chai";
import { networks } from "bitcoinjs-lib";
import {
  DustOutputError, InvalidAddressError, InvalidAmountError, InvalidDestinationFormatError, WrongNetworkAddressError,
  destinationScript, dustLimitSat, parseAmountWithUnit, parseDestinationEntry,
} from "../src/index.js";

describe("send-many amounts with units, as barkd parses them", () => {
  it("parses the units barkd accepts, with or without a space, in either case", () => {
    expect(parseAmountWithUnit("10000 sat")).to.equal(10_000n);
    expect(parseAmountWithUnit("10000sat")).to.equal(10_000n);
    expect(parseAmountWithUnit("10000 SATS")).to.equal(10_000n);
    expect(parseAmountWithUnit("3 satoshis")).to.equal(3n);
    expect(parseAmountWithUnit("0.0001 BTC")).to.equal(10_000n);
    expect(parseAmountWithUnit("1 btc")).to.equal(100_000_000n);
    expect(parseAmountWithUnit("0.1 mBTC")).to.equal(10_000n);
    expect(parseAmountWithUnit("2 cBTC")).to.equal(2_000_000n);
    expect(parseAmountWithUnit("1.5 uBTC")).to.equal(150n);
    expect(parseAmountWithUnit("7 bits")).to.equal(700n);
  });

  it("refuses a bare number, an unknown unit, sub-satoshi precision and more than 21M BTC", () => {
    for (const bad of ["10000", "10 dollars", "0.000000001 BTC", "1.5 sat", "21000001 BTC", "-5 sat", "sat", ""]) {
      expect(() => parseAmountWithUnit(bad), bad).to.throw(InvalidAmountError, /^bad request: invalid amount/);
    }
  });

  it("splits an entry at its first colon and refuses one without", () => {
    expect(parseDestinationEntry("bcrt1qxyz:5000 sat")).to.deep.equal({ address: "bcrt1qxyz", amountSat: 5000n });
    expect(() => parseDestinationEntry("bcrt1qxyz 5000 sat")).to.throw(InvalidDestinationFormatError, "bad request: invalid destination format, expected address:amount");
    expect(() => parseDestinationEntry("bcrt1qxyz:5000")).to.throw(InvalidAmountError);
  });
});

describe("destination addresses", () => {
  const P2WPKH_REGTEST = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
  const P2TR_MAINNET = "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr";
  const P2TR_SIGNET = "tb1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqlqt9zj";

  it("gives the output script of an address of the wallet's network", () => {
    expect(Buffer.from(destinationScript(P2WPKH_REGTEST, networks.regtest, "regtest")).toString("hex")).to.equal("0014751e76e8199196d454941c45d1b3a323f1433bd6");
  });

  it("refuses another network's address as wrong network, and garbage as invalid", () => {
    expect(() => destinationScript(P2TR_MAINNET, networks.regtest, "regtest")).to.throw(WrongNetworkAddressError, /^bad request: Address is not valid for configured network/);
    expect(() => destinationScript(P2TR_SIGNET, networks.regtest, "regtest")).to.throw(WrongNetworkAddressError);
    expect(() => destinationScript(P2WPKH_REGTEST, networks.bitcoin, "mainnet")).to.throw(WrongNetworkAddressError);
    for (const bad of ["", "hello", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt081"]) {
      expect(() => destinationScript(bad, networks.regtest, "regtest"), bad).to.throw(InvalidAddressError, /^bad request: Invalid destination address/);
    }
  });

  it("dust limits follow Bitcoin Core at 3 sat/vB: P2PKH 546, P2SH 540, P2WPKH 294, P2WSH and P2TR 330", () => {
    const hex = (h: string) => Buffer.from(h, "hex");
    expect(dustLimitSat(hex("76a914" + "00".repeat(20) + "88ac"))).to.equal(546n);
    expect(dustLimitSat(hex("a914" + "00".repeat(20) + "87"))).to.equal(540n);
    expect(dustLimitSat(hex("0014" + "00".repeat(20)))).to.equal(294n);
    expect(dustLimitSat(hex("0020" + "00".repeat(32)))).to.equal(330n);
    expect(dustLimitSat(hex("5120" + "00".repeat(32)))).to.equal(330n);
    expect(new DustOutputError(1n, 330n).status).to.equal(400);
  });
});

describe("destination addresses, taken as barkd's parser takes them", () => {
  const ADDRESS = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";

  it("refuses an address with surrounding whitespace instead of trimming it", () => {
    expect(destinationScript(ADDRESS, networks.regtest, "regtest")).to.have.length(22);
    for (const padded of [` ${ADDRESS}`, `${ADDRESS} `, `\n${ADDRESS}`]) {
      expect(() => destinationScript(padded, networks.regtest, "regtest"), JSON.stringify(padded)).to.throw(InvalidAddressError);
    }
    expect(parseDestinationEntry(` ${ADDRESS}:1000 sat`).address).to.equal(` ${ADDRESS}`);
  });

  it("refuses a destination longer than any address before decoding it (base58 decoding is quadratic)", () => {
    // the message names the length: the refusal came from the length check, not from decoding
    expect(() => destinationScript("1".repeat(200_000), networks.regtest, "regtest")).to.throw(InvalidAddressError, "longer than 90 characters");
    expect(() => destinationScript(`bcrt1q${"q".repeat(85)}`, networks.regtest, "regtest")).to.throw(InvalidAddressError, "longer than 90 characters");
  });
});
