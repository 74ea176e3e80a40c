import { expect } from "chai";
import { arkVectors, compareVector, expectVector } from "./ark-vectors.js";
import { fromHex, toHex, utf8 } from "../src/encoding.js";
import { sha256 } from "../src/hashes.js";
import { pubkeyFromSecret, toXOnly } from "../src/keys.js";
import { KeyDerivationError, WalletKeys, mnemonicToSeed } from "../src/wallet-keys.js";
import { p2trAddress, taprootOutput } from "../src/taproot.js";
import type { Network } from "../src/network.js";

/** A key vector `{ secret_key, public_key, xonly_public_key }`: the secret key is the input. */
function checkKey(k: any): void {
  const pk = pubkeyFromSecret(fromHex(k.secret_key));
  expectVector(toHex(pk), k, "public_key");
  expectVector(toHex(toXOnly(pk)), k, "xonly_public_key");
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
      expectVector(derived, u, "cosign_secret_key");
      expectVector(derived, u, "unlock_hash");
    }
  });
});

describe("key derivation (vector group `key_derivation`, bark's key paths)", () => {
  const kd = arkVectors.key_derivation;
  const wallet = WalletKeys.fromMnemonic(kd.mnemonic);

  it("derives the BIP-39 seed with the empty passphrase", () => {
    expectVector(toHex(mnemonicToSeed(kd.mnemonic)), kd, "bip39_seed");
  });

  it("wallet fingerprint is HASH160 of m/350' (not the root fingerprint)", () => {
    expectVector(wallet.rootFingerprint, kd, "bip32_root_fingerprint");
    expectVector(wallet.fingerprint, kd, "wallet_fingerprint");
    expect(wallet.fingerprint).to.not.equal(wallet.rootFingerprint);
    // The vector's description of the fingerprint names the rule this test checks.
    compareVector(kd, "wallet_fingerprint_what", (what: string) => {
      expect(what).to.be.a("string");
      expect(what).to.include("hash160").and.to.include("m/350'");
    });
  });

  it("derives VTXO keys m/350'/0'/i, the mailbox key and the recovery mailbox key", () => {
    kd.vtxo_keys.forEach((v: any, i: number) => {
      const k = wallet.vtxoKey(i);
      expectVector(k.path, v, "path");
      expectVector(toHex(k.secretKey), v, "secret_key");
      expectVector(toHex(k.publicKey), v, "public_key");
    });
    for (const [k, v] of [
      [wallet.mailboxKey(), kd.mailbox_key],
      [wallet.recoveryMailboxKey(), kd.recovery_mailbox_key],
    ] as const) {
      expectVector(k.path, v, "path");
      expectVector(toHex(k.secretKey), v, "secret_key");
      expectVector(toHex(k.publicKey), v, "public_key");
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
      expectVector(k.path, v, "path");
      expectVector(toHex(k.publicKey), v, "public_key");
      expectVector(p2trAddress(taprootOutput(toXOnly(k.publicKey)).outputKey, network), v, "address");
    }
  });

  it("refuses an invalid mnemonic with a typed error", () => {
    expect(() => WalletKeys.fromMnemonic("abandon abandon abandon")).to.throw(KeyDerivationError);
  });
});
