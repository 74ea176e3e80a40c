import {
  ChainSourceInvalidRequestError,
  ChainSourceProtocolError,
  ChainSourceUnavailableError,
  DEFAULT_RETRY_POLICY,
  httpRequest,
  retryTransient,
  type HttpReply,
  type RetryPolicy,
} from "@tender/core";

/** Connection settings of an Esplora REST endpoint. */
export interface EsploraHttpOptions {
  /** Base URL, e.g. `https://blockstream.info/api` or `http://127.0.0.1:3002`. */
  readonly url: string;
  /** Per-request timeout. Default 10 s. */
  readonly timeoutMs?: number;
  /** Retry policy for transient failures. Default {@link DEFAULT_RETRY_POLICY}. */
  readonly retry?: RetryPolicy;
}

/** An Esplora answer that is not a success and not a transient failure. */
export interface EsploraClientFailure {
  readonly status: number;
  readonly body: string;
}

/**
 * HTTP access to one Esplora server: builds URLs, applies the timeout, retries transient
 * failures (transport errors, 429, 5xx) and hands every other status back to the caller.
 */
export class EsploraHttp {
  private readonly base: string;
  /** Basic auth taken from user info in the URL (fetch refuses URLs with credentials). */
  private readonly authorization: string | null;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;

  constructor(
    readonly label: string,
    options: EsploraHttpOptions,
  ) {
    const u = URL.parse(options.url);
    if (!u || !/^https?:$/.test(u.protocol)) throw new ChainSourceInvalidRequestError(label, "Esplora URL must be an http(s) URL");
    this.authorization = u.username ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}` : null;
    u.username = "";
    u.password = "";
    this.base = u.toString().replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
  }

  /** Performs the request; returns the reply for 2xx and 4xx (except 429), retries the rest. */
  async request(method: "GET" | "POST", path: string, body?: { text: string; type: string }): Promise<HttpReply> {
    return retryTransient(async () => {
      const headers: Record<string, string> = {};
      if (this.authorization) headers.authorization = this.authorization;
      if (body) headers["content-type"] = body.type;
      const init = body ? { method, body: body.text, headers } : { method, headers };
      const reply = await httpRequest(this.label, `${this.base}${path}`, init, this.timeoutMs);
      if (reply.status === 429 || reply.status >= 500) {
        throw new ChainSourceUnavailableError(this.label, "server-error", `HTTP ${reply.status} on ${method} ${path}: ${snippet(reply.text())}`);
      }
      return reply;
    }, { policy: this.retry });
  }

  /** GET returning the text body, `null` on 404; other non-2xx are protocol errors. */
  async getText(path: string): Promise<string | null> {
    const reply = await this.request("GET", path);
    if (reply.status === 404) return null;
    if (reply.status !== 200) throw this.unexpected("GET", path, reply);
    return reply.text().trim();
  }

  /** GET returning parsed JSON, `null` on 404. */
  async getJson(path: string): Promise<unknown> {
    const text = await this.getText(path);
    if (text === null) return null;
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new ChainSourceProtocolError(this.label, `GET ${path} returned invalid JSON`, { cause: err });
    }
  }

  /** GET returning raw bytes as hex, `null` on 404. */
  async getBinaryHex(path: string): Promise<string | null> {
    const reply = await this.request("GET", path);
    if (reply.status === 404) return null;
    if (reply.status !== 200) throw this.unexpected("GET", path, reply);
    return Buffer.from(reply.body).toString("hex");
  }

  /** A protocol error describing an unexpected reply. */
  unexpected(method: string, path: string, reply: HttpReply): ChainSourceProtocolError {
    return new ChainSourceProtocolError(this.label, `${method} ${path} returned HTTP ${reply.status}: ${snippet(reply.text())}`);
  }
}

/** The first 300 characters of a body, for messages. */
export function snippet(text: string): string {
  const t = text.trim();
  return t.length > 300 ? `${t.slice(0, 300)}…` : t;
}
