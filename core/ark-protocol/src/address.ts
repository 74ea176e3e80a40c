/**
 * Ark addresses (bark's `ark::address`): bech32m with HRP `ark` (mainnet) or `tark` (every
 * other network), version group 1, payload = ArkId ‖ policy ‖ delivery methods; the blinded
 * mailbox id; and the checks a wallet runs before paying to an address.
 *
 * @example
 * ```ts
 * const addr = decodeArkAddress("ark1p…");
 * checkArkoorAddress(addr, { network: "bitcoin", serverPubkey }); // throws AddressError if unusable
 * encodeArkAddress(addr);                                       // same string
 * ```
 */
import { bech32m } from "@scure/base";
import { AddressError, ProtocolDecodeError } from "./errors.js";
import { ByteReader, ByteWriter, bytesEqual, MAX_DECODED_VECTOR_BYTES } from "./encoding.js";
import { sha256 } from "./hashes.js";
import { ecc } from "./secp256k1-ops.js";
import { bytesToBigInt, CURVE_ORDER, isCompressedPoint, negateCompressed, parsePubkey, pubkeyToPoint } from "./keys.js";
import { encodePolicy, readUserPolicy, type VtxoPolicy } from "./policy.js";
import { isMainnet, type Network } from "./network.js";

/** HRP of mainnet Ark addresses. */
export const ARK_HRP_MAINNET = "ark";
/** HRP of Ark addresses on every other network. */
export const ARK_HRP_TESTNET = "tark";
/** Version group of bark policy addresses. */
export const ARK_ADDRESS_VERSION = 1;
/** Delivery type byte of a server mailbox. */
export const DELIVERY_SERVER_MAILBOX = 0x01;

/** How a sender delivers VTXOs to the address owner. */
export type Delivery =
  | { readonly type: "server-mailbox"; readonly blindedId: Uint8Array }
  /** A delivery type this code does not know (kept opaque so it round-trips). */
  | { readonly type: "unknown"; readonly typeByte: number; readonly data: Uint8Array };

/** A decoded Ark address. */
export interface ArkAddress {
  /** True for `tark` (any non-mainnet network). */
  readonly testnet: boolean;
  /** First 4 bytes of SHA256 of the server pubkey. */
  readonly arkId: Uint8Array;
  readonly policy: VtxoPolicy;
  readonly deliveries: readonly Delivery[];
}

/** ArkId of a server: first 4 bytes of SHA256(33-byte server pubkey). */
export function arkId(serverPubkey: Uint8Array): Uint8Array {
  return sha256(serverPubkey).slice(0, 4);
}

/** The address payload bytes (ArkId ‖ policy ‖ deliveries). */
export function encodeArkAddressPayload(addr: ArkAddress): Uint8Array {
  if (addr.arkId.length !== 4) throw new AddressError("invalid", "ArkId must be 4 bytes");
  const w = new ByteWriter().bytes(addr.arkId).varBytes(encodePolicy(addr.policy));
  for (const d of addr.deliveries) {
    if (d.type === "server-mailbox") w.varBytes(Uint8Array.of(DELIVERY_SERVER_MAILBOX, ...parsePubkey(d.blindedId)));
    else w.varBytes(Uint8Array.of(d.typeByte, ...d.data));
  }
  return w.finish();
}

/** Encodes an address; refuses one without any delivery method. */
export function encodeArkAddress(addr: ArkAddress): string {
  if (addr.deliveries.length === 0) throw new AddressError("no-delivery", "an Ark address needs at least one delivery method");
  const words = [ARK_ADDRESS_VERSION, ...bech32m.toWords(encodeArkAddressPayload(addr))];
  return bech32m.encode(addr.testnet ? ARK_HRP_TESTNET : ARK_HRP_MAINNET, words, false);
}

function readDelivery(r: ByteReader): Delivery {
  const body = r.varBytes(MAX_DECODED_VECTOR_BYTES, "delivery");
  if (body.length === 0) throw new ProtocolDecodeError("empty delivery method");
  const typeByte = body[0]!;
  const data = body.slice(1);
  if (typeByte === DELIVERY_SERVER_MAILBOX) return { type: "server-mailbox", blindedId: parsePubkey(data) };
  return { type: "unknown", typeByte, data };
}

/** Decodes an address payload (ArkId ‖ policy ‖ deliveries). */
export function decodeArkAddressPayload(payload: Uint8Array, testnet: boolean): ArkAddress {
  try {
    const r = new ByteReader(payload);
    const id = r.bytes(4);
    const policyBytes = r.varBytes(MAX_DECODED_VECTOR_BYTES, "policy field");
    const pr = new ByteReader(policyBytes);
    const policy = readUserPolicy(pr);
    pr.finish();
    const deliveries: Delivery[] = [];
    while (r.remaining > 0) deliveries.push(readDelivery(r));
    return { testnet, arkId: id, policy, deliveries };
  } catch (e) {
    if (e instanceof AddressError) throw e;
    throw new AddressError("invalid", `invalid Ark address: ${(e as Error).message}`);
  }
}

/** Decodes an Ark address string (either case). */
export function decodeArkAddress(address: string): ArkAddress {
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32m.decode(address as `${string}1${string}`, false);
  } catch (e) {
    throw new AddressError("invalid", `invalid bech32m Ark address: ${(e as Error).message}`);
  }
  const hrp = decoded.prefix.toLowerCase();
  if (hrp !== ARK_HRP_MAINNET && hrp !== ARK_HRP_TESTNET) throw new AddressError("hrp", `unknown Ark address HRP "${hrp}"`);
  const version = decoded.words[0];
  if (version === 0) throw new AddressError("arkade", "address is an Arkade address and cannot be used here");
  if (version !== ARK_ADDRESS_VERSION) throw new AddressError("unknown-version", `unknown Ark address version ${version}`);
  let payload: Uint8Array;
  try {
    payload = bech32m.fromWords(decoded.words.slice(1));
  } catch (e) {
    throw new AddressError("invalid", `invalid Ark address padding: ${(e as Error).message}`);
  }
  return decodeArkAddressPayload(payload, hrp === ARK_HRP_TESTNET);
}

/**
 * Blinded mailbox id `M + v·P_mbx` (full point addition, ECDH point not hashed; only the server,
 * knowing the mailbox secret, can unblind): `mailboxId` = wallet mailbox pubkey,
 * `vtxoSecretKey` = secret of the address's VTXO key, `serverMailboxPubkey` from ArkInfo.
 */
export function blindMailboxId(mailboxId: Uint8Array, serverMailboxPubkey: Uint8Array, vtxoSecretKey: Uint8Array): Uint8Array {
  const v = bytesToBigInt(vtxoSecretKey);
  if (vtxoSecretKey.length !== 32 || v === 0n || v >= CURVE_ORDER) throw new AddressError("invalid", "invalid VTXO secret key");
  const blinded = ecc.pointAdd(validPoint(mailboxId), ecc.pointMultiply(validPoint(serverMailboxPubkey), vtxoSecretKey, true)!, true);
  if (!blinded) throw new AddressError("invalid", "blinded mailbox id is the point at infinity");
  return blinded;
}

/** Server-side unblinding `blinded − d_mbx·V` with the mailbox secret and the VTXO pubkey. */
export function unblindMailboxId(blindedId: Uint8Array, serverMailboxSecret: Uint8Array, vtxoPubkey: Uint8Array): Uint8Array {
  const d = bytesToBigInt(serverMailboxSecret);
  if (serverMailboxSecret.length !== 32 || d === 0n || d >= CURVE_ORDER) throw new AddressError("invalid", "invalid mailbox secret key");
  const dV = ecc.pointMultiply(validPoint(vtxoPubkey), serverMailboxSecret, true)!;
  const m = ecc.pointAdd(validPoint(blindedId), negateCompressed(dV), true);
  if (!m) throw new AddressError("invalid", "unblinded mailbox id is the point at infinity");
  return m;
}

/**
 * `p` when it is a valid compressed point, else the error {@link pubkeyToPoint} gives. The
 * blinding runs on libsecp256k1 (constant-time multiplication by the secret scalar), whose
 * `pointMultiply` with a valid point and a scalar in [1, n) never gives infinity.
 */
function validPoint(p: Uint8Array): Uint8Array {
  if (!isCompressedPoint(p)) pubkeyToPoint(p);
  return p;
}

/** Inputs of {@link walletArkAddress}. */
export interface WalletAddressParams {
  readonly network: Network;
  readonly serverPubkey: Uint8Array;
  readonly serverMailboxPubkey: Uint8Array;
  /** Wallet mailbox pubkey (`m/350'/1'`). */
  readonly mailboxId: Uint8Array;
  readonly vtxoPubkey: Uint8Array;
  readonly vtxoSecretKey: Uint8Array;
}

/**
 * The address bark gives out for one VTXO key: `pubkey` policy, ArkId of the pinned server key,
 * one server-mailbox delivery with the blinded mailbox id. Needs no server, so works offline.
 */
export function walletArkAddress(p: WalletAddressParams): ArkAddress {
  return {
    testnet: !isMainnet(p.network),
    arkId: arkId(p.serverPubkey),
    policy: { type: "pubkey", userPubkey: parsePubkey(p.vtxoPubkey) },
    deliveries: [{ type: "server-mailbox", blindedId: blindMailboxId(p.mailboxId, p.serverMailboxPubkey, p.vtxoSecretKey) }],
  };
}

/**
 * The checks before an arkoor payment (bark's `validate_arkoor_address`): network, server
 * ("different server"), `pubkey` policy, at least one delivery. Returns the deliveries this
 * code knows how to use (empty if all are unknown: the payment could then not be delivered).
 */
export function checkArkoorAddress(addr: ArkAddress, expect: { network: Network; serverPubkey: Uint8Array }): Delivery[] {
  if (addr.testnet === isMainnet(expect.network)) throw new AddressError("different-network", "Ark address is for different network");
  if (!bytesEqual(addr.arkId, arkId(expect.serverPubkey))) throw new AddressError("different-server", "Ark address is for different server");
  if (addr.policy.type !== "pubkey") throw new AddressError("policy-not-allowed", `policy ${addr.policy.type} cannot receive arkoor payments`);
  if (addr.deliveries.length === 0) throw new AddressError("no-delivery", "Ark address has no delivery method");
  return addr.deliveries.filter((d) => d.type !== "unknown");
}

/** Whether a string is a well-formed Ark address (never throws). */
export function isArkAddress(s: string): boolean {
  try {
    decodeArkAddress(s);
    return true;
  } catch {
    return false;
  }
}
