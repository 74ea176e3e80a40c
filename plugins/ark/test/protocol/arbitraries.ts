/** fast-check generators for protocol objects (test helper). */
import fc from "fast-check";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { MAX_BLOCK_DELTA, MAX_BLOCK_HEIGHT } from "../../src/protocol/encoding.js";
import type { ServerVtxoPolicy, VtxoPolicy } from "../../src/protocol/policy.js";

/** A valid secret key (1 ≤ k < n). */
export const arbSecretKey = (): fc.Arbitrary<Uint8Array> =>
  fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((b) => secp256k1.utils.isValidSecretKey(b));

/** A valid compressed pubkey. */
export const arbPubkey = (): fc.Arbitrary<Uint8Array> => arbSecretKey().map((k) => secp256k1.getPublicKey(k, true));

/** A valid x-only key. */
export const arbXOnly = (): fc.Arbitrary<Uint8Array> => arbPubkey().map((k) => k.slice(1));

export const arb32 = (): fc.Arbitrary<Uint8Array> => fc.uint8Array({ minLength: 32, maxLength: 32 });
export const arbHeight = (): fc.Arbitrary<number> => fc.integer({ min: 0, max: MAX_BLOCK_HEIGHT });
export const arbDelta = (): fc.Arbitrary<number> => fc.integer({ min: 0, max: MAX_BLOCK_DELTA });

/** Any user policy. */
export const arbUserPolicy = (): fc.Arbitrary<VtxoPolicy> =>
  fc.oneof(
    arbPubkey().map((userPubkey): VtxoPolicy => ({ type: "pubkey", userPubkey })),
    fc
      .tuple(fc.constantFrom("server-htlc-send" as const, "server-htlc-send-v1" as const), arbPubkey(), arb32(), arbHeight())
      .map(([type, userPubkey, paymentHash, htlcExpiry]): VtxoPolicy => ({ type, userPubkey, paymentHash, htlcExpiry })),
    fc
      .tuple(fc.constantFrom("server-htlc-receive" as const, "server-htlc-receive-v1" as const), arbPubkey(), arb32(), arbHeight(), arbDelta())
      .map(([type, userPubkey, paymentHash, htlcExpiry, htlcExpiryDelta]): VtxoPolicy => ({ type, userPubkey, paymentHash, htlcExpiry, htlcExpiryDelta })),
  );

/** Any server policy (all twelve kinds). */
export const arbPolicy = (): fc.Arbitrary<ServerVtxoPolicy> =>
  fc.oneof(
    arbUserPolicy(),
    arbPubkey().map((userPubkey): ServerVtxoPolicy => ({ type: "checkpoint", userPubkey })),
    arbXOnly().map((internalKey): ServerVtxoPolicy => ({ type: "expiry", internalKey })),
    fc.constant<ServerVtxoPolicy>({ type: "server-owned" }),
    fc
      .tuple(fc.constantFrom("hark-leaf" as const, "hark-leaf-v1" as const, "hark-forfeit" as const, "hark-forfeit-v1" as const), arbPubkey(), arb32())
      .map(([type, userPubkey, unlockHash]): ServerVtxoPolicy => ({ type, userPubkey, unlockHash })),
  );
