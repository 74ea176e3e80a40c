import WebSocket from "ws";
import type { Daemon } from "./daemon-process.js";

/** An open notifications WebSocket: every frame received (parsed JSON), and its close code once closed. */
export interface NotificationSocket {
  ws: WebSocket;
  frames: unknown[];
  closed: Promise<number>;
}

/** Opens `d`'s notifications WebSocket with `query` (the ticket, and any cursor); rejects on a refused upgrade. */
export function openNotificationSocket(d: Daemon, query: string): Promise<NotificationSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${d.port}/api/v1/notifications/ws?${query}`);
    const frames: unknown[] = [];
    const closed = new Promise<number>((r) => ws.on("close", (code) => r(code)));
    ws.on("message", (data) => frames.push(JSON.parse(String(data))));
    ws.on("open", () => resolve({ ws, frames, closed }));
    ws.on("unexpected-response", (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    ws.on("error", reject);
  });
}
