import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Prefix of an API key's bearer text; the owner token (base64url of a 0x00 byte first) never starts with it. */
export const API_KEY_PREFIX = "tender_key_";
const ID_BYTES = 8;
const SECRET_BYTES = 32;
const PATTERN = new RegExp(`^${API_KEY_PREFIX}([0-9a-f]{${ID_BYTES * 2}})_([A-Za-z0-9_-]{43})$`);

/** A freshly made API key: its public id, and the bearer text shown once (never stored). */
export interface NewApiKeySecret {
  id: string;
  bearer: string;
  /** What is stored: the SHA-256 of the secret part, hex. */
  secretHash: string;
}

/** SHA-256 of a key's secret part, hex. */
export function hashApiKeySecret(secret: string): string {
  return createHash("sha256").update("tender-api-key\0").update(secret, "utf8").digest("hex");
}

/** A new random key: `tender_key_<16 hex id>_<32 random bytes, base64url>`. */
export function newApiKeySecret(): NewApiKeySecret {
  const id = randomBytes(ID_BYTES).toString("hex");
  const secret = randomBytes(SECRET_BYTES).toString("base64url");
  return { id, bearer: `${API_KEY_PREFIX}${id}_${secret}`, secretHash: hashApiKeySecret(secret) };
}

/** Whether a bearer text is meant as an API key (then it is never tried as the owner token). */
export function looksLikeApiKey(bearer: string): boolean {
  return bearer.trim().startsWith(API_KEY_PREFIX);
}

/** The id and secret of an API key's bearer text, `undefined` when it is not well formed. */
export function parseApiKey(bearer: string): { id: string; secret: string } | undefined {
  const m = PATTERN.exec(bearer.trim());
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

/** Constant-time check of a presented secret against the stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashApiKeySecret(secret), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
