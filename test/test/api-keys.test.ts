import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { regtestWallet } from "../src/shared-devnet.js";
import { cleanup, startDaemon, tempDatadir, type ApiResponse, type Daemon } from "../src/daemon-process.js";

interface Key { id: string; name: string | null; scopes: string[]; caps: Record<string, unknown>; created_at: string; expires_at: string | null; revoked_at: string | null; secret?: string }
interface AuditPage { entries: { id: number; key_id: string | null; method: string; path: string; status: number; at: string }[]; next_cursor: string | null }

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("Scoped API keys over HTTP: create, list, revoke, expiry, scopes, owner-only management, audit log", function () {
  this.timeout(180_000);
  let d: Daemon;
  const datadir = tempDatadir("tenderd-keys-");
  let fingerprint: string;
  const secrets: string[] = [];

  const createKey = async (body: Record<string, unknown>): Promise<Key & { secret: string }> => {
    const r = await d.api("POST", "/api/v1/keys", { body });
    expect(r.status, r.text).to.equal(200);
    const k = r.json as Key & { secret: string };
    secrets.push(k.secret);
    return k;
  };
  const as = (key: string, method: string, path: string, body?: unknown): Promise<ApiResponse> =>
    d.api(method, path, { token: key, ...(body !== undefined ? { body } : method === "GET" ? {} : { body: {} }) });
  const message = (r: ApiResponse) => (r.json as { message: string }).message;

  before(async () => {
    d = await startDaemon({ datadir });
    const created = await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() });
    expect(created.status, created.text).to.equal(200);
    fingerprint = (created.json as { fingerprint: string }).fingerprint;
  });
  after(async () => {
    await d?.stop();
    cleanup(datadir);
  });

  it("creates a key whose secret is shown once, lists it without the secret, and keeps it across a restart", async () => {
    const k = await createKey({ name: "shop backend", scopes: ["read", "receive"] });
    expect(k.id).to.match(/^[0-9a-f]{16}$/);
    expect(k.secret).to.match(new RegExp(`^tender_key_${k.id}_[A-Za-z0-9_-]{43}$`));
    expect([k.name, k.scopes, k.caps, k.expires_at, k.revoked_at]).to.deep.equal(["shop backend", ["read", "receive"], {}, null, null]);
    const list = (await d.api("GET", "/api/v1/keys")).json as Key[];
    const listed = list.find((x) => x.id === k.id)!;
    expect(listed).to.not.have.property("secret");
    expect(JSON.stringify(list)).to.not.include(k.secret.slice(-43));
    expect((await as(k.secret, "GET", "/api/v1/wallet/balance")).status).to.equal(200);
    await d.stop();
    d = await startDaemon({ datadir });
    expect((await as(k.secret, "GET", "/api/v1/wallet/balance")).status).to.equal(200);
    expect(((await d.api("GET", "/api/v1/keys")).json as Key[]).map((x) => x.id)).to.include(k.id);
  });

  it("refuses bad key requests (422 for the scopes, 400 for the expiry) and creates nothing", async () => {
    const before = ((await d.api("GET", "/api/v1/keys")).json as Key[]).length;
    expect((await d.api("POST", "/api/v1/keys", { body: { scopes: [] } })).status).to.equal(422);
    expect((await d.api("POST", "/api/v1/keys", { body: { scopes: ["root"] } })).status).to.equal(422);
    const past = await d.api("POST", "/api/v1/keys", { body: { scopes: ["read"], expires_at: "2001-01-01T00:00:00Z" } });
    expect([past.status, message(past)]).to.deep.equal([400, "expires_at is in the past"]);
    const badDate = await d.api("POST", "/api/v1/keys", { body: { scopes: ["read"], expires_at: "tomorrow" } });
    expect(badDate.status).to.equal(400);
    expect(((await d.api("GET", "/api/v1/keys")).json as Key[]).length).to.equal(before);
  });

  it("allows each scope its routes and refuses the others with 403 and the scope needed", async () => {
    const read = await createKey({ scopes: ["read"] });
    const receive = await createKey({ scopes: ["receive"] });
    const send = await createKey({ scopes: ["send"] });
    const admin = await createKey({ scopes: ["admin"] });
    // read
    expect((await as(read.secret, "GET", "/api/v1/wallet/balance")).status).to.equal(200);
    expect((await as(read.secret, "GET", "/api/v1/history")).status).to.equal(200);
    const readAddress = await as(read.secret, "POST", "/api/v1/wallet/addresses/next");
    expect([readAddress.status, (readAddress.json as { required_scope: string }).required_scope]).to.deep.equal([403, "receive"]);
    // receive: addresses, not reads (scopes are not nested) and not payments
    const addr = await as(receive.secret, "POST", "/api/v1/wallet/addresses/next");
    expect(addr.status, addr.text).to.equal(200);
    expect((addr.json as { address: string }).address).to.be.a("string");
    expect((await as(receive.secret, "POST", "/api/v1/onchain/addresses/next")).status).to.equal(200);
    expect((await as(receive.secret, "GET", "/api/v1/wallet/balance")).status).to.equal(403);
    const receivePays = await as(receive.secret, "POST", "/api/v1/wallet/send", { destination: (addr.json as { address: string }).address, amount_sat: 1000 });
    expect([receivePays.status, message(receivePays)]).to.deep.equal([403, "this API key lacks the 'send' scope that POST /api/v1/wallet/send needs (it has: receive)"]);
    // send: passes the access check (the empty wallet then refuses the payment itself)
    const pays = await as(send.secret, "POST", "/api/v1/wallet/send", { destination: (addr.json as { address: string }).address, amount_sat: 1000 });
    expect(pays.status, pays.text).to.not.be.oneOf([401, 403]);
    expect((await as(send.secret, "POST", "/api/v1/wallet/addresses/next")).status).to.equal(403);
    const ownAddress = (addr.json as { address: string }).address;
    expect((await as(send.secret, "POST", "/api/v1/message/sign", { message: "hello", address: ownAddress })).status).to.equal(403);
    // admin: everything but the owner's routes
    const signed = await as(admin.secret, "POST", "/api/v1/message/sign", { message: "hello", address: ownAddress });
    expect(signed.status, signed.text).to.equal(200);
    expect((signed.json as { signature: string }).signature).to.be.a("string");
    expect((await as(admin.secret, "GET", "/api/v1/wallet/balance")).status).to.equal(200);
    expect((await as(admin.secret, "POST", "/api/v1/wallet/addresses/next")).status).to.equal(200);
    for (const [method, path] of [["GET", "/api/v1/keys"], ["POST", "/api/v1/keys"], ["DELETE", `/api/v1/keys/${read.id}`], ["GET", "/api/v1/keys/audit"], ["GET", "/api/v1/wallet/mnemonic"],
      ["GET", "/api/v1/webhooks"], ["POST", "/api/v1/webhooks"]] as const) {
      const r = await as(admin.secret, method, path, method === "POST" ? { scopes: ["admin"], url: "http://127.0.0.1:9/hook" } : undefined);
      expect([path, r.status, (r.json as { required_scope: string }).required_scope]).to.deep.equal([path, 403, "owner"]);
      expect(message(r)).to.equal(`${method} ${path.replace(read.id, "{id}")} needs the owner token; API keys cannot call it`);
    }
    expect(((await as(read.secret, "GET", "/api/v1/wallet/balance")).status), "the admin key could not revoke it").to.equal(200);
    // a malformed or unknown key: barkd's 401
    const unknown = `tender_key_${"0".repeat(16)}_${"A".repeat(43)}`;
    expect([(await as(unknown, "GET", "/api/v1/wallet/balance")).status, message(await as(unknown, "GET", "/api/v1/wallet/balance"))]).to.deep.equal([401, "invalid auth token"]);
    const forged = read.secret.slice(0, -1) + (read.secret.endsWith("A") ? "B" : "A");
    expect(message(await as(forged, "GET", "/api/v1/wallet/balance"))).to.equal("invalid auth token");
  });

  it("refuses Lightning and on-chain payments over a key's caps before anything moves (amounts read from the invoice)", async () => {
    const capped = await createKey({ scopes: ["read", "send"], caps: { lightning: { per_payment_sat: 10_000 }, onchain: { per_payment_sat: 1_000, per_day_sat: 2_000 } } });
    const made = await d.api("POST", "/api/v1/lightning/receives/invoice", { body: { amount_sat: 50_000 } });
    expect(made.status, made.text).to.equal(200);
    const { invoice } = made.json as { invoice: string };
    const history = async () => (await d.api("GET", "/api/v1/history")).json;
    const before = await history();
    for (const [path, body] of [["/api/v1/lightning/pay", { destination: invoice }], ["/api/v1/wallet/send", { destination: invoice }]] as const) {
      const r = await as(capped.secret, "POST", path, body);
      expect([path, r.status, message(r)]).to.deep.equal([path, 403, "the payment of 50000 sat is over this API key's lightning cap of 10000 sat per payment; nothing was sent"]);
    }
    const onchainAddress = ((await d.api("POST", "/api/v1/onchain/addresses/next", { body: {} })).json as { address: string }).address;
    const send = await as(capped.secret, "POST", "/api/v1/onchain/send", { destination: onchainAddress, amount_sat: 1_500 });
    expect([send.status, message(send)]).to.deep.equal([403, "the on-chain send of 1500 sat is over this API key's onchain cap of 1000 sat per payment; nothing was sent"]);
    const many = await as(capped.secret, "POST", "/api/v1/onchain/send-many", { destinations: [`${onchainAddress}:600 sat`, `${onchainAddress}:600 sat`] });
    expect([many.status, message(many)]).to.deep.equal([403, "the on-chain send of 1200 sat is over this API key's onchain cap of 1000 sat per payment; nothing was sent"]);
    const drain = await as(capped.secret, "POST", "/api/v1/onchain/drain", { destination: onchainAddress });
    expect([drain.status, message(drain)]).to.deep.equal([403, "this API key has a spending cap on onchain and the amount of a drain is not known before paying; a capped key cannot make it"]);
    const offboard = await as(capped.secret, "POST", "/api/v1/wallet/send-onchain", { destination: onchainAddress, amount_sat: 5_000 });
    expect([offboard.status, message(offboard)]).to.deep.equal([403, "the on-chain send of 5000 sat is over this API key's onchain cap of 1000 sat per payment; nothing was sent"]);
    expect(await history()).to.deep.equal(before);
    expect(((await d.api("GET", "/api/v1/keys")).json as (Key & { spent_last_24h_sat: Record<string, number> })[]).find((k) => k.id === capped.id)!.spent_last_24h_sat)
      .to.deep.equal({ ark: 0, lightning: 0, onchain: 0 });
  });

  it("refuses a revoked key (401, still listed) and answers 404 for an unknown one", async () => {
    const k = await createKey({ scopes: ["read"] });
    expect((await as(k.secret, "GET", "/api/v1/wallet/balance")).status).to.equal(200);
    const revoked = await d.api("DELETE", `/api/v1/keys/${k.id}`);
    expect(revoked.status, revoked.text).to.equal(200);
    expect((revoked.json as Key).revoked_at).to.be.a("string");
    const r = await as(k.secret, "GET", "/api/v1/wallet/balance");
    expect([r.status, message(r)]).to.deep.equal([401, "API key revoked"]);
    expect(((await d.api("GET", "/api/v1/keys")).json as Key[]).find((x) => x.id === k.id)!.revoked_at).to.equal((revoked.json as Key).revoked_at);
    expect((await d.api("DELETE", "/api/v1/keys/ffffffffffffffff")).status).to.equal(404);
  });

  it("refuses a key once it has expired (401), also after a restart", async () => {
    const expiresAt = new Date(Date.now() + 4_000).toISOString();
    const k = await createKey({ scopes: ["read"], expires_at: expiresAt });
    expect(k.expires_at).to.equal(expiresAt);
    expect((await as(k.secret, "GET", "/api/v1/wallet/balance")).status).to.equal(200);
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(expiresAt) - Date.now() + 200)));
    const r = await as(k.secret, "GET", "/api/v1/wallet/balance");
    expect([r.status, message(r)]).to.deep.equal([401, "API key expired"]);
    await d.stop();
    d = await startDaemon({ datadir });
    expect(message(await as(k.secret, "GET", "/api/v1/wallet/balance"))).to.equal("API key expired");
  });

  it("records each key request (refused ones too) and the owner's mutations in the audit log, paged newest first, without secrets", async () => {
    const k = await createKey({ name: "audited", scopes: ["read"] });
    await as(k.secret, "GET", "/api/v1/wallet/balance");
    await as(k.secret, "GET", "/api/v1/history?kind=send");
    await as(k.secret, "POST", "/api/v1/wallet/addresses/next");
    const mine = (await d.api("GET", `/api/v1/keys/audit?key_id=${k.id}`)).json as AuditPage;
    expect(mine.entries.map((e) => [e.key_id, e.method, e.path, e.status])).to.deep.equal([
      [k.id, "POST", "/api/v1/wallet/addresses/next", 403],
      [k.id, "GET", "/api/v1/history", 200],
      [k.id, "GET", "/api/v1/wallet/balance", 200],
    ]);
    expect(Date.parse(mine.entries[0]!.at)).to.be.closeTo(Date.now(), 60_000);
    const owner = (await d.api("GET", "/api/v1/keys/audit?key_id=owner")).json as AuditPage;
    expect(owner.entries.some((e) => e.key_id === null && e.method === "POST" && e.path === "/api/v1/keys" && e.status === 200)).to.equal(true);
    expect(owner.entries.some((e) => e.method === "GET"), "the owner's reads are not logged").to.equal(false);

    const all = ((await d.api("GET", "/api/v1/keys/audit?limit=1000")).json as AuditPage).entries;
    expect(all.length).to.be.at.least(5);
    const paged: AuditPage["entries"] = [];
    let cursor: string | null = null;
    do {
      const page: AuditPage = (await d.api("GET", `/api/v1/keys/audit?limit=2${cursor ? `&cursor=${cursor}` : ""}`)).json as AuditPage;
      expect(page.entries.length).to.be.at.most(2);
      paged.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).to.deep.equal(all);
    expect(all.map((e) => e.id)).to.deep.equal([...all.map((e) => e.id)].sort((a, b) => b - a));
    expect((await d.api("GET", "/api/v1/keys/audit?limit=0")).status).to.equal(400);
    expect((await d.api("GET", "/api/v1/keys/audit?cursor=abc")).status).to.equal(400);
    for (const s of secrets) expect(JSON.stringify(all)).to.not.include(s.slice(-43));
  });

  it("keeps secrets out of the logs and the data files: only their hash is stored", async () => {
    await d.stop();
    const logs = d.stderr();
    for (const s of secrets) expect(logs).to.not.include(s.slice(-43));
    for (const f of filesUnder(datadir)) {
      const bytes = readFileSync(f);
      for (const s of secrets) expect(bytes.includes(Buffer.from(s.slice(-43))), `${f} holds a key secret`).to.equal(false);
    }
    d = await startDaemon({ datadir });
  });

  it("keys belong to the wallet: refused while none is loaded, gone with a deleted wallet", async () => {
    const k = await createKey({ scopes: ["read", "admin"] });
    const del = await d.api("DELETE", "/api/v1/wallet", { body: { dangerous: true, fingerprint } });
    expect(del.status, del.text).to.equal(200);
    const none = await as(k.secret, "GET", "/api/v1/wallet");
    expect([none.status, message(none)]).to.deep.equal([401, "API keys are accepted only while a wallet is loaded"]);
    expect((await as(k.secret, "POST", "/api/v1/wallet/create", await regtestWallet())).status).to.equal(401);
    const created = await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() });
    expect(created.status, created.text).to.equal(200);
    fingerprint = (created.json as { fingerprint: string }).fingerprint;
    expect(message(await as(k.secret, "GET", "/api/v1/wallet"))).to.equal("invalid auth token");
    expect((await d.api("GET", "/api/v1/keys")).json).to.deep.equal([]);
  });
});
