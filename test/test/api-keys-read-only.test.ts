import { expect } from "chai";
import { regtestWallet } from "../src/shared-devnet.js";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";

const MUTATING = ["post", "put", "patch", "delete"];
const SCOPES = ["read", "receive", "send", "admin", "owner"];

interface Op { operationId: string; "x-tender-scope"?: string }
interface Doc { paths: Record<string, Record<string, Op>> }

/** Lists of the wallet's state read with the owner token before and after the refused calls. */
const STATE_READS = [
  "/api/v1/wallet", "/api/v1/wallet/balance", "/api/v1/wallet/vtxos", "/api/v1/history", "/api/v1/onchain/balance", "/api/v1/onchain/utxos",
  "/api/v1/onchain/transactions", "/api/v1/webhooks", "/api/v1/keys", "/api/v1/events", "/api/v1/exits/status/all",
];

/** A concrete request path for an OpenAPI path template (any value matches a parameter: the scope check comes first). */
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, "1");

describe("A read-only API key on every mutating operation of the served OpenAPI document (default plugins)", function () {
  this.timeout(180_000);
  let d: Daemon;
  let doc: Doc;
  let readKey: string;

  before(async () => {
    d = await startDaemon();
    const created = await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() });
    expect(created.status, created.text).to.equal(200);
    const key = await d.api("POST", "/api/v1/keys", { body: { name: "dashboard", scopes: ["read"] } });
    expect(key.status, key.text).to.equal(200);
    readKey = (key.json as { secret: string }).secret;
    doc = (await d.api("GET", "/api-docs/openapi.json", { token: null })).json as Doc;
  });
  after(async () => {
    await d?.stop();
    if (d) cleanup(d.datadir);
  });

  const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).filter(([m]) => [...MUTATING, "get"].includes(m)).map(([method, op]) => ({ path, method, op })));

  it("declares a scope on every operation, and none but `read` on a GET and never `read` on a mutation", () => {
    const ops = operations();
    expect(ops.length).to.be.greaterThan(40);
    for (const { path, method, op } of ops) {
      const scope = op["x-tender-scope"];
      expect(scope, `${method.toUpperCase()} ${path} declares no scope`).to.be.oneOf(SCOPES);
      if (MUTATING.includes(method)) expect(scope, `${method.toUpperCase()} ${path}`).to.not.equal("read");
    }
  });

  it("answers 403 with a JSON reason to the read key on each mutating operation, and changes nothing", async () => {
    const stateBefore = await Promise.all(STATE_READS.map((p) => d.api("GET", p)));
    for (const [i, r] of stateBefore.entries()) expect(r.status, `${STATE_READS[i]}: ${r.text}`).to.equal(200);
    const mutations = operations().filter((o) => MUTATING.includes(o.method));
    expect(mutations.length).to.be.greaterThan(30);
    for (const { path, method, op } of mutations) {
      const what = `${method.toUpperCase()} ${path}`;
      const r = await d.api(method.toUpperCase(), concrete(path), { token: readKey, body: {}, headers: { "Idempotency-Key": `ro-${op.operationId}` } });
      expect(r.status, `${what}: ${r.text}`).to.equal(403);
      expect(r.headers.get("content-type"), what).to.match(/^application\/json/);
      const body = r.json as { message: string; required_scope: string };
      expect(body.required_scope, what).to.equal(op["x-tender-scope"]);
      expect(body.message, what).to.match(op["x-tender-scope"] === "owner" ? /needs the owner token/ : new RegExp(`lacks the '${op["x-tender-scope"]}' scope that ${method.toUpperCase()} `));
      expect(body.message, "the key's secret is never echoed").to.not.include(readKey.slice(-43));
    }
    // barkd's undocumented alias of wallet creation is guarded as well
    const alias = await d.api("POST", "/api/v1/wallet", { token: readKey, body: await regtestWallet() });
    expect([alias.status, (alias.json as { required_scope?: string }).required_scope]).to.deep.equal([403, "admin"]);
    const stateAfter = await Promise.all(STATE_READS.map((p) => d.api("GET", p)));
    for (const [i, p] of STATE_READS.entries()) expect([p, stateAfter[i]!.status, stateAfter[i]!.json]).to.deep.equal([p, 200, stateBefore[i]!.json]);
  });

  it("lets the read key call every GET that takes no parameter, and records each refusal in the audit log", async () => {
    const reads = operations().filter((o) => o.method === "get" && !o.path.includes("{") && o.op["x-tender-scope"] === "read" && o.path.startsWith("/api/v1/"));
    expect(reads.length).to.be.greaterThan(10);
    for (const { path } of reads) {
      if (path === "/api/v1/notifications/wait") continue; // a long poll
      const r = await d.api("GET", path, { token: readKey });
      expect([path, r.status]).to.not.deep.equal([path, 401]);
      expect([path, r.status]).to.not.deep.equal([path, 403]);
    }
    const keyId = /^tender_key_([0-9a-f]{16})_/.exec(readKey)![1]!;
    const audit = await d.api("GET", `/api/v1/keys/audit?key_id=${keyId}&limit=1000`);
    const entries = (audit.json as { entries: { method: string; status: number }[] }).entries;
    const refused = entries.filter((e) => e.status === 403);
    expect(refused.length).to.equal(operations().filter((o) => MUTATING.includes(o.method)).length + 1);
    expect(refused.every((e) => e.method !== "GET")).to.equal(true);
  });
});
