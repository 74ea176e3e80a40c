import { ChainSourceUnavailableError } from "./chain-errors.js";

/** A fetched HTTP response with its body already read. */
export interface HttpReply {
  readonly status: number;
  readonly contentType: string;
  readonly body: Uint8Array;
  /** The body decoded as UTF-8. */
  text(): string;
}

/**
 * One HTTP request with a timeout, using Node's global `fetch`. Transport failures
 * (connection refused/reset, DNS, timeout while connecting or reading) become
 * {@link ChainSourceUnavailableError} naming `source`; every HTTP status is returned as is.
 */
export async function httpRequest(
  source: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  timeoutMs: number,
): Promise<HttpReply> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(url, { ...init, signal });
    const body = new Uint8Array(await res.arrayBuffer());
    const contentType = res.headers.get("content-type") ?? "";
    return { status: res.status, contentType, body, text: () => new TextDecoder().decode(body) };
  } catch (err) {
    if (signal.aborted) {
      throw new ChainSourceUnavailableError(source, "timeout", `no answer within ${timeoutMs} ms`, 1, { cause: err });
    }
    throw new ChainSourceUnavailableError(source, "connection", describeFetchFailure(err), 1, { cause: err, notProcessed: failedBeforeSending(err) });
  }
}

/**
 * Error codes of failures that happen before a request can leave this machine: no address for
 * the host, no route, nobody listening, or no connection made in time.
 */
const BEFORE_SENDING = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "UND_ERR_CONNECT_TIMEOUT"]);

/** Whether a fetch failure's cause chain shows the request was never sent (see {@link BEFORE_SENDING}). */
function failedBeforeSending(err: unknown): boolean {
  let cur: unknown = err;
  for (let depth = 0; cur instanceof Error && depth < 5; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string") return BEFORE_SENDING.has(code);
    // Several addresses tried (happy eyeballs): every one must have failed before sending.
    if (cur instanceof AggregateError && cur.errors.length > 0) return cur.errors.every((e) => failedBeforeSending(e));
    cur = cur.cause;
  }
  return false;
}

/** The most specific message in a fetch failure's cause chain (`ECONNREFUSED`, …). */
function describeFetchFailure(err: unknown): string {
  let cur: unknown = err;
  let best = "request failed";
  for (let depth = 0; cur instanceof Error && depth < 5; depth++) {
    const code = (cur as { code?: unknown }).code;
    best = typeof code === "string" ? `${code}: ${cur.message}` : cur.message;
    cur = cur.cause;
  }
  return best;
}
