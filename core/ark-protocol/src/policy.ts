/**
 * VTXO policies (bark's `ark::vtxo::policy`): types, binary encoding, taproot outputs and the clause
 * lists a wallet uses to find a signable exit clause.
 *
 * User policies (`VtxoPolicy`) go into addresses and VTXOs; server policies
 * (`ServerVtxoPolicy`) are a superset used for intermediate outputs. The `_v0` hash-lock kinds
 * (type bytes 1, 2, 5, 6) still decode and produce their old scripts; new code should create
 * only the v1 kinds.
 *
 * @example
 * ```ts
 * const policy: VtxoPolicy = { type: "pubkey", userPubkey };
 * const out = policyTaproot(policy, { serverPubkey, exitDelta: 144, expiryHeight: 900_000 });
 * out.scriptPubKey; // 5120…
 * encodePolicy(policy); // 00 ‖ userPubkey
 * ```
 */
import { ProtocolDecodeError } from "./errors.js";
import { ByteReader, ByteWriter, decodeExact } from "./encoding.js";
import { aggregateXOnly, readPubkey, readXOnly, toXOnly, writePubkey } from "./keys.js";
import { clauseScript, type Clause, type HashLockVersion } from "./clause.js";
import { taprootOutput, type TaprootOutput } from "./taproot.js";

/** `pubkey` policy: the user alone after Δ, or user+server cooperatively. */
export interface PubkeyPolicy {
  readonly type: "pubkey";
  readonly userPubkey: Uint8Array;
}

/** Lightning send HTLC (server claims with the preimage, user refunds after `htlcExpiry`). */
export interface HtlcSendPolicy {
  readonly type: "server-htlc-send" | "server-htlc-send-v1";
  readonly userPubkey: Uint8Array;
  readonly paymentHash: Uint8Array;
  readonly htlcExpiry: number;
}

/** Lightning receive HTLC (user claims with the preimage, server refunds after `htlcExpiry`). */
export interface HtlcReceivePolicy {
  readonly type: "server-htlc-receive" | "server-htlc-receive-v1";
  readonly userPubkey: Uint8Array;
  readonly paymentHash: Uint8Array;
  readonly htlcExpiry: number;
  readonly htlcExpiryDelta: number;
}

/** A policy that may appear in addresses and user VTXOs. */
export type VtxoPolicy = PubkeyPolicy | HtlcSendPolicy | HtlcReceivePolicy;

/** Checkpoint / dust-isolation output: user+server now, server alone after expiry. */
export interface CheckpointPolicy {
  readonly type: "checkpoint";
  readonly userPubkey: Uint8Array;
}

/** Board funding bookkeeping: given internal key, server alone after expiry. */
export interface ExpiryPolicy {
  readonly type: "expiry";
  readonly internalKey: Uint8Array;
}

/** Server-owned key-path-only output. */
export interface ServerOwnedPolicy {
  readonly type: "server-owned";
}

/** hArk round-tree leaf output or hArk forfeit output. */
export interface HarkPolicy {
  readonly type: "hark-leaf" | "hark-leaf-v1" | "hark-forfeit" | "hark-forfeit-v1";
  readonly userPubkey: Uint8Array;
  readonly unlockHash: Uint8Array;
}

/** Any policy the server may use (superset of {@link VtxoPolicy}). */
export type ServerVtxoPolicy = VtxoPolicy | CheckpointPolicy | ExpiryPolicy | ServerOwnedPolicy | HarkPolicy;

/** Kind strings of every policy. */
export type PolicyType = ServerVtxoPolicy["type"];

/** Type byte of each policy kind. */
export const POLICY_TYPE_BYTES: Readonly<Record<PolicyType, number>> = {
  pubkey: 0x00,
  "server-htlc-send": 0x01,
  "server-htlc-receive": 0x02,
  checkpoint: 0x03,
  expiry: 0x04,
  "hark-leaf": 0x05,
  "hark-forfeit": 0x06,
  "server-owned": 0x07,
  "server-htlc-receive-v1": 0x08,
  "server-htlc-send-v1": 0x09,
  "hark-leaf-v1": 0x0a,
  "hark-forfeit-v1": 0x0b,
};

const TYPE_BY_BYTE = new Map<number, PolicyType>(Object.entries(POLICY_TYPE_BYTES).map(([k, v]) => [v, k as PolicyType]));
const USER_POLICY_BYTES = new Set([0x00, 0x01, 0x02, 0x08, 0x09]);

/** Parameters of the VTXO a policy belongs to, needed to build its scripts. */
export interface PolicyContext {
  /** Server pubkey S (33 bytes). */
  readonly serverPubkey: Uint8Array;
  /** Exit delta Δ (blocks). */
  readonly exitDelta: number;
  /** Expiry height E. */
  readonly expiryHeight: number;
}

/** Whether `policy` is a user policy (allowed in addresses and user VTXOs). */
export function isUserPolicy(policy: ServerVtxoPolicy): policy is VtxoPolicy {
  return USER_POLICY_BYTES.has(POLICY_TYPE_BYTES[policy.type]);
}

/** Whether VTXOs with this policy can be spent out of round (only `pubkey`; HTLC policies cannot). */
export function isArkoorSpendable(policy: ServerVtxoPolicy): policy is PubkeyPolicy {
  return policy.type === "pubkey";
}

/** The user pubkey of a policy, or null for `expiry` and `server-owned`. */
export function policyUserPubkey(policy: ServerVtxoPolicy): Uint8Array | null {
  return "userPubkey" in policy ? policy.userPubkey : null;
}

/** Writes the policy encoding (type byte + fields). */
export function writePolicy(w: ByteWriter, p: ServerVtxoPolicy): ByteWriter {
  w.u8(POLICY_TYPE_BYTES[p.type]);
  switch (p.type) {
    case "pubkey":
    case "checkpoint":
      return writePubkey(w, p.userPubkey);
    case "server-htlc-send":
    case "server-htlc-send-v1":
      return writePubkey(w, p.userPubkey).bytes(check32(p.paymentHash)).u32(p.htlcExpiry);
    case "server-htlc-receive":
    case "server-htlc-receive-v1":
      return writePubkey(w, p.userPubkey).bytes(check32(p.paymentHash)).u32(p.htlcExpiry).u16(p.htlcExpiryDelta);
    case "expiry":
      return w.bytes(check32(p.internalKey));
    case "server-owned":
      return w;
    case "hark-leaf":
    case "hark-leaf-v1":
    case "hark-forfeit":
    case "hark-forfeit-v1":
      return writePubkey(w, p.userPubkey).bytes(check32(p.unlockHash));
  }
}

function check32(b: Uint8Array): Uint8Array {
  if (b.length !== 32) throw new RangeError("expected 32 bytes");
  return b;
}

/** Reads a server policy (accepts all twelve type bytes). */
export function readServerPolicy(r: ByteReader): ServerVtxoPolicy {
  const byte = r.u8();
  const type = TYPE_BY_BYTE.get(byte);
  if (type === undefined) throw new ProtocolDecodeError(`unknown policy type byte 0x${byte.toString(16)}`);
  switch (type) {
    case "pubkey":
    case "checkpoint":
      return { type, userPubkey: readPubkey(r) };
    case "server-htlc-send":
    case "server-htlc-send-v1":
      return { type, userPubkey: readPubkey(r), paymentHash: r.bytes(32), htlcExpiry: r.height() };
    case "server-htlc-receive":
    case "server-htlc-receive-v1":
      return { type, userPubkey: readPubkey(r), paymentHash: r.bytes(32), htlcExpiry: r.height(), htlcExpiryDelta: r.delta() };
    case "expiry":
      return { type, internalKey: readXOnly(r) };
    case "server-owned":
      return { type };
    case "hark-leaf":
    case "hark-leaf-v1":
    case "hark-forfeit":
    case "hark-forfeit-v1":
      return { type, userPubkey: readPubkey(r), unlockHash: r.bytes(32) };
  }
}

/** Reads a user policy (accepts only type bytes 0x00, 0x01, 0x02, 0x08, 0x09). */
export function readUserPolicy(r: ByteReader): VtxoPolicy {
  const byte = r.peekU8();
  if (!USER_POLICY_BYTES.has(byte)) throw new ProtocolDecodeError(`policy type 0x${byte.toString(16)} is not a user policy`);
  return readServerPolicy(r) as VtxoPolicy;
}

/** Encoding of a policy. */
export function encodePolicy(p: ServerVtxoPolicy): Uint8Array {
  return writePolicy(new ByteWriter(), p).finish();
}

/** Decodes a user policy (exact bytes). */
export function decodeUserPolicy(bytes: Uint8Array): VtxoPolicy {
  return decodeExact(bytes, readUserPolicy);
}

/** Decodes a server policy (exact bytes). */
export function decodeServerPolicy(bytes: Uint8Array): ServerVtxoPolicy {
  return decodeExact(bytes, readServerPolicy);
}

function hashVersion(type: PolicyType): HashLockVersion {
  return type.endsWith("-v1") ? 1 : 0;
}

/** The taproot internal key of a policy (x-only). */
export function policyInternalKey(p: ServerVtxoPolicy, ctx: PolicyContext): Uint8Array {
  switch (p.type) {
    case "expiry":
      return p.internalKey;
    case "server-owned":
      return toXOnly(ctx.serverPubkey);
    default:
      return aggregateXOnly([p.userPubkey, ctx.serverPubkey]);
  }
}

/**
 * The clauses of a policy's taproot leaves, in tree order. Empty for the
 * key-path-only `server-owned` policy.
 */
export function policyLeafClauses(p: ServerVtxoPolicy, ctx: PolicyContext): Clause[] {
  const S = toXOnly(ctx.serverPubkey);
  const d = ctx.exitDelta;
  const v = hashVersion(p.type);
  switch (p.type) {
    case "pubkey":
      return [{ kind: "delayed-sign", key: toXOnly(p.userPubkey), delta: d }];
    case "server-htlc-send":
    case "server-htlc-send-v1":
      return [
        { kind: "hash-delay-sign", key: S, hash: p.paymentHash, delta: d, version: v },
        { kind: "delayed-timelock-sign", key: toXOnly(p.userPubkey), height: p.htlcExpiry, delta: 2 * d },
      ];
    case "server-htlc-receive":
    case "server-htlc-receive-v1":
      return [
        { kind: "delayed-timelock-sign", key: S, height: p.htlcExpiry, delta: d },
        { kind: "hash-delay-sign", key: toXOnly(p.userPubkey), hash: p.paymentHash, delta: p.htlcExpiryDelta + d, version: v },
      ];
    case "checkpoint":
    case "expiry":
      return [{ kind: "timelock-sign", key: S, height: ctx.expiryHeight }];
    case "server-owned":
      return [];
    case "hark-leaf":
    case "hark-leaf-v1":
      return [
        { kind: "timelock-sign", key: S, height: ctx.expiryHeight },
        { kind: "hash-sign", key: aggregateXOnly([p.userPubkey, ctx.serverPubkey]), hash: p.unlockHash, version: v },
      ];
    case "hark-forfeit":
    case "hark-forfeit-v1":
      return [
        { kind: "hash-sign", key: S, hash: p.unlockHash, version: v },
        { kind: "delayed-sign", key: toXOnly(p.userPubkey), delta: d },
      ];
  }
}

/** The P2TR output of a policy: internal key, leaves, tweak, output key, scriptPubKey. */
export function policyTaproot(p: ServerVtxoPolicy, ctx: PolicyContext): TaprootOutput {
  const scripts = policyLeafClauses(p, ctx).map(clauseScript);
  const internal = policyInternalKey(p, ctx);
  if (scripts.length === 0) return taprootOutput(internal, null);
  if (scripts.length === 1) return taprootOutput(internal, scripts[0]!);
  return taprootOutput(internal, [scripts[0]!, scripts[1]!]);
}

/** Output script of a policy. */
export function policyScriptPubKey(p: ServerVtxoPolicy, ctx: PolicyContext): Uint8Array {
  return policyTaproot(p, ctx).scriptPubKey;
}

/** Which party signs an exit clause. */
export type ClauseSigner = "user" | "server";

/** An exit clause of a user policy, with who can sign it. */
export interface ExitClause {
  readonly clause: Clause;
  readonly signer: ClauseSigner;
}

/**
 * Clauses of a user policy in the order a wallet tries them to find one it can sign
 * (as bark does): take the first whose signer is the wallet and, for hash clauses,
 * whose preimage it knows.
 */
export function exitClauses(p: VtxoPolicy, ctx: PolicyContext): ExitClause[] {
  const leaves = policyLeafClauses(p, ctx);
  switch (p.type) {
    case "pubkey":
      return [{ clause: leaves[0]!, signer: "user" }];
    case "server-htlc-send":
    case "server-htlc-send-v1":
      return [
        { clause: leaves[0]!, signer: "server" },
        { clause: leaves[1]!, signer: "user" },
      ];
    case "server-htlc-receive":
    case "server-htlc-receive-v1":
      return [
        { clause: leaves[1]!, signer: "user" },
        { clause: leaves[0]!, signer: "server" },
      ];
  }
}
