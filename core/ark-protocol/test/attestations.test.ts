import { expect } from "chai";
import fc from "fast-check";
import { arkVectors, compareVector, expectVector } from "./ark-vectors.js";
import { arbSecretKey, arbUserPolicy, arbSats } from "./arbitraries.js";
import { encodeOutPoint, fromHex, parseOutPoint, toHex, utf8 } from "../src/encoding.js";
import { ProtocolDecodeError } from "../src/errors.js";
import { sha256 } from "../src/hashes.js";
import { pubkeyFromSecret, toXOnly } from "../src/keys.js";
import { taprootOutput } from "../src/taproot.js";
import type { VtxoPolicy } from "../src/policy.js";
import {
  arkoorCosignAttestation,
  ATTESTATION_TAGS,
  checkMailboxAuthorization,
  createMailboxAuthorization,
  decodeMailboxAuthorization,
  delegatedRoundAttestation,
  encodeMailboxAuthorization,
  lightningReceiveAttestation,
  MailboxAuthorizationError,
  mailboxAuthorizationDigest,
  messageDigest,
  offboardAttestation,
  roundAttemptAttestation,
  signAttestation,
  signMessage,
  verifyAttestation,
  verifyMailboxAuthorization,
  verifyMessage,
  verifyMessageForAddress,
  vtxoStatusAttestation,
  type SignedMessage,
} from "../src/signatures.js";

describe("attestations (vector group `attestations`, bark's `ark::attestations`)", () => {
  const a = arkVectors.attestations;
  const user = arkVectors.keys.dummy_user_key;
  const userPk = fromHex(user.public_key);
  const vtxoId = encodeOutPoint(parseOutPoint(a.vtxo_id));
  const policy: VtxoPolicy = { type: "pubkey", userPubkey: userPk };
  const challenge = new Uint8Array(32).fill(0x42);

  // Inputs as described by each case (the reference test's fixed values); the expected bytes come from the vectors.
  const build: Record<string, () => SignedMessage> = {
    round_attempt: () => roundAttemptAttestation(challenge, vtxoId, [{ amount: 100_000n, policy, cosignPubkey: userPk }]),
    delegated_round_participation: () => delegatedRoundAttestation(vtxoId, [{ amount: 100_000n, policy }]),
    lightning_receive: () => lightningReceiveAttestation(sha256(challenge), vtxoId),
    vtxo_status: () => vtxoStatusAttestation(vtxoId),
    offboard_request: () => offboardAttestation({ value: 50_000n, script: taprootOutput(toXOnly(userPk)).scriptPubKey }, [vtxoId]),
  };
  const tagOf: Record<string, string> = {
    round_attempt: ATTESTATION_TAGS.roundAttempt,
    delegated_round_participation: ATTESTATION_TAGS.delegatedRound,
    lightning_receive: ATTESTATION_TAGS.lightningReceive,
    vtxo_status: ATTESTATION_TAGS.vtxoStatus,
    offboard_request: ATTESTATION_TAGS.offboard,
  };

  it("the signer is the dummy user key", () => {
    expectVector(toHex(toXOnly(pubkeyFromSecret(fromHex(user.secret_key)))), a, "signer_xonly");
  });

  for (const c of arkVectors.attestations.cases as any[]) {
    it(`${c.name}: tag, preimage and digest rebuilt; the reference signature verifies and a tampered one does not`, () => {
      const msg = build[c.name]!();
      expectVector(tagOf[c.name], c, "prefix_ascii");
      expectVector(toHex(utf8(tagOf[c.name]!)), c, "prefix_hex");
      expect(toHex(utf8(c.prefix_ascii))).to.equal(c.prefix_hex);
      expectVector(toHex(msg.preimage), c, "message_preimage_hex");
      expectVector(toHex(msg.digest), c, "message_digest");
      // BIP-340 signatures carry random nonces: the reference signature is checked by verifying it.
      compareVector(c, "signature", (sigHex: string) => {
        const sig = fromHex(sigHex);
        expect(verifyAttestation(sig, msg, fromHex(a.signer_xonly))).to.equal(true);
        expect(verifyAttestation(sig, msg, userPk)).to.equal(true);
        const bad = Uint8Array.from(sig);
        bad[63]! ^= 1;
        expect(verifyAttestation(bad, msg, userPk)).to.equal(false);
      });
    });
  }

  it("arkoor cosign attestation: tag, u32 LE count, u64 LE amounts, normal then isolated outputs", () => {
    expectVector(ATTESTATION_TAGS.arkoorCosign, a.arkoor_cosign_attestation_format, "prefix_ascii");
    const msg = arkoorCosignAttestation(vtxoId, [{ amount: 1000n, policy }], [{ amount: 200n, policy }]);
    const p = 32;
    expect(toHex(msg.preimage.slice(p, p + 36))).to.equal(toHex(vtxoId));
    expect(toHex(msg.preimage.slice(p + 36, p + 40))).to.equal("02000000");
    expect(toHex(msg.preimage.slice(p + 40, p + 48))).to.equal("e803000000000000");
    expect(toHex(msg.preimage.slice(p + 48 + 34, p + 48 + 34 + 8))).to.equal("c800000000000000");
    expect(msg.preimage.length).to.equal(32 + 36 + 4 + 2 * (8 + 34));
  });

  it("property: attestations signed with a key verify under its pubkey and not under another", () => {
    fc.assert(
      fc.property(arbSecretKey(), arbSecretKey(), fc.array(fc.tuple(arbSats(), arbUserPolicy()), { maxLength: 3 }), (sk, other, outs) => {
        const msg = arkoorCosignAttestation(vtxoId, outs.map(([amount, policy]) => ({ amount, policy })));
        const sig = signAttestation(msg, sk);
        expect(verifyAttestation(sig, msg, pubkeyFromSecret(sk))).to.equal(true);
        expect(verifyAttestation(sig, msg, pubkeyFromSecret(other))).to.equal(toHex(sk) === toHex(other));
      }),
      { numRuns: 15 },
    );
  });
});

describe("message signing (vector group `message_signing`, bark's `ark::message`)", () => {
  const m = arkVectors.message_signing;

  it("digest is SHA256(\"bark/message\" ‖ message); zero-aux signing reproduces the reference signature", () => {
    expectVector(toHex(messageDigest(m.message_ascii)), m, "digest");
    const sk = fromHex(m.secret_key);
    expectVector(toHex(pubkeyFromSecret(sk)), m, "public_key");
    expectVector(toHex(signMessage(m.message_ascii, sk, new Uint8Array(32))), m, "signature");
    expect(verifyMessage(fromHex(m.signature), m.message_ascii, fromHex(m.public_key))).to.equal(true);
    expect(verifyMessage(fromHex(m.signature), m.message_ascii + ".", fromHex(m.public_key))).to.equal(false);
  });

  it("verifies against the user key of an Ark address (reference address of the same key)", () => {
    const address = arkVectors.addresses.cases[3].address;
    expect(verifyMessageForAddress(fromHex(m.signature), m.message_ascii, address)).to.equal(true);
    const otherKeyAddress = arkVectors.addresses.cases[2].address;
    expect(verifyMessageForAddress(fromHex(m.signature), m.message_ascii, otherKeyAddress)).to.equal(false);
  });
});

describe("mailbox authorization (vector group `mailbox_authorization`, bark's `ark::mailbox`)", () => {
  const v = arkVectors.mailbox_authorization;

  it("decodes the reference 105-byte authorization, recomputes its digest and verifies its signature", () => {
    const auth = decodeMailboxAuthorization(fromHex(v.hex));
    expectVector(toHex(auth.mailboxId), v, "mailbox_id");
    expectVector(auth.expiry, v, "expiry");
    expectVector(toHex(mailboxAuthorizationDigest(auth.expiry)), v, "digest");
    expect(verifyMailboxAuthorization(auth)).to.equal(true);
    expectVector(toHex(encodeMailboxAuthorization(auth)), v, "hex");
    expect(verifyMailboxAuthorization({ ...auth, expiry: auth.expiry + 1n })).to.equal(false);
  });

  it("server checks: mismatched id, expiry beyond the 5 s grace, bad signature, missing", () => {
    const auth = decodeMailboxAuthorization(fromHex(v.hex));
    const id = auth.mailboxId;
    const exp = auth.expiry;
    expect(() => checkMailboxAuthorization(auth, id, exp + 5n)).to.not.throw();
    expect(() => checkMailboxAuthorization(auth, id, exp + 6n)).to.throw(MailboxAuthorizationError, "mailbox authorization expired");
    expect(() => checkMailboxAuthorization(auth, pubkeyFromSecret(new Uint8Array(32).fill(1)), exp)).to.throw(MailboxAuthorizationError, "doesn't match");
    const sig = Uint8Array.from(auth.signature);
    sig[0]! ^= 1;
    expect(() => checkMailboxAuthorization({ ...auth, signature: sig }, id, exp)).to.throw(MailboxAuthorizationError, "invalid mailbox authorization signature");
    expect(() => checkMailboxAuthorization(null, id, exp)).to.throw(MailboxAuthorizationError, "required");
  });

  it("created authorizations verify and round-trip; malformed bytes throw typed errors", () => {
    const sk = new Uint8Array(32).fill(7);
    const auth = createMailboxAuthorization(sk, 1_800_000_000n);
    expect(decodeMailboxAuthorization(encodeMailboxAuthorization(auth))).to.deep.equal(auth);
    expect(verifyMailboxAuthorization(auth)).to.equal(true);
    const bytes = fromHex(v.hex);
    expect(() => decodeMailboxAuthorization(bytes.slice(0, 104))).to.throw(ProtocolDecodeError);
    expect(() => decodeMailboxAuthorization(Uint8Array.from([...bytes, 0]))).to.throw(ProtocolDecodeError, /trailing/);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 140 }), (b) => {
        try {
          decodeMailboxAuthorization(b);
        } catch (e) {
          expect(e).to.be.instanceOf(ProtocolDecodeError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
