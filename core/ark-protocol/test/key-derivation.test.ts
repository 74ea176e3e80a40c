import { expect } from "chai";
import { arkVectors } from "./ark-vectors.js";
import { fromHex, toHex, utf8 } from "../src/encoding.js";
import { sha256 } from "../src/hashes.js";
import { pubkeyFromSecret, toXOnly } from "../src/keys.js";
import { KeyDerivationError, WalletKeys, mnemonicToSeed } from "../src/wallet-keys.js";
import { p2trAddress, taprootOutput } from "../src/taproot.js";
import type { Network } from "../src/network.js";

interface KeyVector {
  secret_key: string;
  public_key: string;
  xonly_public_key: string;
}

function checkKey(k: KeyVector): void {
  const pk = pubkeyFromSecret(fromHex(k.secret_key));
  expect(toHex(pk)).to.equal(k.public_key);
  expect(toHex(toXOnly(pk))).to.equal(k.xonly_public_key);
}

describe("keys (vector group `keys`)", () => {
  it("every listed secret key yields its listed compressed and x-only pubkey", () => {
    const keys = arkVectors.keys;
    for (const name of Object.keys(keys.vtxo_vector_generation)) checkKey(keys.vtxo_vector_generation[name]);
    for (const name of ["dummy_user_key", "dummy_server_key", "policy_test_user_key", "policy_test_server_key", "package_test_server_key", "package_test_alice_key", "package_test_bob_key", "address_test_user_key"]) {
      checkKey(keys[name]);
    }
  });

  it("round co-users: cosign key and unlock hash are sha256 of the ASCII hex of their secret key", () => {
    for (const u of arkVectors.keys.vtxo_vector_round_other_users) {
      checkKey(u);
      const derived = toHex(sha256(utf8(u.secret_key)));
      expect(derived).to.equal(u.cosign_secret_key);
      expect(derived).to.equal(u.unlock_hash);
    }
  });
});

describe("key derivation (vector group `key_derivation`, bark's key paths)", () => {
  const kd = arkVectors.key_derivation;
  const wallet = WalletKeys.fromMnemonic(kd.mnemonic);

  it("derives the BIP-39 seed with the empty passphrase", () => {
    expect(toHex(mnemonicToSeed(kd.mnemonic))).to.equal(kd.bip39_seed);
  });

  it("wallet fingerprint is HASH160 of m/350' (not the root fingerprint)", () => {
    expect(wallet.rootFingerprint).to.equal(kd.bip32_root_fingerprint);
    expect(wallet.fingerprint).to.equal(kd.wallet_fingerprint);
    expect(wallet.fingerprint).to.not.equal(wallet.rootFingerprint);
    expect(kd.wallet_fingerprint_what).to.be.a("string");
  });

  it("derives VTXO keys m/350'/0'/i, the mailbox key and the recovery mailbox key", () => {
    kd.vtxo_keys.forEach((v: { path: string; secret_key: string; public_key: string }, i: number) => {
      const k = wallet.vtxoKey(i);
      expect(k.path).to.equal(v.path);
      expect(toHex(k.secretKey)).to.equal(v.secret_key);
      expect(toHex(k.publicKey)).to.equal(v.public_key);
    });
    for (const [k, v] of [
      [wallet.mailboxKey(), kd.mailbox_key],
      [wallet.recoveryMailboxKey(), kd.recovery_mailbox_key],
    ] as const) {
      expect(k.path).to.equal(v.path);
      expect(toHex(k.secretKey)).to.equal(v.secret_key);
      expect(toHex(k.publicKey)).to.equal(v.public_key);
    }
  });

  it("derives BIP-86 on-chain keys and addresses per network (coin type 0 on mainnet, 1 elsewhere)", () => {
    const cases: Array<[Network, string]> = [
      ["bitcoin", "mainnet"],
      ["signet", "testnet_signet"],
      ["regtest", "regtest"],
    ];
    for (const [network, key] of cases) {
      const v = kd.onchain_bip86_first_receive[key];
      const k = wallet.onchainKey(network, 0);
      expect(k.path).to.equal(v.path);
      expect(toHex(k.publicKey)).to.equal(v.public_key);
      expect(p2trAddress(taprootOutput(toXOnly(k.publicKey)).outputKey, network)).to.equal(v.address);
    }
  });

  it("refuses an invalid mnemonic with a typed error", () => {
    expect(() => WalletKeys.fromMnemonic("abandon abandon abandon")).to.throw(KeyDerivationError);
  });
});
