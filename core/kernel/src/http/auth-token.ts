import { randomBytes, timingSafeEqual } from "node:crypto";

/** Version byte of barkd's only token format: version ‖ 32 random bytes, base64url unpadded. */
export const AUTH_TOKEN_VERSION = 0;
const SECRET_LEN = 32;
const ENCODED_LEN = 44; // 33 bytes, base64url without padding

/** The daemon's API token: a version byte and a 32-byte secret. Never log it. */
export class AuthToken {
  private constructor(private readonly bytes: Uint8Array) {}

  /** A fresh random token. */
  static generate(): AuthToken {
    return AuthToken.fromSecret(randomBytes(SECRET_LEN));
  }

  /** The token for a given 32-byte secret (`secret refresh --secret HEX`). */
  static fromSecret(secret: Uint8Array): AuthToken {
    if (secret.length !== SECRET_LEN) throw new Error(`token secret must be ${SECRET_LEN} bytes`);
    const b = new Uint8Array(1 + SECRET_LEN);
    b[0] = AUTH_TOKEN_VERSION;
    b.set(secret, 1);
    return new AuthToken(b);
  }

  /**
   * Parses the text form. Surrounding whitespace is trimmed; padding, other alphabets, a wrong
   * length or an unknown version byte are refused. Returns `undefined` when invalid.
   */
  static parse(text: string): AuthToken | undefined {
    const s = text.trim();
    if (s.length !== ENCODED_LEN || !/^[A-Za-z0-9_-]+$/.test(s)) return undefined;
    const bytes = Buffer.from(s, "base64url");
    if (bytes.length !== 1 + SECRET_LEN || bytes[0] !== AUTH_TOKEN_VERSION) return undefined;
    if (bytes.toString("base64url") !== s) return undefined; // non-canonical trailing bits
    return new AuthToken(new Uint8Array(bytes));
  }

  /** base64url without padding: 44 characters starting with `A`. */
  encode(): string {
    return Buffer.from(this.bytes).toString("base64url");
  }

  /** Constant-time comparison. */
  equals(other: AuthToken): boolean {
    return timingSafeEqual(this.bytes, other.bytes);
  }

  toString(): string {
    return "AuthToken(<redacted>)";
  }

  toJSON(): string {
    return "<redacted>";
  }
}
