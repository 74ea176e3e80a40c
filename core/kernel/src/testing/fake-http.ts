/** Test helpers for adapters and plugins (`@tender/core/testing`); not used by the daemon itself. */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** A scripted answer. */
export interface FakeAnswer {
  readonly status: number;
  readonly body: string | Buffer;
  readonly type?: string;
}

/** A local HTTP server answering each request with `answer(req, body)`; records every request. */
export async function fakeServer(answer: (req: IncomingMessage, body: string) => FakeAnswer): Promise<{ url: string; hits: Array<{ method: string; path: string; body: string }>; close(): Promise<void> }> {
  const hits: Array<{ method: string; path: string; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      hits.push({ method: req.method ?? "", path: req.url ?? "", body });
      const a = answer(req, body);
      res.writeHead(a.status, { "content-type": a.type ?? "text/plain" }).end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
