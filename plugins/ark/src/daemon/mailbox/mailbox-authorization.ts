import { createMailboxAuthorization, encodeMailboxAuthorization } from "../../protocol/index.js";
import type { ArkKeys } from "../keys/ark-keys.js";

/** bark's validity of a subscription authorization (10 s) and of a sync read (10 min). */
export const SUBSCRIBE_AUTH_SECS = 10;
export const SYNC_AUTH_SECS = 600;

/** An encoded `MailboxAuthorization` of the wallet's mailbox key, valid for `secs` seconds from now. */
export function mailboxAuthorization(keys: ArkKeys, secs: number, nowMs: number = Date.now()): Uint8Array {
  const expiry = BigInt(Math.floor(nowMs / 1000) + secs);
  return encodeMailboxAuthorization(createMailboxAuthorization(keys.mailboxKey().secretKey, expiry));
}
