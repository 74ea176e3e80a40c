/**
 * The HTTP client of LNURL-pay: one GET with a time limit and a size cap, no redirects followed.
 * TLS is verified against the default CAs plus, when configured, an extra CA read from a PEM
 * file (plugin config `lnurlCaFile` / `TENDER_LNURL_CA_FILE`); the extra CA is used only here.
 * A request may connect to another address than its URL's host (a regtest host override) while
 * TLS still checks the certificate for, and sends SNI and `Host` of, the original name.
 */
import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { getCACertificates } from "node:tls";

/** Largest answer read (bytes). */
export const LNURL_MAX_BODY_BYTES = 1_048_576;

/** A GET's answer. */
export interface LnurlHttpAnswer {
  readonly status: number;
  readonly text: string;
}

/** Where and how to send one GET. */
export interface LnurlHttpRequest {
  /** The URL connected to (scheme, address, port, path and query). */
  readonly url: string;
  /** TLS server name and `Host` header when they differ from the URL's host (a host override). */
  readonly serverName?: string;
  /** PEM file of an extra CA to trust besides the default ones. */
  readonly caFile?: string;
  readonly timeoutMs: number;
}

/** Why a GET gave no answer; `message` is for the user and names no secret. */
export class LnurlHttpError extends Error {}

const UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "SELF_SIGNED_CERT_IN_CHAIN", "DEPTH_ZERO_SELF_SIGNED_CERT", "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "CERT_SIGNATURE_FAILURE", "CERT_UNTRUSTED", "CERT_REJECTED", "INVALID_CA",
]);

/** The trust list with the extra CA: the default CAs stay. */
export async function lnurlTrustList(caFile: string): Promise<string[]> {
  let pem: string;
  try {
    pem = await readFile(caFile, "utf8");
  } catch (e) {
    throw new LnurlHttpError(`cannot read the LNURL CA file ${caFile}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const certs = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  try {
    if (certs.length === 0) throw new Error("none");
    for (const c of certs) new X509Certificate(c);
  } catch {
    throw new LnurlHttpError(`the LNURL CA file ${caFile} holds no valid PEM certificate`);
  }
  return [...getCACertificates("default"), ...certs];
}

/** The user's reading of a connection error. */
function explain(e: NodeJS.ErrnoException, name: string): string {
  const code = e.code ?? "";
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") return `the TLS certificate is not valid for ${name} (${code})`;
  if (code === "CERT_HAS_EXPIRED" || code === "CERT_NOT_YET_VALID") return `the TLS certificate is outside its validity (${code})`;
  if (UNTRUSTED.has(code)) return `the TLS certificate of ${name} is not signed by a trusted CA (${code}); a private CA can be trusted with TENDER_LNURL_CA_FILE`;
  return code ? `${e.message} (${code})` : e.message;
}

/** One GET; resolves with the status and the body text (any status), rejects with {@link LnurlHttpError}. */
export async function lnurlGet(req: LnurlHttpRequest): Promise<LnurlHttpAnswer> {
  const url = new URL(req.url);
  const name = req.serverName ?? url.hostname;
  const tls = url.protocol === "https:";
  const ca = tls && req.caFile !== undefined ? await lnurlTrustList(req.caFile) : undefined;
  const options = {
    method: "GET",
    headers: { accept: "application/json", ...(req.serverName !== undefined ? { host: req.serverName } : {}) },
    signal: AbortSignal.timeout(req.timeoutMs),
    ...(tls ? { servername: name, ...(ca ? { ca } : {}) } : {}),
  };
  return new Promise<LnurlHttpAnswer>((resolve, reject) => {
    const onAnswer = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > LNURL_MAX_BODY_BYTES) {
          res.destroy();
          reject(new LnurlHttpError(`the answer is larger than ${LNURL_MAX_BODY_BYTES} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (e) => reject(new LnurlHttpError(explain(e, name))));
    };
    const r = tls ? httpsRequest(url, options, onAnswer) : httpRequest(url, options, onAnswer);
    r.on("error", (e: NodeJS.ErrnoException) => reject(new LnurlHttpError(e.name === "AbortError" || e.code === "ABORT_ERR" ? `no answer within ${req.timeoutMs} ms` : explain(e, name))));
    r.end();
  });
}
