import { expect } from "chai";
import fc from "fast-check";
import { arkVectors, compareVector, expectVector } from "./ark-vectors.js";
import { arbPubkey, arbSecretKey, arbUserPolicy } from "./arbitraries.js";
import { fromHex, toHex } from "../src/encoding.js";
import { AddressError, ProtocolDecodeError } from "../src/errors.js";
import { encodePolicy } from "../src/policy.js";
import { pubkeyFromSecret } from "../src/keys.js";
import { WalletKeys } from "../src/wallet-keys.js";
import { bech32m } from "@scure/base";
import {
  arkId,
  blindMailboxId,
  checkArkoorAddress,
  decodeArkAddress,
  decodeArkAddressPayload,
  encodeArkAddress,
  encodeArkAddressPayload,
  unblindMailboxId,
  walletArkAddress,
  type ArkAddress,
} from "../src/address.js";

function expectDecoded(addr: ArkAddress, d: any): void {
  expectVector(addr.testnet, d, "testnet");
  // version group 1 is the bech32 character "p"; the address string itself is checked by the caller
  compareVector(d, "version_char", (ch: string) => expect(ch).to.equal("p"));
  expectVector(toHex(addr.arkId), d, "ark_id_hex");
  expectVector(addr.policy.type, d.policy, "type");
  expectVector(toHex(addr.policy.userPubkey), d.policy, "user_pubkey");
  expectVector(toHex(encodePolicy(addr.policy)), d.policy, "encoded_hex");
  expect(addr.deliveries.length).to.equal(d.deliveries.length);
  d.deliveries.forEach((dv: any, i: number) => {
    const got = addr.deliveries[i]!;
    // delivery type byte 1 is the server mailbox
    compareVector(dv, "type", (type: number) => {
      expect(type).to.equal(1);
      expect(got.type).to.equal("server-mailbox");
    });
    if (got.type === "server-mailbox") expectVector(toHex(got.blindedId), dv, "data_hex");
  });
  expectVector(toHex(encodeArkAddressPayload(addr)), d, "payload_hex");
}

describe("Ark addresses (vector group `addresses`, bark's `ark::address`)", () => {
  const cases = arkVectors.addresses.cases;

  cases.forEach((c: any, i: number) => {
    it(`case ${i}: decodes to the listed payload and re-encodes to the same string`, () => {
      const addr = decodeArkAddress(c.address);
      expect(bech32m.decode(c.address, false).words[0]).to.equal(1);
      expect(c.address.split("1")[0]!.length + 1 + 1).to.be.greaterThan(1);
      expect(c.address[c.address.indexOf("1") + 1]).to.equal(c.decoded.version_char);
      expectDecoded(addr, c.decoded);
      const encoded = encodeArkAddress(addr);
      expectVector(encoded, c, "address");
      expectVector(encoded[encoded.indexOf("1") + 1], c.decoded, "version_char");
      expect(decodeArkAddressPayload(fromHex(c.decoded.payload_hex), c.decoded.testnet)).to.deep.equal(addr);
    });
  });

  it("case 0: built from its parts (server, mailbox, user secret) with the blinded mailbox id", () => {
    const c = cases[0];
    const userSecret = fromHex(c.user_vtxo_secret_key);
    const blinded = blindMailboxId(fromHex(c.mailbox_id), fromHex(c.server_mailbox_pubkey), userSecret);
    expectVector(toHex(blinded), c, "expected_blinded_mailbox_id");
    expectVector(toHex(arkId(fromHex(c.server_pubkey))), c, "ark_id");
    const addr = walletArkAddress({
      network: "bitcoin",
      serverPubkey: fromHex(c.server_pubkey),
      serverMailboxPubkey: fromHex(c.server_mailbox_pubkey),
      mailboxId: fromHex(c.mailbox_id),
      vtxoPubkey: pubkeyFromSecret(userSecret),
      vtxoSecretKey: userSecret,
    });
    expectVector(encodeArkAddress(addr), c, "address");
    expectVector(encodeArkAddress({ ...addr, testnet: true }), cases[1], "address");
  });

  it("case 2 (reference doc example): its ArkId is the server's", () => {
    expectVector(toHex(arkId(fromHex(cases[2].server_pubkey))), cases[2].decoded, "ark_id_hex");
  });

  it("decode failure: oversized policy length field", () => {
    const f = arkVectors.addresses.decode_failures[0];
    expect(() => decodeArkAddressPayload(fromHex(f.payload_hex), false)).to.throw(AddressError, /policy field exceeds maximum length/);
    const words = [1, ...bech32m.toWords(fromHex(f.payload_hex))];
    const s = bech32m.encode("ark", words, false);
    let err: unknown;
    try {
      decodeArkAddress(s);
      expect.fail("decoded an invalid address");
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(AddressError);
    // the vector's error names the refusal kind in its first word ("Invalid …")
    compareVector(f, "error", (error: string) => {
      expect(error).to.match(/^Invalid/);
      expect((err as AddressError).reason).to.equal(error.split(" ")[0]!.toLowerCase());
    });
  });

  it("decode failure: version 0 is an Arkade address and is refused", () => {
    const f = arkVectors.addresses.decode_failures[1];
    const payload = fromHex(cases[0].decoded.payload_hex);
    const s = bech32m.encode("ark", [0, ...bech32m.toWords(payload)], false);
    compareVector(f, "error", (error: string) => expect(() => decodeArkAddress(s)).to.throw(AddressError, new RegExp(error)));
    expect(() => decodeArkAddress(bech32m.encode("ark", [2, ...bech32m.toWords(payload)], false))).to.throw(AddressError, /unknown Ark address version/);
  });

  it("decode failure: unknown HRP", () => {
    const f = arkVectors.addresses.decode_failures[2];
    const payload = fromHex(cases[0].decoded.payload_hex);
    const s = bech32m.encode("bark", [1, ...bech32m.toWords(payload)], false);
    let err: unknown;
    try {
      decodeArkAddress(s);
      expect.fail("decoded an address with an unknown HRP");
    } catch (e) {
      err = e;
    }
    compareVector(f, "error", (error: string) => expect((err as AddressError).reason).to.equal(error.toLowerCase()));
  });

  it("send checks: network, different server, policy kind, delivery", () => {
    const c = cases[0];
    const addr = decodeArkAddress(c.address);
    const server = fromHex(c.server_pubkey);
    expect(checkArkoorAddress(addr, { network: "bitcoin", serverPubkey: server })).to.have.length(1);
    const reason = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as AddressError).reason;
      }
      return "none";
    };
    expect(reason(() => checkArkoorAddress(addr, { network: "signet", serverPubkey: server }))).to.equal("different-network");
    expect(reason(() => checkArkoorAddress(decodeArkAddress(cases[1].address), { network: "bitcoin", serverPubkey: server }))).to.equal("different-network");
    const otherServer = fromHex(cases[2].server_pubkey);
    expect(() => checkArkoorAddress(addr, { network: "bitcoin", serverPubkey: otherServer })).to.throw(AddressError, "Ark address is for different server");
    const htlc = { ...addr, policy: { type: "server-htlc-send-v1" as const, userPubkey: addr.policy.userPubkey, paymentHash: new Uint8Array(32), htlcExpiry: 10 } };
    expect(reason(() => checkArkoorAddress(htlc, { network: "bitcoin", serverPubkey: server }))).to.equal("policy-not-allowed");
    expect(reason(() => checkArkoorAddress({ ...addr, deliveries: [] }, { network: "bitcoin", serverPubkey: server }))).to.equal("no-delivery");
    expect(() => encodeArkAddress({ ...addr, deliveries: [] })).to.throw(AddressError);
    const unknownOnly = { ...addr, deliveries: [{ type: "unknown" as const, typeByte: 7, data: Uint8Array.of(1, 2, 3) }] };
    expect(checkArkoorAddress(unknownOnly, { network: "bitcoin", serverPubkey: server })).to.deep.equal([]);
    expect(decodeArkAddress(encodeArkAddress(unknownOnly))).to.deep.equal(unknownOnly);
  });

  it("key_derivation example: the wallet's address for VTXO key 0", () => {
    const ex = arkVectors.key_derivation.example_ark_address;
    const keys = WalletKeys.fromMnemonic(arkVectors.key_derivation.mnemonic);
    const k0 = keys.vtxoKey(0);
    const addr = walletArkAddress({
      network: "bitcoin",
      serverPubkey: fromHex(ex.server_pubkey),
      serverMailboxPubkey: fromHex(ex.server_mailbox_pubkey),
      mailboxId: keys.mailboxKey().publicKey,
      vtxoPubkey: k0.publicKey,
      vtxoSecretKey: k0.secretKey,
    });
    const d = addr.deliveries[0]!;
    expectVector(d.type === "server-mailbox" ? toHex(d.blindedId) : "", ex, "blinded_mailbox_id");
    expectVector(encodeArkAddress(addr), ex, "address");
  });

  it("property: the server unblinds any blinded mailbox id back to the wallet mailbox id", () => {
    fc.assert(
      fc.property(arbSecretKey(), arbSecretKey(), arbPubkey(), (v, d, mailbox) => {
        const blinded = blindMailboxId(mailbox, pubkeyFromSecret(d), v);
        expect(toHex(unblindMailboxId(blinded, d, pubkeyFromSecret(v)))).to.equal(toHex(mailbox));
      }),
      { numRuns: 15 },
    );
  });

  it("property: addresses round-trip for any user policy and deliveries", () => {
    const delivery = fc.oneof(
      arbPubkey().map((blindedId) => ({ type: "server-mailbox" as const, blindedId })),
      fc.record({ type: fc.constant("unknown" as const), typeByte: fc.integer({ min: 2, max: 255 }), data: fc.uint8Array({ maxLength: 40 }) }),
    );
    fc.assert(
      fc.property(fc.boolean(), fc.uint8Array({ minLength: 4, maxLength: 4 }), arbUserPolicy(), fc.array(delivery, { minLength: 1, maxLength: 3 }), (testnet, id, policy, deliveries) => {
        const addr: ArkAddress = { testnet, arkId: id, policy, deliveries };
        const s = encodeArkAddress(addr);
        expect(s.startsWith(testnet ? "tark1p" : "ark1p")).to.equal(true);
        expect(decodeArkAddress(s)).to.deep.equal(addr);
        expect(decodeArkAddress(s.toUpperCase())).to.deep.equal(addr);
      }),
      { numRuns: 60 },
    );
  });

  it("property: random strings and random payloads only throw AddressError", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 150 }), (s) => {
        try {
          decodeArkAddress(s);
        } catch (e) {
          expect(e).to.be.instanceOf(AddressError);
        }
      }),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), (payload) => {
        try {
          decodeArkAddress(bech32m.encode("tark", [1, ...bech32m.toWords(payload)], false));
        } catch (e) {
          expect(e).to.be.instanceOf(ProtocolDecodeError);
          expect(e).to.be.instanceOf(AddressError);
        }
      }),
      { numRuns: 400 },
    );
  });
});
