import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuthToken, Kernel, definePlugin, silentLogger, z, type ApiKey, type DaemonConfig } from "../src/index.js";
import { newApiKeySecret } from "../src/access/api-key-secret.js";

const config = (): DaemonConfig => ({
  datadir: "/nonexistent", port: 0, host: "127.0.0.1", allowedOrigins: [], exposeMnemonic: false, noAuth: false,
  dangerouslyAllowRemoteNoAuth: false, verbose: false, quiet: true, plugins: [], pluginConfig: {}, databaseSchema: "tender",
});

/** Routes with and without a declared scope. */
const routesPlugin = (runs: string[]) => definePlugin({
  name: "scope-test",
  version: "1.0.0",
  register(ctx) {
    const route = (method: "get" | "post", path: string, scope?: "receive" | "send") => ctx.route({
      method, path, operationId: path.slice(8).replace(/\W/g, "_"), ...(scope ? { scope } : {}),
      ...(method === "post" ? { body: z.object({}) } : {}),
      responses: { 200: { description: "ran" } },
      handler: () => { runs.push(`${method} ${path}`); return { ok: true }; },
    });
    route("get", "/api/v1/thing");
    route("post", "/api/v1/undeclared");
    route("post", "/api/v1/receive-thing", "receive");
  },
});

describe("API key access in the kernel: scopes, undeclared mutations, ordering before the body", function () {
  const dir = mkdtempSync(join(tmpdir(), "tender-access-"));
  const owner = AuthToken.generate();
  const runs: string[] = [];
  let kernel: Kernel;
  let base: string;
  const bearer: Record<string, string> = {};

  const call = (method: string, path: string, token: string, body: string | undefined = "{}") =>
    fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(method === "POST" ? { "content-type": "application/json" } : {}) }, ...(method === "POST" ? { body } : {}) });

  before(async () => {
    kernel = new Kernel({ config: config(), plugins: [routesPlugin(runs)], logger: silentLogger, authToken: owner });
    await kernel.load();
    await kernel.database.open({ dialect: "sqlite", path: join(dir, "db.sqlite") });
    base = `http://127.0.0.1:${(await kernel.start()).port}`;
    for (const scopes of [["read"], ["receive"], ["send"], ["admin"]] as ApiKey["scopes"][]) {
      const s = newApiKeySecret();
      await kernel.access.store.insert({ id: s.id, name: undefined, scopes, caps: {}, createdAt: Date.now(), expiresAt: undefined, revokedAt: undefined, secretHash: s.secretHash });
      bearer[scopes[0]!] = s.bearer;
    }
  });
  after(async () => {
    await kernel?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("treats a mutation without a declared scope as admin, and documents no scope for it", async () => {
    for (const k of ["read", "receive", "send"]) {
      const r = await call("POST", "/api/v1/undeclared", bearer[k]!);
      expect([k, r.status, ((await r.json()) as { required_scope: string }).required_scope]).to.deep.equal([k, 403, "admin"]);
    }
    expect((await call("POST", "/api/v1/undeclared", bearer.admin!)).status).to.equal(200);
    expect((await call("POST", "/api/v1/undeclared", owner.encode())).status).to.equal(200);
    expect(runs.filter((r) => r === "post /api/v1/undeclared")).to.have.length(2);
    const doc = kernel.openApi() as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(doc.paths["/api/v1/undeclared"]!.post!["x-tender-scope"]).to.equal(undefined);
    expect(doc.paths["/api/v1/thing"]!.get!["x-tender-scope"]).to.equal("read");
    expect(doc.paths["/api/v1/receive-thing"]!.post!["x-tender-scope"]).to.equal("receive");
    expect(doc.paths["/api/v1/keys"]!.post!["x-tender-scope"]).to.equal("owner");
  });

  it("decides the 403 before reading the body: a refused request with a bad or huge body is still a 403, and its handler never runs", async () => {
    const before = runs.length;
    expect((await call("POST", "/api/v1/receive-thing", bearer.read!, "not json")).status).to.equal(403);
    expect((await call("POST", "/api/v1/receive-thing", bearer.read!, "x".repeat(3 * 1024 * 1024))).status).to.equal(403);
    expect((await call("POST", "/api/v1/receive-thing", bearer.receive!, "not json")).status).to.equal(400);
    expect((await call("POST", "/api/v1/receive-thing", bearer.receive!)).status).to.equal(200);
    expect((await call("GET", "/api/v1/thing", bearer.read!)).status).to.equal(200);
    expect((await call("GET", "/api/v1/thing", bearer.send!)).status).to.equal(403);
    expect(runs.slice(before)).to.deep.equal(["post /api/v1/receive-thing", "get /api/v1/thing"]);
  });

  it("answers barkd's 401 texts for malformed and unknown keys, and API key texts for revoked ones", async () => {
    const text = async (r: Response) => ((await r.json()) as { message: string }).message;
    expect(await text(await call("GET", "/api/v1/thing", "tender_key_short"))).to.equal("invalid auth token");
    expect(await text(await call("GET", "/api/v1/thing", `tender_key_${"a".repeat(16)}_${"A".repeat(43)}`))).to.equal("invalid auth token");
    const id = /^tender_key_([0-9a-f]{16})_/.exec(bearer.read!)![1]!;
    await kernel.access.store.revoke(id, Date.now());
    const r = await call("GET", "/api/v1/thing", bearer.read!);
    expect([r.status, await text(r)]).to.deep.equal([401, "API key revoked"]);
  });
});
