/**
 * Server address handling: only `http://` (plaintext) and `https://` (TLS, platform
 * root store, SNI = host); an address without a scheme gets `https://`, as bark does.
 */
import { ArkServerUrlError } from "./errors.js";

/** Where and how to connect. */
export interface ServerTarget {
  /** `host:port` for grpc-js. */
  readonly address: string;
  /** Whether the channel uses TLS. */
  readonly tls: boolean;
  /** Host name for SNI and logs. */
  readonly host: string;
}

/**
 * Parses a server URL into a grpc-js target.
 *
 * @example
 * parseServerUrl("http://127.0.0.1:3535"); // { address: "127.0.0.1:3535", tls: false, host: "127.0.0.1" }
 */
export function parseServerUrl(url: string): ServerTarget {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new ArkServerUrlError(url, "not a URL");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new ArkServerUrlError(url, `unsupported scheme ${u.protocol.slice(0, -1)} (use http:// or https://)`);
  if (!u.hostname) throw new ArkServerUrlError(url, "missing host");
  if (u.username || u.password) throw new ArkServerUrlError(url, "credentials in the URL are not supported");
  if (u.pathname !== "/" && u.pathname !== "") throw new ArkServerUrlError(url, "a path is not supported");
  const tls = u.protocol === "https:";
  const port = u.port || (tls ? "443" : "80");
  return { address: `${u.hostname}:${port}`, tls, host: u.hostname.replace(/^\[|\]$/g, "") };
}
