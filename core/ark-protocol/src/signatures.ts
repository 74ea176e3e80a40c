/**
 * Signed statements made with wallet keys (bark's `ark::attestations`, `ark::message`, `ark::mailbox`):
 * ownership attestations, message signing ("bark/message"), and mailbox authorizations.
 *
 * Every attestation is a BIP-340 signature by the VTXO owner key over
 * `SHA256(32-byte ASCII tag ‖ payload)`. Beware the mixed integer endianness: the two round
 * attestations use big-endian counts and amounts, the others little-endian.
 *
 * @example
 * ```ts
 * const msg = vtxoStatusAttestation(vtxoId);
 * const sig = signAttestation(msg, vtxoSecretKey);
 * verifyAttestation(sig, msg, vtxoPubkey); // true
 * ```
 */
import { ProtocolError } from "./errors.js";
import { ByteReader, ByteWriter, bytesEqual, concatBytes, decodeExact, utf8, writeTxOut, type Sats, type TxOut } from "./encoding.js";
import { sha256 } from "./hashes.js";
import { pubkeyFromSecret, readPubkey, toXOnly, writePubkey } from "./keys.js";
import { writePolicy, type VtxoPolicy } from "./policy.js";
import { signSchnorr, verifySchnorr } from "./schnorr.js";
import { decodeArkAddress } from "./address.js";

/** The 32-byte ASCII tags of the attestations. */
export const ATTESTATION_TAGS = {
  roundAttempt: "Ark round input ownership proof ",
  delegatedRound: "hArk round join ownership proof ",
  arkoorCosign: "arkoor cosign attestation       ",
  offboard: "Ark offboard request challenge  ",
  lightningReceive: "Lightning receive VTXO challenge",
  vtxoStatus: "Ark VTXO status query challenge ",
} as const;

/** Prefix of signed messages (no separator). */
export const MESSAGE_PREFIX = "bark/message";
/** Prefix of mailbox authorizations. */
export const MAILBOX_AUTHORIZATION_TAG = "Ark VTXO mailbox authorization: ";

/** The signed bytes of a statement and their SHA-256 digest (what the signature signs). */
export interface SignedMessage {
  readonly preimage: Uint8Array;
  readonly digest: Uint8Array;
}

function tagged(tag: string, body: Uint8Array): SignedMessage {
  const t = utf8(tag);
  if (t.length !== 32) throw new RangeError("attestation tags are 32 bytes");
  const preimage = concatBytes(t, body);
  return { preimage, digest: sha256(preimage) };
}

function checkId(vtxoId: Uint8Array): Uint8Array {
  if (vtxoId.length !== 36) throw new RangeError("VTXO id must be 36 bytes");
  return vtxoId;
}

/** A requested output: amount and policy. */
export interface OutputRequest {
  readonly amount: Sats;
  readonly policy: VtxoPolicy;
}

/** A requested round output with its cosign key. */
export interface SignedOutputRequest extends OutputRequest {
  readonly cosignPubkey: Uint8Array;
}

/** `RoundAttemptAttestation`: challenge ‖ id ‖ u64 BE count ‖ (u64 BE amount ‖ policy ‖ cosign key)*. */
export function roundAttemptAttestation(challenge: Uint8Array, vtxoId: Uint8Array, requests: readonly SignedOutputRequest[]): SignedMessage {
  if (challenge.length !== 32) throw new RangeError("round challenge must be 32 bytes");
  const w = new ByteWriter().bytes(challenge).bytes(checkId(vtxoId)).bytes(u64be(BigInt(requests.length)));
  for (const r of requests) writePubkey(writePolicy(w.bytes(u64be(r.amount)), r.policy), r.cosignPubkey);
  return tagged(ATTESTATION_TAGS.roundAttempt, w.finish());
}

/** `DelegatedRoundParticipationAttestation`: id ‖ u64 BE count ‖ (u64 BE amount ‖ policy)*. */
export function delegatedRoundAttestation(vtxoId: Uint8Array, requests: readonly OutputRequest[]): SignedMessage {
  const w = new ByteWriter().bytes(checkId(vtxoId)).bytes(u64be(BigInt(requests.length)));
  for (const r of requests) writePolicy(w.bytes(u64be(r.amount)), r.policy);
  return tagged(ATTESTATION_TAGS.delegatedRound, w.finish());
}

/** `ArkoorCosignAttestation`: id ‖ u32 LE count ‖ (u64 LE amount ‖ policy)* over normal then isolated outputs. */
export function arkoorCosignAttestation(vtxoId: Uint8Array, outputs: readonly OutputRequest[], isolatedOutputs: readonly OutputRequest[] = []): SignedMessage {
  const all = [...outputs, ...isolatedOutputs];
  const w = new ByteWriter().bytes(checkId(vtxoId)).u32(all.length);
  for (const o of all) writePolicy(w.u64(o.amount), o.policy);
  return tagged(ATTESTATION_TAGS.arkoorCosign, w.finish());
}

/** `OffboardRequestAttestation`: TxOut{net amount, script} ‖ u32 LE input count ‖ ids. */
export function offboardAttestation(output: TxOut, vtxoIds: readonly Uint8Array[]): SignedMessage {
  const w = writeTxOut(new ByteWriter(), output).u32(vtxoIds.length);
  for (const id of vtxoIds) w.bytes(checkId(id));
  return tagged(ATTESTATION_TAGS.offboard, w.finish());
}

/** `LightningReceiveAttestation`: payment hash ‖ id. */
export function lightningReceiveAttestation(paymentHash: Uint8Array, vtxoId: Uint8Array): SignedMessage {
  if (paymentHash.length !== 32) throw new RangeError("payment hash must be 32 bytes");
  return tagged(ATTESTATION_TAGS.lightningReceive, concatBytes(paymentHash, checkId(vtxoId)));
}

/** `VtxoStatusAttestation`: id. */
export function vtxoStatusAttestation(vtxoId: Uint8Array): SignedMessage {
  return tagged(ATTESTATION_TAGS.vtxoStatus, checkId(vtxoId));
}

function u64be(v: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v, false);
  return b;
}

function xonlyOf(pubkey: Uint8Array): Uint8Array {
  return pubkey.length === 33 ? toXOnly(pubkey) : pubkey;
}

/** Signs an attestation with the VTXO owner key (random aux unless given). */
export function signAttestation(msg: SignedMessage, secretKey: Uint8Array, auxRand?: Uint8Array): Uint8Array {
  return signSchnorr(msg.digest, secretKey, auxRand);
}

/** Verifies an attestation against the owner pubkey (33-byte or x-only). */
export function verifyAttestation(signature: Uint8Array, msg: SignedMessage, ownerPubkey: Uint8Array): boolean {
  return verifySchnorr(signature, msg.digest, xonlyOf(ownerPubkey));
}

/** Digest of a signed message: `SHA256("bark/message" ‖ message)`. */
export function messageDigest(message: Uint8Array | string): Uint8Array {
  return sha256(utf8(MESSAGE_PREFIX), typeof message === "string" ? utf8(message) : message);
}

/** Signs a message with a VTXO key (pass 32 zero bytes as `auxRand` to match bark's signatures). */
export function signMessage(message: Uint8Array | string, secretKey: Uint8Array, auxRand?: Uint8Array): Uint8Array {
  return signSchnorr(messageDigest(message), secretKey, auxRand);
}

/** Verifies a message signature against a pubkey (33-byte or x-only). */
export function verifyMessage(signature: Uint8Array, message: Uint8Array | string, pubkey: Uint8Array): boolean {
  return verifySchnorr(signature, messageDigest(message), xonlyOf(pubkey));
}

/** Verifies a message signature against the user key of an Ark address's policy. */
export function verifyMessageForAddress(signature: Uint8Array, message: Uint8Array | string, address: string): boolean {
  return verifyMessage(signature, message, decodeArkAddress(address).policy.userPubkey);
}

/** A mailbox read authorization (105 bytes encoded). */
export interface MailboxAuthorization {
  /** Mailbox id = 33-byte mailbox pubkey. */
  readonly mailboxId: Uint8Array;
  /** Unix seconds (i64). */
  readonly expiry: bigint;
  readonly signature: Uint8Array;
}

/** Why the server refuses an authorization (captaind's messages). */
export class MailboxAuthorizationError extends ProtocolError {}

/** `SHA256("Ark VTXO mailbox authorization: " ‖ expiry i64 LE)`. */
export function mailboxAuthorizationDigest(expiry: bigint): Uint8Array {
  return sha256(utf8(MAILBOX_AUTHORIZATION_TAG), new ByteWriter().i64(expiry).finish());
}

/** Creates an authorization with the mailbox secret key valid until `expiry` (unix seconds). */
export function createMailboxAuthorization(mailboxSecretKey: Uint8Array, expiry: bigint, auxRand?: Uint8Array): MailboxAuthorization {
  return { mailboxId: pubkeyFromSecret(mailboxSecretKey), expiry, signature: signSchnorr(mailboxAuthorizationDigest(expiry), mailboxSecretKey, auxRand) };
}

/** Encodes an authorization: id (33) ‖ expiry i64 LE ‖ signature (64). */
export function encodeMailboxAuthorization(a: MailboxAuthorization): Uint8Array {
  if (a.signature.length !== 64) throw new RangeError("signature must be 64 bytes");
  return writePubkey(new ByteWriter(), a.mailboxId).i64(a.expiry).bytes(a.signature).finish();
}

/** Decodes an authorization (exactly 105 bytes). */
export function decodeMailboxAuthorization(bytes: Uint8Array): MailboxAuthorization {
  return decodeExact(bytes, (r: ByteReader) => ({ mailboxId: readPubkey(r), expiry: r.i64(), signature: r.bytes(64) }));
}

/** Whether the authorization's signature is valid for its mailbox id. */
export function verifyMailboxAuthorization(a: MailboxAuthorization): boolean {
  return verifySchnorr(a.signature, mailboxAuthorizationDigest(a.expiry), toXOnly(a.mailboxId));
}

/** Grace the server allows past the expiry, in seconds. */
export const MAILBOX_AUTHORIZATION_GRACE_SECS = 5n;

/**
 * The server's checks: id matches the requested mailbox, not expired more than 5 s ago, valid
 * signature. Throws {@link MailboxAuthorizationError} with the reference messages.
 */
export function checkMailboxAuthorization(a: MailboxAuthorization | null, mailboxId: Uint8Array, nowUnixSecs: bigint): void {
  if (!a) throw new MailboxAuthorizationError("mailbox authorization required");
  if (!bytesEqual(a.mailboxId, mailboxId)) throw new MailboxAuthorizationError("authorization doesn't match mailbox id");
  if (a.expiry + MAILBOX_AUTHORIZATION_GRACE_SECS < nowUnixSecs) throw new MailboxAuthorizationError("mailbox authorization expired");
  if (!verifyMailboxAuthorization(a)) throw new MailboxAuthorizationError("invalid mailbox authorization signature");
}
