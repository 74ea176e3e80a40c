/** Helpers shared by the vector tests: compare built objects with vector JSON. */
import { expect } from "chai";
import { fromHex, toHex } from "../src/encoding.js";
import type { ServerVtxoPolicy } from "../src/policy.js";
import type { TaprootOutput } from "../src/taproot.js";

/** Asserts every field of a vector `taproot` object against a built output. */
export function expectTaproot(out: TaprootOutput, v: any): void {
  expect(toHex(out.internalKey)).to.equal(v.internal_key_xonly);
  expect(out.merkleRoot ? toHex(out.merkleRoot) : null).to.equal(v.merkle_root ?? null);
  expect(toHex(out.tweak)).to.equal(v.tap_tweak);
  expect(toHex(out.outputKey)).to.equal(v.output_key_xonly);
  expect(out.parity).to.equal(v.output_key_parity);
  expect(toHex(out.scriptPubKey)).to.equal(v.script_pubkey);
  expect(out.leaves.length).to.equal(v.leaves.length);
  v.leaves.forEach((l: any, i: number) => {
    const leaf = out.leaves[i]!;
    expect(leaf.depth).to.equal(l.depth);
    expect(`0x${leaf.leafVersion.toString(16)}`).to.equal(l.leaf_version);
    expect(toHex(leaf.script)).to.equal(l.script_hex);
    expect(toHex(leaf.leafHash)).to.equal(l.leaf_hash);
    expect(toHex(leaf.controlBlock)).to.equal(l.control_block);
  });
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

