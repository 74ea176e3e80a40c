import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { STATUS_CODES } from "node:http";

/** A websocket endpoint; the kernel routes HTTP upgrades to it by path. */
export interface WebSocketRoute {
  path: string;
  /** Takes over the socket: complete the upgrade (e.g. `WebSocketServer.handleUpgrade`) or reject it. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Answers a plain GET (no upgrade) on this path, e.g. with 400/426. Default: 426. */
  plainRequest?: boolean;
}

/** Writes a complete HTTP response on a not-yet-upgraded socket and closes it. */
export function rejectUpgrade(socket: Duplex, status: number, body: string, contentType = "text/plain; charset=utf-8"): void {
  const payload = Buffer.from(body, "utf8");
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n` +
      `Content-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n` +
      payload.toString("utf8"),
  );
}
