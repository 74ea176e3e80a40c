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
import { BitcoindCredentials, type BitcoindAuth } from "./bitcoind-auth.js";

/** bitcoind RPC error codes this client acts on. */
export const RpcCode = {
  MISC: -1,
  TYPE: -3,
  INVALID_ADDRESS_OR_KEY: -5,
  INVALID_PARAMETER: -8,
  DESERIALIZATION: -22,
  VERIFY_ERROR: -25,
  VERIFY_REJECTED: -26,
  VERIFY_ALREADY_IN_CHAIN: -27,
  IN_WARMUP: -28,
  METHOD_NOT_FOUND: -32601,
} as const;

/** An error object returned by bitcoind for one call. */
export class BitcoindRpcError extends ChainSourceProtocolError {
  constructor(
    source: string,
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(source, `${method} failed with RPC error ${code}: ${rpcMessage}`);
  }
}

/** Connection settings of a bitcoind JSON-RPC endpoint. */
export interface BitcoindRpcOptions {
  /** e.g. `http://127.0.0.1:18443` (a wallet path such as `/wallet/x` is kept). */
  readonly url: string;
  readonly auth: BitcoindAuth;
  /** Per-request timeout. Default 30 s. */
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
}

/** One call of a batch. */
export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

/** One call's outcome in a batch: its result, or the RPC error (never thrown for batches). */
export type RpcOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: BitcoindRpcError };

interface Envelope {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
}

/**
 * A JSON-RPC client for bitcoind: single and batch calls, cookie or user/password auth,
 * timeouts, and retries with backoff for transport failures, HTTP 5xx without an RPC error
 * body, and "warming up" (-28). RPC errors are never retried.
 */
export class BitcoindRpc {
  private readonly url: string;
  private readonly credentials: BitcoindCredentials;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private nextId = 1;

  constructor(
    readonly label: string,
    options: BitcoindRpcOptions,
  ) {
    const u = URL.parse(options.url);
    if (!u || !/^https?:$/.test(u.protocol)) throw new ChainSourceInvalidRequestError(label, "bitcoind URL must be an http(s) URL");
    u.username = "";
    u.password = "";
    this.url = u.toString();
    this.credentials = new BitcoindCredentials(label, options.auth);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
  }

  /** Calls one method; an RPC error is thrown as {@link BitcoindRpcError}. */
  async call(method: string, params: readonly unknown[] = []): Promise<unknown> {
    const id = this.nextId++;
    const reply = await this.post({ jsonrpc: "1.0", id, method, params });
    const env = this.parse(reply, method);
    if (Array.isArray(env)) throw new ChainSourceProtocolError(this.label, `${method}: batch reply to a single call`);
    return this.unwrap(env, method);
  }

  /** Calls several methods in one HTTP request; outcomes are returned in call order. */
  async batch(calls: readonly RpcCall[]): Promise<RpcOutcome[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: "1.0", id: first + i, method: c.method, params: c.params }));
    const reply = await this.post(body);
    const envs = this.parse(reply, "batch");
    if (!Array.isArray(envs)) throw new ChainSourceProtocolError(this.label, "batch answered with a single reply");
    return calls.map((c, i) => {
      const env = envs.find((e) => e.id === first + i);
      if (!env) throw new ChainSourceProtocolError(this.label, `batch reply lacks ${c.method}`);
      try {
        return { ok: true, result: this.unwrap(env, c.method) };
      } catch (err) {
        if (err instanceof BitcoindRpcError) return { ok: false, error: err };
        throw err;
      }
    });
  }

  private async post(body: unknown): Promise<HttpReply> {
    let reauthenticated = false;
    return retryTransient(async () => {
      for (;;) {
        const headers = { "content-type": "application/json", authorization: await this.credentials.header() };
        const reply = await httpRequest(this.label, this.url, { method: "POST", headers, body: JSON.stringify(body) }, this.timeoutMs);
        if (reply.status === 401 || reply.status === 403) {
          if (!reauthenticated && this.credentials.invalidate()) {
            reauthenticated = true;
            continue;
          }
          throw new ChainSourceProtocolError(this.label, `authentication failed (HTTP ${reply.status}); check the cookie file or rpc user/password`);
        }
        if (reply.status === 503 || (reply.status >= 500 && !looksLikeJson(reply))) {
          throw new ChainSourceUnavailableError(this.label, "server-error", `HTTP ${reply.status}: ${reply.text().slice(0, 200)}`);
        }
        this.throwIfWarmingUp(reply);
        return reply;
      }
    }, { policy: this.retry });
  }

  private throwIfWarmingUp(reply: HttpReply): void {
    if (!looksLikeJson(reply)) return;
    try {
      const parsed = JSON.parse(reply.text()) as Envelope | Envelope[];
      const envs = Array.isArray(parsed) ? parsed : [parsed];
      const warm = envs.find((e) => e.error && e.error.code === RpcCode.IN_WARMUP);
      // bitcoind answers -28 without running the call.
      if (warm) throw new ChainSourceUnavailableError(this.label, "warming-up", String(warm.error?.message ?? "warming up"), 1, { notProcessed: true });
    } catch (err) {
      if (err instanceof ChainSourceUnavailableError) throw err;
    }
  }

  private parse(reply: HttpReply, what: string): Envelope | Envelope[] {
    try {
      const parsed = JSON.parse(reply.text()) as unknown;
      if (typeof parsed === "object" && parsed !== null) return parsed as Envelope | Envelope[];
    } catch {
      // handled below
    }
    throw new ChainSourceProtocolError(this.label, `${what}: HTTP ${reply.status} without a JSON-RPC body`);
  }

  private unwrap(env: Envelope, method: string): unknown {
    if (env.error !== null && env.error !== undefined) {
      const code = typeof env.error.code === "number" ? env.error.code : RpcCode.MISC;
      const message = typeof env.error.message === "string" ? env.error.message : "unknown error";
      throw new BitcoindRpcError(this.label, method, code, message);
    }
    return env.result ?? null;
  }
}

function looksLikeJson(reply: HttpReply): boolean {
  const t = reply.text().trimStart();
  return t.startsWith("{") || t.startsWith("[");
}
