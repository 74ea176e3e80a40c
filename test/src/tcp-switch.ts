import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP forwarder on a fixed loopback port in front of a server (e.g. the devnet's Esplora), for
 * tests that take a chain source down and bring it back at the same address:
 * - `up`: connections are forwarded both ways;
 * - `down`: nothing listens on the port (connections are refused);
 * - `mute`: requests are forwarded but the answers are dropped and the connection is closed —
 *   the backend acts on a request whose client never learns the outcome.
 */
export class TcpSwitch {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private mode: "up" | "mute" = "up";

  private constructor(private readonly target: { host: string; port: number }, readonly port: number) {}

  /** Listens on a free loopback port, forwarding to `targetUrl`'s host and port. */
  static async start(targetUrl: string): Promise<TcpSwitch> {
    const u = new URL(targetUrl);
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const s = new TcpSwitch({ host: u.hostname, port: Number(u.port) }, port);
    await s.up();
    return s;
  }

  /** `targetUrl` with the switch's port. */
  urlFor(targetUrl: string): string {
    const u = new URL(targetUrl);
    u.port = String(this.port);
    return u.toString().replace(/\/$/, "");
  }

  /** Forwards connections again (listening on the same port). */
  async up(): Promise<void> {
    this.mode = "up";
    if (this.server) return;
    const server = createServer((client) => this.forward(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.server = server;
  }

  /** Stops listening and drops every open connection: the port refuses connections. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }

  /** Keeps forwarding requests, but drops every answer and closes the connection once the backend answers. */
  async mute(): Promise<void> {
    await this.up();
    this.mode = "mute";
  }

  private forward(client: Socket): void {
    const upstream = createConnection(this.target);
    this.sockets.add(client);
    this.sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.on("data", (d) => upstream.write(d));
    upstream.on("data", (d) => {
      if (this.mode === "mute") drop();
      else client.write(d);
    });
  }
}
