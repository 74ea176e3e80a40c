import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** The header carrying a delivery's signature. */
export const SIGNATURE_HEADER = "Tender-Signature";

/** A new webhook secret: `whsec_` and 32 random bytes as lowercase hex. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("hex")}`;
}

/** HMAC-SHA256, keyed with the secret's UTF-8 bytes, over `<timestamp>.<body>`, as lowercase hex. */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

/** The `Tender-Signature` value: `t=<unix seconds>,v1=<hex HMAC>`. */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${signPayload(secret, timestamp, body)}`;
}

/**
 * Checks a `Tender-Signature` value against `body` (what a receiver does): the `v1` HMAC must
 * match and `t` be within `toleranceSecs` of `nowSecs`.
 */
export function verifySignature(secret: string, header: string, body: string, nowSecs: number, toleranceSecs = 300): boolean {
  const parts = new Map(header.split(",").map((p) => {
    const i = p.indexOf("=");
    return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const;
  }));
  const t = Number(parts.get("t"));
  const v1 = parts.get("v1");
  if (!Number.isInteger(t) || !v1 || !/^[0-9a-f]{64}$/.test(v1)) return false;
  if (Math.abs(nowSecs - t) > toleranceSecs) return false;
  return timingSafeEqual(Buffer.from(v1, "hex"), Buffer.from(signPayload(secret, t, body), "hex"));
}
