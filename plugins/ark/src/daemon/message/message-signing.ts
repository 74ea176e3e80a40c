import { BadRequestError } from "@tender/core";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { decodeArkAddress, fromHex, signMessage, toHex, verifyMessage, type ArkAddress } from "@tender/ark-protocol";
import type { ArkKeys } from "../keys/ark-keys.js";

const text = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** An Ark address from a request, or barkd's 400. */
function parseAddress(address: string): ArkAddress {
  try {
    return decodeArkAddress(address);
  } catch (e) {
    throw new BadRequestError(`bad request: invalid ark address: ${text(e)}`);
  }
}

/**
 * `POST /message/sign`: a BIP-340 signature over `SHA256("bark/message" ‖ message)` with the key of
 * one of the wallet's Ark addresses (random auxiliary data, so signatures differ each time).
 * An address whose key the wallet never handed out is refused.
 */
export async function signWithAddress(keys: ArkKeys, message: string, address: string): Promise<{ signature: string }> {
  const decoded = parseAddress(address);
  const key = await keys.keyByPubkey(decoded.policy.userPubkey);
  if (!key) throw new BadRequestError("bad request: address does not belong to this wallet or its key has not been derived");
  return { signature: toHex(signMessage(message, key.secretKey)) };
}

/** A hex signature of 64 bytes, or barkd's 400. */
function parseSignature(hex: string): Uint8Array {
  if (!/^[0-9a-fA-F]{128}$/.test(hex)) throw new BadRequestError("bad request: invalid signature: malformed signature");
  return fromHex(hex.toLowerCase());
}

/** A public key in hex (33-byte compressed or 65-byte uncompressed) as a 33-byte key, or barkd's 400. */
function parsePubkeyHex(hex: string): Uint8Array {
  try {
    if (!/^([0-9a-fA-F]{66}|[0-9a-fA-F]{130})$/.test(hex)) throw new Error("malformed public key");
    return secp256k1.Point.fromHex(hex.toLowerCase()).toBytes(true);
  } catch {
    throw new BadRequestError("bad request: invalid pubkey: malformed public key");
  }
}

/**
 * `POST /message/verify` (needs no wallet): checks the signature against `pubkey`, or against the
 * user key an Ark address carries; exactly one of them. A signature that does not match is
 * `valid: false`, not an error.
 */
export function verifySigned(req: { message: string; signature: string; pubkey?: string | null; address?: string | null }): { valid: boolean } {
  const signature = parseSignature(req.signature);
  const hasPubkey = req.pubkey !== undefined && req.pubkey !== null;
  const hasAddress = req.address !== undefined && req.address !== null;
  if (hasPubkey === hasAddress) throw new BadRequestError("exactly one of pubkey and address must be set");
  const pubkey = hasPubkey ? parsePubkeyHex(req.pubkey!) : parseAddress(req.address!).policy.userPubkey;
  try {
    return { valid: verifyMessage(signature, req.message, pubkey) };
  } catch {
    return { valid: false }; // bytes that are no signature at all (r off the curve) verify nothing
  }
}
