/**
 * LNURL-pay resolution by the wallet: a Lightning address (LUD-16, `name@domain` →
 * `https://domain/.well-known/lnurlp/name`) or an LNURL's URL (LUD-01) is asked for its pay
 * request (LUD-06), then its callback for an invoice of exactly the amount (msat), with the
 * comment when the service allows one (LUD-12). Only a `payRequest` is accepted (withdraw and
 * channel requests are refused); the returned BOLT11 invoice must ask exactly the amount asked; a
 * description hash that does not commit to the pay request's metadata is only logged.
 *
 * Requests go over https (or http to an onion service) only, verified against the default CAs and
 * an optional extra CA (`caFile`: plugin config `lnurlCaFile` or `TENDER_LNURL_CA_FILE`, see
 * `lnurl-http.ts`). For a regtest wallet a host may be mapped to a test server:
 * {@link LnurlHostOverrides} (plugin config `lnurlHostOverrides`, or
 * `TENDER_LNURL_HOST_OVERRIDE="host=https://127.0.0.1:port,…"`); the request goes to `base` + the
 * original path and query. An https base is a resolution override only: TLS still verifies the
 * certificate for the original host name (SNI and `Host` are that name). An http base is plain
 * http to a test server. Other networks ignore the mapping.
 */
import { sha256, toHex } from "@tender/ark-protocol";
import { decodeBolt11, type Bolt11Invoice } from "@tender/plugin-wallet";
import { lnurlGet, type LnurlHttpAnswer } from "./lnurl-http.js";

/** Host name (lowercase) → base URL serving it, for regtest wallets only. */
export type LnurlHostOverrides = ReadonlyMap<string, string>;

/** The wallet's LNURL settings: regtest host overrides and an extra CA file. */
export interface LnurlSettings {
  readonly overrides: LnurlHostOverrides;
  readonly caFile?: string;
}

/** Why an LNURL-pay could not give an invoice (the message is for the user). */
export class LnurlPayError extends Error {}

export interface LnurlPayOptions {
  readonly walletNetwork: string;
  readonly overrides: LnurlHostOverrides;
  /** PEM file of an extra CA trusted for LNURL requests (besides the default CAs). */
  readonly caFile?: string;
  readonly warn: (message: string) => void;
  /** A stand-in HTTP client (tests); it gets the URL only, so no extra CA nor server name. */
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

/** The pay request URL of a Lightning address. */
export function lightningAddressUrl(address: string): string {
  const at = address.lastIndexOf("@");
  const name = address.slice(0, at).toLowerCase();
  const domain = address.slice(at + 1).toLowerCase();
  if (!/^[a-z0-9\-_.+]+$/.test(name) || domain.length === 0) throw new LnurlPayError(`${address} is not a valid Lightning address`);
  const scheme = domain.endsWith(".onion") ? "http" : "https";
  return `${scheme}://${domain}/.well-known/lnurlp/${name}`;
}

/** Parses `TENDER_LNURL_HOST_OVERRIDE`-style text and a config object into one map. */
export function parseHostOverrides(env: string | undefined, config: unknown): LnurlHostOverrides {
  const map = new Map<string, string>();
  const add = (host: string, base: string) => {
    const u = new URL(base);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`LNURL host override for ${host}: ${base} is not an http(s) URL`);
    map.set(host.trim().toLowerCase(), base.replace(/\/+$/, ""));
  };
  if (config && typeof config === "object") for (const [h, b] of Object.entries(config)) if (typeof b === "string") add(h, b);
  for (const part of (env ?? "").split(",").map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new Error(`TENDER_LNURL_HOST_OVERRIDE: ${part} is not host=url`);
    add(part.slice(0, eq), part.slice(eq + 1));
  }
  return map;
}

/** Where to send a request: overridden on regtest (an https base keeps the original name for TLS), else https (or http on an onion service) required. */
function requestTarget(url: string, o: LnurlPayOptions): { url: string; serverName?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new LnurlPayError(`invalid LNURL URL ${url}`);
  }
  const base = o.walletNetwork === "regtest" ? o.overrides.get(u.hostname.toLowerCase()) : undefined;
  if (base !== undefined) {
    if (u.protocol === "https:" && base.startsWith("https:")) return { url: `${base}${u.pathname}${u.search}`, serverName: u.hostname.toLowerCase() };
    return { url: `${base}${u.pathname}${u.search}` };
  }
  if (!(u.protocol === "https:" || (u.protocol === "http:" && u.hostname.endsWith(".onion")))) {
    throw new LnurlPayError(`LNURL requests must use https: ${u.protocol}//${u.host}`);
  }
  return { url: u.toString() };
}

/** One GET through the stand-in client or {@link lnurlGet}. */
async function get(target: { url: string; serverName?: string }, o: LnurlPayOptions): Promise<LnurlHttpAnswer> {
  const timeoutMs = o.timeoutMs ?? 15_000;
  if (!o.fetch) return lnurlGet({ ...target, timeoutMs, ...(o.caFile !== undefined ? { caFile: o.caFile } : {}) });
  const res = await o.fetch(target.url, { signal: AbortSignal.timeout(timeoutMs), redirect: "error", headers: { accept: "application/json" } });
  return { status: res.status, text: await res.text() };
}

async function getJson(url: string, o: LnurlPayOptions): Promise<Record<string, unknown>> {
  const target = requestTarget(url, o);
  let res: LnurlHttpAnswer;
  try {
    res = await get(target, o);
  } catch (e) {
    throw new LnurlPayError(`LNURL request to ${new URL(url).host} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const text = res.text;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new LnurlPayError(`LNURL service ${new URL(url).host} answered ${res.status} without JSON`);
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new LnurlPayError(`LNURL service ${new URL(url).host} answered ${res.status} with no JSON object`);
  const b = body as Record<string, unknown>;
  if (typeof b.status === "string" && b.status.toUpperCase() === "ERROR") {
    throw new LnurlPayError(`LNURL service error: ${typeof b.reason === "string" ? b.reason : "no reason given"}`);
  }
  if (res.status < 200 || res.status > 299) throw new LnurlPayError(`LNURL service ${new URL(url).host} answered ${res.status}`);
  return b;
}

const msat = (v: unknown, name: string): bigint => {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^\d{1,20}$/.test(v)) return BigInt(v);
  throw new LnurlPayError(`LNURL pay request without a valid ${name}`);
};

/**
 * Resolves an LNURL-pay URL to a BOLT11 invoice for exactly `amountMsat`. Throws
 * {@link LnurlPayError} for every refusal (nothing is paid then).
 */
export async function fetchLnurlInvoice(payUrl: string, amountMsat: bigint, comment: string | undefined, o: LnurlPayOptions): Promise<Bolt11Invoice> {
  const req = await getJson(payUrl, o);
  if (req.tag !== "payRequest") throw new LnurlPayError(`LNURL is not a pay request (tag: ${typeof req.tag === "string" ? req.tag : "none"})`);
  if (typeof req.callback !== "string") throw new LnurlPayError("LNURL pay request without a callback");
  if (typeof req.metadata !== "string") throw new LnurlPayError("LNURL pay request without metadata");
  const min = msat(req.minSendable, "minSendable");
  const max = msat(req.maxSendable, "maxSendable");
  if (amountMsat < min || amountMsat > max) {
    throw new LnurlPayError(`amount ${amountMsat / 1000n} sat is outside what the recipient accepts (${(min + 999n) / 1000n}–${max / 1000n} sat)`);
  }
  const allowed = typeof req.commentAllowed === "number" ? req.commentAllowed : 0;
  if (comment !== undefined && comment.length > 0) {
    if (allowed <= 0) throw new LnurlPayError("the recipient does not accept comments");
    if ([...comment].length > allowed) throw new LnurlPayError(`comment is longer than the ${allowed} characters the recipient accepts`);
  }
  let callback: URL;
  try {
    callback = new URL(req.callback);
  } catch {
    throw new LnurlPayError("LNURL pay request with an invalid callback");
  }
  callback.searchParams.set("amount", amountMsat.toString());
  if (comment !== undefined && comment.length > 0) callback.searchParams.set("comment", comment);
  const answer = await getJson(callback.toString(), o);
  if (typeof answer.pr !== "string") throw new LnurlPayError("LNURL callback answered no invoice");
  let invoice: Bolt11Invoice;
  try {
    invoice = decodeBolt11(answer.pr.replace(/^lightning:/i, ""));
  } catch (e) {
    throw new LnurlPayError(`LNURL callback answered an invalid invoice: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (invoice.amountMsat !== amountMsat) {
    throw new LnurlPayError(`LNURL callback answered an invoice for ${invoice.amountMsat ?? "no"} msat, ${amountMsat} msat was asked`);
  }
  const expected = sha256(new TextEncoder().encode(req.metadata));
  if (!invoice.descriptionHash || toHex(invoice.descriptionHash) !== toHex(expected)) {
    o.warn(`LNURL invoice ${toHex(invoice.paymentHash)}: its description hash does not commit to the pay request's metadata`);
  }
  return invoice;
}
