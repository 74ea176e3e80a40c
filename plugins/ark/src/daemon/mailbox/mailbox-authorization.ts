import { createMailboxAuthorization, encodeMailboxAuthorization } from "@tender/ark-protocol";

/** bark's validity of a subscription authorization (10 s) and of a sync read (10 min). */
export const SUBSCRIBE_AUTH_SECS = 10;
export const SYNC_AUTH_SECS = 600;

/** Whatever holds the mailbox key to authorize with (the wallet's `ArkKeys`, or one key). */
export interface MailboxKeyHolder {
  mailboxKey(): { secretKey: Uint8Array };
}

/** Authorizations made so far, by mailbox secret key and asked validity: one is reused while at least half of that validity is left. */
const made = new WeakMap<Uint8Array, Map<number, { expiry: bigint; encoded: Uint8Array }>>();

/**
 * An encoded `MailboxAuthorization` of the holder's mailbox key, valid for at least half of
 * `secs` seconds from now and at most `secs`. It signs only its expiry (a bearer token the
 * server accepts until then), so one made a moment ago is given again instead of signing anew
 * (a Schnorr signature for each recovery backup of a payment).
 */
export function mailboxAuthorization(keys: MailboxKeyHolder, secs: number, nowMs: number = Date.now()): Uint8Array {
  const secret = keys.mailboxKey().secretKey;
  const nowSecs = BigInt(Math.floor(nowMs / 1000));
  let bySecs = made.get(secret);
  const known = bySecs?.get(secs);
  if (known && known.expiry - nowSecs >= BigInt(Math.ceil(secs / 2)) && known.expiry - nowSecs <= BigInt(secs)) return known.encoded;
  const expiry = nowSecs + BigInt(secs);
  const encoded = encodeMailboxAuthorization(createMailboxAuthorization(secret, expiry));
  if (!bySecs) made.set(secret, (bySecs = new Map()));
  bySecs.set(secs, { expiry, encoded });
  return encoded;
}
