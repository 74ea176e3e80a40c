/**
 * Sends a request exactly as generated — path bytes, repeated headers, any body on any method —
 * which `fetch` cannot (it normalises `..` and `%2e` segments and refuses bodies on GET).
 * Only to 127.0.0.1, one connection kept alive, every request with a timeout.
 */
import { Agent, request } from "node:http";
import type { WireRequest } from "./barkd-model.js";
import type { RawResponse } from "./oracle.js";

export class HttpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4 });

  constructor(readonly port: number, private readonly timeoutMs = 60_000) {}

  /** Sends `r`; a reused keep-alive connection the daemon closed meanwhile is retried once on a new one. */
  async send(r: WireRequest): Promise<RawResponse> {
    try {
      return await this.sendOnce(r);
    } catch (e) {
      if ((e as { reusedSocket?: boolean }).reusedSocket && (e as NodeJS.ErrnoException).code === "ECONNRESET") return this.sendOnce(r);
      throw e;
    }
  }

  private sendOnce(r: WireRequest): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const req = request({
        host: "127.0.0.1", port: this.port, method: r.method, agent: this.agent,
        path: r.path + (r.query === undefined ? "" : `?${r.query}`),
        setHost: false,
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      });
      req.setHeader("host", `127.0.0.1:${this.port}`);
      const grouped = new Map<string, string[]>();
      for (const [k, v] of r.headers) grouped.set(k.toLowerCase(), [...(grouped.get(k.toLowerCase()) ?? []), v]);
      for (const [k, vs] of grouped) req.setHeader(k, vs.length === 1 ? vs[0]! : vs);
      // Node sends a GET's body without a length unless told; the daemon would read it as the next request
      if (r.body) req.setHeader("content-length", r.body.length);
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on("error", (e) => reject(Object.assign(e, { reusedSocket: req.reusedSocket })));
      req.end(r.body);
    });
  }

  /** A GET with the token, JSON answer expected. */
  async getJson(path: string, token: string): Promise<{ status: number; json: unknown; text: string }> {
    const [p, q] = path.split("?");
    const res = await this.send({ method: "GET", path: p!, query: q, headers: [["authorization", `Bearer ${token}`]], body: undefined });
    const text = res.body.toString("utf8");
    let json: unknown;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, json, text };
  }

  close(): void {
    this.agent.destroy();
  }
}
