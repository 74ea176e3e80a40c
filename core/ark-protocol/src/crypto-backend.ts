/**
 * Which implementation runs the core's MuSig2 (`musig.ts`) and BIP-340 signing and verification
 * (`schnorr.ts`):
 *
 * | backend | MuSig2 | Schnorr |
 * |---|---|---|
 * | `libsecp256k1` (default) | `musig-libsecp.ts`: BIP-327 steps here, point arithmetic in libsecp256k1 (`secp256k1-ops.ts`: native addon, WASM fallback) | libsecp256k1 (32-byte messages) |
 * | `pure-js` | `@scure/btc-signer/musig2.js` | `@noble/curves` |
 *
 * Both produce the same bytes for every deterministic step, so the pure-JS one serves as an
 * independent cross-check in tests and as the baseline of the benchmark. Production code never
 * switches: this module is not exported from the package entry point.
 */

/** The two implementations. */
export type CryptoBackendName = "libsecp256k1" | "pure-js";

let current: CryptoBackendName = "libsecp256k1";

/** The backend in use. */
export function cryptoBackend(): CryptoBackendName {
  return current;
}

/** Switches the backend; returns the previous one (restore it when done). */
export function useCryptoBackend(name: CryptoBackendName): CryptoBackendName {
  const prev = current;
  current = name;
  return prev;
}

/** Runs synchronous `fn` with `name` as backend, restoring the previous one afterwards. */
export function withCryptoBackend<T>(name: CryptoBackendName, fn: () => T): T {
  const prev = useCryptoBackend(name);
  try {
    return fn();
  } finally {
    useCryptoBackend(prev);
  }
}
