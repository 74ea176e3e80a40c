import { expect } from "chai";
import { BIP32Factory } from "bip32";
import * as ecc from "tiny-secp256k1";
import { masterKey } from "@tender/plugin-wallet";
import { Bip86Keychain } from "../src/index.js";
import { readVector } from "./vectors.js";

interface Bip86Vectors {
  mnemonic: string;
  rootpriv: string;
  addresses: { path: string; internal_key: string; scriptPubKey: string; address: string }[];
}
interface ArkKeyVectors {
  key_derivation: { mnemonic: string; onchain_bip86_first_receive: Record<"mainnet" | "testnet_signet" | "regtest", { public_key: string; address: string }> };
}

describe("BIP-86 keychain tr(m/86'/c'/0'/0/*), external chain only", () => {
  const bip86 = readVector<Bip86Vectors>("bips/bip-0086/bip86-test-vectors.json");
  const ark = readVector<ArkKeyVectors>("ark-vectors.json").key_derivation;

  it("derives the BIP-86 published receive addresses on mainnet (internal key, script, address)", () => {
    const master = BIP32Factory(ecc).fromBase58(bip86.rootpriv);
    const chain = new Bip86Keychain(master, "mainnet");
    const receive = bip86.addresses.filter((a) => a.path.startsWith("m/86'/0'/0'/0/"));
    expect(receive.length).to.be.greaterThan(1);
    for (const v of receive) {
      const k = chain.key(Number(v.path.split("/").pop()));
      expect(Buffer.from(k.internalKey).toString("hex")).to.equal(v.internal_key);
      expect(k.scriptHex).to.equal(v.scriptPubKey);
      expect(k.address).to.equal(v.address);
    }
  });

  it("uses coin type 1 off mainnet: the reference vectors for signet (tb1p…) and regtest (bcrt1p…)", () => {
    const master = masterKey(ark.mnemonic);
    const first = ark.onchain_bip86_first_receive;
    expect(new Bip86Keychain(master, "mainnet").key(0).address).to.equal(first.mainnet.address);
    expect(new Bip86Keychain(master, "signet").key(0).address).to.equal(first.testnet_signet.address);
    expect(new Bip86Keychain(master, "mutinynet").key(0).address).to.equal(first.testnet_signet.address);
    expect(new Bip86Keychain(master, "regtest").key(0).address).to.equal(first.regtest.address);
  });

  it("finds the index of a derived script and nothing else", () => {
    const chain = new Bip86Keychain(masterKey(ark.mnemonic), "regtest");
    chain.deriveUpTo(5);
    expect(chain.indexOfScript(chain.key(3).scriptHex)).to.equal(3);
    expect(chain.indexOfScript("5120" + "00".repeat(32))).to.equal(undefined);
  });
});
