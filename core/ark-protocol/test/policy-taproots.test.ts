import { expect } from "chai";
import fc from "fast-check";
import { arkVectors, expectVector } from "./ark-vectors.js";
import { fromHex, toHex } from "../src/encoding.js";
import { ProtocolDecodeError } from "../src/errors.js";
import { aggregateXOnly } from "../src/keys.js";
import { pushNum } from "../src/script.js";
import { clauseScript } from "../src/clause.js";
import {
  decodeServerPolicy,
  decodeUserPolicy,
  encodePolicy,
  exitClauses,
  isArkoorSpendable,
  policyUserPubkey,
  POLICY_TYPE_BYTES,
  policyTaproot,
  type PolicyContext,
  type ServerVtxoPolicy,
} from "../src/policy.js";
import { expectPolicyFields, expectTaproot, policyFromVector } from "./vector-helpers.js";
import { arbPolicy, arbPubkey } from "./arbitraries.js";

describe("policy taproots (vector group `policy_taproots`, bark's `ark::vtxo::policy`)", () => {
  const pt = arkVectors.policy_taproots;
  const ctx: PolicyContext = { serverPubkey: fromHex(pt.server_pubkey), exitDelta: pt.exit_delta, expiryHeight: pt.expiry_height };

  it("agg(user, server) is the x-only BIP-327 KeyAgg in either order", () => {
    const u = fromHex(pt.user_pubkey);
    expectVector(toHex(aggregateXOnly([u, ctx.serverPubkey])), pt, "aggregate_user_server_xonly");
    expectVector(toHex(aggregateXOnly([ctx.serverPubkey, u])), pt, "aggregate_user_server_xonly");
  });

  for (const [i, entry] of (arkVectors.policy_taproots.policies as any[]).entries()) {
    it(`policy ${i}: encoding, tapscripts, control blocks and output key of \`${entry.policy.type}\``, () => {
      const vp = entry.policy;
      const policy = policyFromVector(vp);
      if ("userPubkey" in policy) expectVector(toHex(policy.userPubkey), pt, "user_pubkey");
      if ("paymentHash" in policy) expectVector(toHex(policy.paymentHash), pt, "payment_hash");
      if ("unlockHash" in policy) expectVector(toHex(policy.unlockHash), pt, "unlock_hash");
      expectVector(toHex(encodePolicy(policy)), vp, "encoded_hex");
      const decoded = decodeServerPolicy(fromHex(vp.encoded_hex));
      expect(decoded).to.deep.equal(policy);
      expectPolicyFields(decoded, vp);
      expectTaproot(policyTaproot(policy, ctx), entry.taproot);
    });
  }

  it("minimal script-number pushes for CSV/CLTV arguments", () => {
    const examples = pt.script_encoding_examples.push_int;
    for (const n of Object.keys(examples)) expectVector(toHex(pushNum(Number(n))), examples, n, `push_int(${n})`);
    expect(toHex(pushNum(0))).to.equal("00");
  });

  it("DelayedSign(2016) script bytes: `<2016> CSV DROP <key> CHECKSIG`", () => {
    const key = fromHex("0a752219f1b94bbdf8994a0a980cdda08c2ad094cb29dd834878db6dee1612ee");
    expect(toHex(clauseScript({ kind: "delayed-sign", key, delta: 2016 }))).to.equal(`02e007b27520${toHex(key)}ac`);
  });

  it("v0 hash-lock scripts lack the size check; v1 add exactly `82 01 20 88`", () => {
    const key = new Uint8Array(32).fill(2);
    const hash = new Uint8Array(32).fill(7);
    const v0 = toHex(clauseScript({ kind: "hash-sign", key, hash, version: 0 }));
    const v1 = toHex(clauseScript({ kind: "hash-sign", key, hash, version: 1 }));
    expect(v0.length / 2).to.equal(57);
    expect(v1).to.equal(`82012088${v0}`);
  });

  it("a user-policy decoder accepts exactly 0x00, 0x01, 0x02, 0x08, 0x09", () => {
    const u = fromHex(pt.user_pubkey);
    for (const [type, byte] of Object.entries(POLICY_TYPE_BYTES)) {
      const sample = pt.policies.find((p: any) => p.policy.type === type);
      const bytes = fromHex(sample.policy.encoded_hex);
      expect(bytes[0]).to.equal(byte);
      const isUser = [0x00, 0x01, 0x02, 0x08, 0x09].includes(byte);
      if (isUser) expect(() => decodeUserPolicy(bytes)).to.not.throw();
      else expect(() => decodeUserPolicy(bytes)).to.throw(ProtocolDecodeError);
    }
    expect(() => decodeServerPolicy(Uint8Array.of(0x0c, ...u))).to.throw(ProtocolDecodeError, /unknown policy type/);
  });

  it("only pubkey VTXOs are arkoor-spendable; every policy but expiry/server-owned has a user key", () => {
    for (const entry of pt.policies) {
      const p = policyFromVector(entry.policy);
      expect(isArkoorSpendable(p)).to.equal(p.type === "pubkey");
      const u = policyUserPubkey(p);
      expect(u === null).to.equal(p.type === "expiry" || p.type === "server-owned");
    }
  });

  it("exit clause order: HTLC receive tries the user's preimage clause first with delay htlc_expiry_delta + Δ", () => {
    const p = policyFromVector(pt.policies.find((x: any) => x.policy.type === "server-htlc-receive-v1").policy);
    const clauses = exitClauses(p as never, ctx);
    expect(clauses.map((c) => c.signer)).to.deep.equal(["user", "server"]);
    expect(clauses[0]!.clause).to.include({ kind: "hash-delay-sign", delta: 40 + ctx.exitDelta });
  });

  it("property: every policy round-trips through its encoding", () => {
    fc.assert(
      fc.property(arbPolicy(), (p) => {
        const bytes = encodePolicy(p);
        expect(decodeServerPolicy(bytes)).to.deep.equal(p);
      }),
      { numRuns: 200 },
    );
  });

  it("property: random and truncated bytes only ever throw ProtocolDecodeError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), (bytes) => {
        try {
          decodeServerPolicy(bytes);
        } catch (e) {
          expect(e).to.be.instanceOf(ProtocolDecodeError);
        }
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(arbPolicy(), fc.nat(), (p, cut) => {
        const bytes = encodePolicy(p);
        const n = cut % bytes.length;
        expect(() => decodeServerPolicy(bytes.slice(0, n))).to.throw(ProtocolDecodeError);
      }),
      { numRuns: 200 },
    );
  });

  it("taproot of a random pubkey policy commits to the server key (different S → different output)", () => {
    fc.assert(
      fc.property(arbPubkey(), arbPubkey(), (u, s2) => {
        const p: ServerVtxoPolicy = { type: "pubkey", userPubkey: u };
        const a = policyTaproot(p, ctx).scriptPubKey;
        const b = policyTaproot(p, { ...ctx, serverPubkey: s2 }).scriptPubKey;
        expect(toHex(a) === toHex(b)).to.equal(toHex(s2) === toHex(ctx.serverPubkey));
      }),
      { numRuns: 20 },
    );
  });
});
