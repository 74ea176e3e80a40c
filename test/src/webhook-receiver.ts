import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the receiver got. */
export interface ReceivedRequest {
  at: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  answered: number;
}

/**
 * A webhook receiver for the tests: an HTTP server on a port the OS picks that records every
 * request and answers the next status of `answers` (200 once they run out, or `fallback`).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  answers: number[] = [];
  fallback = 200;
  private server: Server | undefined;
  port = 0;

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => {
        const answered = this.answers.shift() ?? this.fallback;
        this.requests.push({ at: Date.now(), path: req.url ?? "/", headers: req.headers, body, answered });
        res.writeHead(answered, { "content-type": "text/plain" }).end(answered < 300 ? "ok" : "no");
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((resolve) => { s.closeAllConnections(); s.close(() => resolve()); });
  }
}

/**
 * The receiver's check of `Tender-Signature: t=<unix seconds>,v1=<hex>`, written from the
 * documentation: HMAC-SHA256 keyed with the secret's UTF-8 bytes over `<t>.<raw body>`.
 */
export function signatureVerifies(secret: string, header: string | undefined, body: string, toleranceSecs = 300): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "");
  if (!m) return false;
  if (Math.abs(Date.now() / 1000 - Number(m[1])) > toleranceSecs) return false;
  const mac = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${m[1]}.${body}`).digest();
  return timingSafeEqual(mac, Buffer.from(m[2]!, "hex"));
}
