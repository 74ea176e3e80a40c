/** fast-check generators for protocol objects (test helper). */
import fc from "fast-check";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { MAX_BLOCK_DELTA, MAX_BLOCK_HEIGHT } from "../src/encoding.js";
import type { ServerVtxoPolicy, VtxoPolicy } from "../src/policy.js";

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

import type { OutPoint, TxOut } from "../src/encoding.js";
import type { GenesisItem, Transition } from "../src/vtxo-genesis.js";
import type { ServerVtxo, Vtxo } from "../src/vtxo.js";

export const arbSats = (): fc.Arbitrary<bigint> => fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n });
export const arbOutPoint = (): fc.Arbitrary<OutPoint> => fc.record({ txid: arb32(), vout: fc.nat({ max: 0xffffffff }) });
export const arbTxOut = (): fc.Arbitrary<TxOut> => fc.record({ value: arbSats(), script: fc.uint8Array({ maxLength: 100 }) });
const arbSig = (): fc.Arbitrary<Uint8Array | null> => fc.option(fc.uint8Array({ minLength: 64, maxLength: 64 }).filter((s) => s.some((b) => b !== 0)), { nil: null });

/** Any transition kind with valid keys (scalars kept below the curve order). */
export const arbTransition = (): fc.Arbitrary<Transition> =>
  fc.oneof(
    fc.record({ kind: fc.constant("cosigned" as const), pubkeys: fc.array(arbPubkey(), { minLength: 1, maxLength: 3 }), signature: arbSig() }),
    fc.record({
      kind: fc.constant("arkoor" as const),
      clientCosigners: fc.array(arbPubkey(), { maxLength: 2 }),
      tapTweak: arbSecretKey(),
      signature: arbSig(),
    }),
    fc.record({
      kind: fc.constantFrom("hash-locked-cosigned" as const, "hash-locked-cosigned-v1" as const),
      userPubkey: arbPubkey(),
      signature: arbSig(),
      unlock: fc.oneof(fc.record({ type: fc.constant("preimage" as const), preimage: arb32() }), fc.record({ type: fc.constant("hash" as const), hash: arb32() })),
    }),
  );

export const arbGenesisItem = (): fc.Arbitrary<GenesisItem> =>
  fc.tuple(arbTransition(), fc.array(arbTxOut(), { maxLength: 3 }), fc.nat(), arbSats()).map(([transition, otherOutputs, idx, feeAmount]) => ({
    transition,
    otherOutputs,
    outputIdx: idx % (otherOutputs.length + 1),
    feeAmount,
  }));

function arbVtxoWith<P extends ServerVtxoPolicy>(policy: fc.Arbitrary<P>): fc.Arbitrary<Vtxo<P>> {
  return fc
    .record({
      amount: arbSats(),
      expiryHeight: arbHeight(),
      serverPubkey: arbPubkey(),
      exitDelta: arbDelta(),
      anchorPoint: arbOutPoint(),
      genesis: fc.array(arbGenesisItem(), { maxLength: 3 }),
      policy,
      point: arbOutPoint(),
    })
    .map((v) => (v.genesis.length === 0 ? { ...v, point: v.anchorPoint } : v))
    .filter((v) => v.genesis.length === 0 || v.point.vout !== v.anchorPoint.vout || v.point.txid.some((b, i) => b !== v.anchorPoint.txid[i]));
}

/** A structurally valid VTXO with a user policy (signatures are random bytes). */
export const arbVtxo = (): fc.Arbitrary<Vtxo> => arbVtxoWith(arbUserPolicy());
/** A structurally valid VTXO with any server policy. */
export const arbServerVtxo = (): fc.Arbitrary<ServerVtxo> => arbVtxoWith(arbPolicy());
