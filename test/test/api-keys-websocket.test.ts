import { expect } from "chai";
import WebSocket from "ws";
import { regtestWallet } from "../src/shared-devnet.js";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";

interface CreatedKey { id: string; secret: string }

const opened: WebSocket[] = [];

/** Opens the notification websocket with a ticket; rejects with `status <code>` when the upgrade is refused. */
function openWs(d: Daemon, ticket: string): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${d.port}/api/v1/notifications/ws?ticket=${ticket}`);
    opened.push(ws);
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on("close", (code, reason) => r({ code, reason: String(reason) })));
    ws.on("open", () => resolve({ ws, closed }));
    ws.on("unexpected-response", (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    ws.on("error", reject);
  });
}

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_r, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))]);

describe("API keys and the notification websocket: a read key may open it, revoking or expiry closes it", function () {
  this.timeout(120_000);
  let d: Daemon;
  const datadir = tempDatadir("tenderd-keys-ws-");

  const createKey = async (body: Record<string, unknown>): Promise<CreatedKey> => {
    const r = await d.api("POST", "/api/v1/keys", { body });
    expect(r.status, r.text).to.equal(200);
    return r.json as CreatedKey;
  };
  const ticketFor = async (key: string): Promise<string> => {
    const r = await d.api("GET", "/api/v1/notifications/ws/ticket", { token: key });
    expect(r.status, r.text).to.equal(200);
    return r.json as string;
  };

  before(async () => {
    d = await startDaemon({ datadir });
    const created = await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() });
    expect(created.status, created.text).to.equal(200);
  });
  after(async () => {
    for (const ws of opened) ws.terminate();
    await d?.stop();
    cleanup(datadir);
  });

  it("closes a read key's open websocket when the key is revoked, and refuses the tickets it was issued and has not used", async () => {
    const k = await createKey({ scopes: ["read"] });
    const { closed } = await openWs(d, await ticketFor(k.secret));
    const unused = await ticketFor(k.secret);
    const revoked = await d.api("DELETE", `/api/v1/keys/${k.id}`);
    expect(revoked.status, revoked.text).to.equal(200);
    expect(await within(closed, 5_000, "the websocket closed")).to.deep.equal({ code: 1008, reason: "API key revoked" });
    const err = await openWs(d, unused).then(() => "opened", (e: Error) => e.message);
    expect(err).to.equal("status 401");
  });

  it("closes a key's open websocket when the key expires", async () => {
    const k = await createKey({ scopes: ["read"], expires_at: new Date(Date.now() + 3_000).toISOString() });
    const { closed } = await openWs(d, await ticketFor(k.secret));
    expect(await within(closed, 10_000, "the websocket closed")).to.deep.equal({ code: 1008, reason: "API key expired" });
  });

  it("leaves the owner token's websocket open when a key is revoked", async () => {
    const k = await createKey({ scopes: ["read"] });
    const owner = await openWs(d, (await d.api("GET", "/api/v1/notifications/ws/ticket")).json as string);
    expect((await d.api("DELETE", `/api/v1/keys/${k.id}`)).status).to.equal(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(owner.ws.readyState).to.equal(WebSocket.OPEN);
    owner.ws.close();
  });
});
