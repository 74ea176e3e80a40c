import { createMailboxAuthorization, encodeMailboxAuthorization } from "@tender/ark-protocol";

/** bark's validity of a subscription authorization (10 s) and of a sync read (10 min). */
export const SUBSCRIBE_AUTH_SECS = 10;
export const SYNC_AUTH_SECS = 600;

/** Whatever holds the mailbox key to authorize with (the wallet's `ArkKeys`, or one key). */
export interface MailboxKeyHolder {
  mailboxKey(): { secretKey: Uint8Array };
}

/** An encoded `MailboxAuthorization` of the holder's mailbox key, valid for `secs` seconds from now. */
export function mailboxAuthorization(keys: MailboxKeyHolder, secs: number, nowMs: number = Date.now()): Uint8Array {
  const expiry = BigInt(Math.floor(nowMs / 1000) + secs);
  return encodeMailboxAuthorization(createMailboxAuthorization(keys.mailboxKey().secretKey, expiry));
}
