/** Helpers shared by the vector tests: compare built objects with vector JSON (through the vector ledger). */
import { expect } from "chai";
import { expectVector } from "./ark-vectors.js";
import { fromHex, toHex } from "../src/encoding.js";
import type { ServerVtxoPolicy } from "../src/policy.js";
import type { TaprootOutput } from "../src/taproot.js";

/** Asserts every field of a vector `taproot` object against a built output. */
export function expectTaproot(out: TaprootOutput, v: any): void {
  expectVector(toHex(out.internalKey), v, "internal_key_xonly");
  if ("merkle_root" in v) expectVector(out.merkleRoot ? toHex(out.merkleRoot) : null, v, "merkle_root");
  else expect(out.merkleRoot ?? null).to.equal(null);
  expectVector(toHex(out.tweak), v, "tap_tweak");
  expectVector(toHex(out.outputKey), v, "output_key_xonly");
  expectVector(out.parity, v, "output_key_parity");
  expectVector(toHex(out.scriptPubKey), v, "script_pubkey");
  expect(out.leaves.length).to.equal(v.leaves.length);
  v.leaves.forEach((l: any, i: number) => {
    const leaf = out.leaves[i]!;
    expectVector(leaf.depth, l, "depth");
    expectVector(`0x${leaf.leafVersion.toString(16)}`, l, "leaf_version");
    expectVector(toHex(leaf.script), l, "script_hex");
    expectVector(toHex(leaf.leafHash), l, "leaf_hash");
    expectVector(toHex(leaf.controlBlock), l, "control_block");
  });
}

/**
 * Asserts every field of a vector `policy` object (other than `encoded_hex`) against a policy the
 * code decoded: type, keys, hashes and HTLC expiries. A field this helper does not know fails.
 */
export function expectPolicyFields(p: ServerVtxoPolicy, v: any): void {
  const fields = p as unknown as Record<string, unknown>;
  const hex = (name: string): string | undefined => (fields[name] instanceof Uint8Array ? toHex(fields[name] as Uint8Array) : undefined);
  for (const key of Object.keys(v)) {
    switch (key) {
      case "encoded_hex":
        break;
      case "type":
        expectVector(p.type, v, key);
        break;
      case "user_pubkey":
        expectVector(hex("userPubkey"), v, key);
        break;
      case "payment_hash":
        expectVector(hex("paymentHash"), v, key);
        break;
      case "unlock_hash":
        expectVector(hex("unlockHash"), v, key);
        break;
      case "internal_key_xonly":
        expectVector(hex("internalKey"), v, key);
        break;
      case "htlc_expiry":
        expectVector(fields.htlcExpiry, v, key);
        break;
      case "htlc_expiry_delta":
        expectVector(fields.htlcExpiryDelta, v, key);
        break;
      default:
        expect.fail(`vector policy field ${key} has no comparison`);
    }
  }
}

/** Builds the policy object a vector `policy` describes (from its fields, not its encoding). */
export function policyFromVector(v: any): ServerVtxoPolicy {
  const type = v.type as ServerVtxoPolicy["type"];
  switch (type) {
    case "pubkey":
    case "checkpoint":
      return { type, userPubkey: fromHex(v.user_pubkey) };
    case "server-htlc-send":
    case "server-htlc-send-v1":
      return { type, userPubkey: fromHex(v.user_pubkey), paymentHash: fromHex(v.payment_hash), htlcExpiry: v.htlc_expiry };
    case "server-htlc-receive":
    case "server-htlc-receive-v1":
      return { type, userPubkey: fromHex(v.user_pubkey), paymentHash: fromHex(v.payment_hash), htlcExpiry: v.htlc_expiry, htlcExpiryDelta: v.htlc_expiry_delta };
    case "expiry":
      return { type, internalKey: fromHex(v.internal_key_xonly) };
    case "server-owned":
      return { type };
    default:
      return { type, userPubkey: fromHex(v.user_pubkey), unlockHash: fromHex(v.unlock_hash) };
  }
}

