import { expect } from "chai";
import { AuthToken, Kernel, NotFoundError, definePlugin, silentLogger, u32String, z, type DaemonConfig } from "../src/index.js";

const config = (over: Partial<DaemonConfig> = {}): DaemonConfig => ({
  datadir: "/nonexistent", port: 0, host: "127.0.0.1", allowedOrigins: [], exposeMnemonic: false, noAuth: false,
  dangerouslyAllowRemoteNoAuth: false, verbose: false, quiet: true, plugins: [], pluginConfig: {}, databaseSchema: "tender", ...over,
});

const testPlugin = definePlugin({
  name: "test-routes",
  version: "1.0.0",
  register(ctx) {
    ctx.route({
      method: "get", path: "/api/v1/things/{index}", operationId: "thing_by_index",
      params: z.object({ index: u32String() }),
      responses: { 200: { description: "a thing" } },
      handler: ({ params }) => ({ index: params.index }),
    });
    ctx.route({
      method: "get", path: "/api/v1/things/special", operationId: "special_thing",
      responses: { 200: { description: "static wins" } },
      handler: () => ({ special: true }),
    });
    ctx.route({
      method: "post", path: "/api/v1/things/batch", operationId: "batch_things",
      responses: { 200: { description: "a literal segment for POST only" } },
      handler: () => ({ batch: true }),
    });
    ctx.route({
      method: "post", path: "/api/v1/things", operationId: "make_thing",
      body: z.object({ amount_sat: z.number().int().nonnegative() }),
      responses: { 200: { description: "made" } },
      handler: ({ body }) => ({ amount_sat: body.amount_sat }),
    });
    ctx.route({
      method: "post", path: "/api/v1/notes", operationId: "note",
      body: z.unknown(),
      responses: { 200: { description: "any JSON value (as a merge patch)" } },
      handler: ({ body }) => ({ body }),
    });
    ctx.route({
      method: "get", path: "/api/v1/wallet-only", operationId: "wallet_only", requiresWallet: true,
      responses: { 200: { description: "needs a wallet" } },
      handler: () => ({ ok: true }),
    });
    ctx.route({
      method: "get", path: "/api/v1/missing", operationId: "missing",
      responses: { 404: { description: "never there" } },
      handler: () => { throw new NotFoundError("not found [resources=x]: thing not found", ["x"]); },
    });
    ctx.route({
      method: "get", path: "/api/v1/broken", operationId: "broken",
      responses: { 500: { description: "fails" } },
      handler: () => { throw new Error("outer", { cause: new Error("inner") }); },
    });
  },
});

describe("HTTP host (barkd's paths, rejections, error bodies, CORS, ping and OpenAPI)", () => {
  const token = AuthToken.generate();
  let kernel: Kernel;
  let base: string;
  const auth = { Authorization: `Bearer ${token.encode()}` };

  /** A request with exactly these bytes (fetch refuses a body on GET and rewrites some paths). */
  const raw = async (method: string, path: string, headers: Record<string, string>, body?: Buffer | string) => {
    const { request } = await import("node:http");
    return new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
      const r = request(`${base}${path}`, { method, headers: { ...headers, ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}) } }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, type: res.headers["content-type"], body: text }));
      });
      r.on("error", reject);
      r.end(body);
    });
  };

  before(async () => {
    kernel = new Kernel({ config: config({ allowedOrigins: ["http://good.example"] }), plugins: [testPlugin], logger: silentLogger, authToken: token });
    const addr = await kernel.start();
    base = `http://127.0.0.1:${addr.port}`;
  });
  after(() => kernel.stop());

  it("lets static segments win over path parameters", async () => {
    expect(await (await fetch(`${base}/api/v1/things/special`, { headers: auth })).json()).to.deep.equal({ special: true });
    expect(await (await fetch(`${base}/api/v1/things/7`, { headers: auth })).json()).to.deep.equal({ index: 7 });
  });

  it("reads an integer path parameter as barkd does: an optional + and leading zeros, within range", async () => {
    for (const [path, index] of [["+7", 7], ["007", 7], ["%2B7", 7], ["00000000000000000000004294967295", 4294967295]] as const) {
      const r = await fetch(`${base}/api/v1/things/${path}`, { headers: auth });
      expect([r.status, await r.json()], path).to.deep.equal([200, { index }]);
    }
    for (const path of ["4294967296", "-1", "-0", "1.0", "%201", "++1"]) {
      const r = await fetch(`${base}/api/v1/things/${path}`, { headers: auth });
      expect([r.status, r.headers.get("content-type")], path).to.deep.equal([400, "text/plain; charset=utf-8"]);
    }
  });

  it("answers a bad path parameter with a plain-text 400", async () => {
    const r = await fetch(`${base}/api/v1/things/abc`, { headers: auth });
    expect(r.status).to.equal(400);
    expect(r.headers.get("content-type")).to.match(/^text\/plain/);
  });

  it("answers 415 without a JSON content type, 400 for broken JSON, 422 for a wrong shape", async () => {
    const post = (body: string, type?: string) =>
      fetch(`${base}/api/v1/things`, { method: "POST", body, headers: { ...auth, ...(type ? { "content-type": type } : {}) } });
    const r415 = await post("{}", "text/plain");
    expect(r415.status).to.equal(415);
    expect(r415.headers.get("content-type")).to.match(/^text\/plain/);
    expect((await post("", undefined)).status).to.equal(415);
    expect((await post("{nope", "application/json")).status).to.equal(400);
    expect((await post("", "application/json")).status).to.equal(400);
    const r422 = await post('{"amount_sat": -1}', "application/json");
    expect(r422.status).to.equal(422);
    expect(r422.headers.get("content-type")).to.match(/^text\/plain/);
    expect((await post('{"amount_sat": 1.5}', "application/json")).status).to.equal(422);
    const ok = await post('{"amount_sat": 5, "unknown": true}', "application/merge-patch+json");
    expect(ok.status).to.equal(200);
    expect(await ok.json()).to.deep.equal({ amount_sat: 5 });
  });

  it("answers a body that is not UTF-8, starts with a byte-order mark or holds half a surrogate pair with a plain-text 400", async () => {
    const post = (body: Buffer | string) => raw("POST", "/api/v1/things", { ...auth, "content-type": "application/json" }, body);
    for (const body of [
      Buffer.concat([Buffer.from('{"amount_sat":1,"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      "\ufeff{\"amount_sat\":1}", '{"amount_sat":1,"x":"\\ud800"}', '{"amount_sat":1,"x":"a\\udc00"}', '{"amount_sat":1,"\\ud83d":1}',
    ]) {
      const r = await post(body);
      expect(r.status, String(body)).to.equal(400);
      expect(r.type, String(body)).to.match(/^text\/plain/);
    }
    expect((await post('{"amount_sat":1,"x":"\\ud83d\\ude00 \\\\ud800"}')).status, "a pair and an escaped backslash").to.equal(200);
  });

  it("answers a key given twice or a floating point literal for an integer with a plain-text 422, where the body is a struct", async () => {
    const post = (path: string, body: string) => raw("POST", path, { ...auth, "content-type": "application/json" }, body);
    for (const body of ['{"amount_sat":1,"amount_sat":2}', '{"amount_sat":1.0}', '{"amount_sat":1e3}', '{"amount_sat":-0}', '{"amount_sat":5,"x":1,"\\u0061mount_sat":5}']) {
      const r = await post("/api/v1/things", body);
      expect(r.status, body).to.equal(422);
      expect(r.type, body).to.match(/^text\/plain/);
    }
    expect((await post("/api/v1/things", '{"amount_sat":5,"x":1.5,"x":2}')).status, "unknown keys are ignored").to.equal(200);
    // any JSON value (a merge patch): repeated keys and floating point numbers are data
    const note = await post("/api/v1/notes", '{"a":1,"a":2.0,"b":[1e3]}');
    expect(note.status).to.equal(200);
    expect(JSON.parse(note.body)).to.deep.equal({ body: { a: 2, b: [1000] } });
  });

  it("reads the body last, and never on a route that takes none", async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61);
    const get = await raw("GET", "/api/v1/things/7", { ...auth, "content-type": "text/plain" }, big);
    expect([get.status, get.body]).to.deep.equal([200, '{"index":7}']);
    expect((await raw("POST", "/api/v1/things", { ...auth, "content-type": "text/plain" }, big)).status, "content type before size").to.equal(415);
    expect((await raw("DELETE", "/api/v1/things/7", auth, big)).status, "another method").to.equal(405);
    const unrouted = await raw("POST", "/api/v1/nowhere", {}, Buffer.from([0x68, 0xff]));
    expect([unrouted.status, unrouted.type]).to.deep.equal([400, "text/plain; charset=utf-8"]);
  });

  it("answers a broken percent-escape after the method and token checks (405, 401), like any bad path parameter", async () => {
    expect((await raw("GET", "/api/v1/things/%zz", {})).status).to.equal(401);
    expect((await raw("DELETE", "/api/v1/things/%zz", auth)).status).to.equal(405);
    expect((await raw("GET", "/api/v1/things/%C3%28", auth)).status).to.equal(400);
  });

  it("answers 413 for a body over 2 MiB", async () => {
    const r = await fetch(`${base}/api/v1/things`, {
      method: "POST", headers: { ...auth, "content-type": "application/json" }, body: `{"amount_sat":1,"x":"${"a".repeat(2 * 1024 * 1024)}"}`,
    });
    expect(r.status).to.equal(413);
  });

  it("answers 422 No wallet set on a wallet route when no wallet is loaded", async () => {
    const r = await fetch(`${base}/api/v1/wallet-only`, { headers: auth });
    expect(r.status).to.equal(422);
    expect(await r.json()).to.deep.equal({ message: "No wallet set" });
  });

  it("maps typed errors to barkd's bodies and other failures to 500 with the cause chain", async () => {
    const nf = await fetch(`${base}/api/v1/missing`, { headers: auth });
    expect(nf.status).to.equal(404);
    expect(await nf.json()).to.deep.equal({ resources: ["x"], message: "not found [resources=x]: thing not found" });
    const e = await fetch(`${base}/api/v1/broken`, { headers: auth });
    expect(e.status).to.equal(500);
    expect(await e.json()).to.deep.equal({ message: "outer: inner" });
  });

  it("answers unknown paths with a JSON string 404 (no auth) and wrong methods with an empty 405", async () => {
    const r = await fetch(`${base}/api/v1/nothing-here`);
    expect(r.status).to.equal(404);
    expect(await r.json()).to.equal("path not found: ");
    const m = await fetch(`${base}/api/v1/things/special`, { method: "DELETE" });
    expect(m.status).to.equal(405);
    // a literal segment belongs to its route whatever the method, as in barkd's router: GET of a
    // POST-only literal path is 405, not the parameter route's answer
    const literal = await fetch(`${base}/api/v1/things/batch`, { headers: auth });
    expect([literal.status, await literal.text()]).to.deep.equal([405, ""]);
    expect((await fetch(`${base}/api/v1/things/batch`, { method: "POST", headers: auth })).status).to.equal(200);
    expect((await fetch(`${base}/api/v1/things/8`, { headers: auth })).status).to.equal(200);
    expect(await m.text()).to.equal("");
  });

  it("serves /ping without auth and the OpenAPI document of the registered routes", async () => {
    const p = await fetch(`${base}/ping`);
    expect(await p.text()).to.equal("pong");
    const doc = (await (await fetch(`${base}/api-docs/openapi.json`)).json()) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(doc.openapi).to.equal("3.1.0");
    expect(doc.paths["/api/v1/things/{index}"]!.get!.operationId).to.equal("thing_by_index");
    expect(doc.paths["/ping"]!.get!.operationId).to.equal("ping");
    expect(doc.paths["/api-docs/openapi.json"]).to.equal(undefined);
  });

  it("redirects /swagger-ui to /swagger-ui/ and serves Swagger UI there", async () => {
    const r = await fetch(`${base}/swagger-ui`, { redirect: "manual" });
    expect(r.status).to.equal(303);
    expect(r.headers.get("location")).to.equal("/swagger-ui/");
    const ui = await fetch(`${base}/swagger-ui/`);
    expect(ui.status).to.equal(200);
    expect(await ui.text()).to.contain("swagger");
  });

  it("matches paths exactly: another case or a trailing slash is another path (404)", async () => {
    for (const path of ["/API/V1/THINGS/special", "/api/v1/Things/special", "/api/v1/things/special/", "/api/v1/wallet-only/"]) {
      const r = await fetch(`${base}${path}`, { headers: auth });
      expect(r.status, path).to.equal(404);
      expect(await r.json(), path).to.equal("path not found: ");
    }
    const post = await fetch(`${base}/API/V1/THINGS`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: '{"amount_sat":1}' });
    expect(post.status).to.equal(404);
  });

  it("answers a path parameter with a broken percent-escape with a plain-text 400", async () => {
    for (const path of ["/api/v1/things/%", "/api/v1/things/%zz"]) {
      const r = await fetch(`${base}${path}`, { headers: auth });
      expect(r.status, path).to.equal(400);
      expect(r.headers.get("content-type"), path).to.match(/^text\/plain/);
    }
  });

  it("serves Swagger UI to GET of its page and real files only", async () => {
    expect((await fetch(`${base}/swagger-ui/swagger-ui.css`)).status).to.equal(200);
    expect((await fetch(`${base}/swagger-ui/swagger-ui-init.js`)).status).to.equal(200);
    for (const [method, path] of [["GET", "/swagger-ui/no-such-file.js"], ["GET", "/swagger-ui/a/b"], ["POST", "/swagger-ui/"], ["DELETE", "/swagger-ui/swagger-ui.css"]]) {
      const r = await fetch(`${base}${path}`, { method });
      expect(r.status, `${method} ${path}`).to.equal(404);
      expect(await r.text(), `${method} ${path}`).to.not.contain("swagger");
    }
  });

  it("refuses a Host that names another site (DNS rebinding), answering IP literals and localhost", async () => {
    const { request } = await import("node:http");
    const port = Number(new URL(base).port);
    const get = (host: string) => new Promise<number>((resolve, reject) => {
      const r = request({ host: "127.0.0.1", port, path: "/ping", headers: { Host: host } }, (res) => { res.resume(); resolve(res.statusCode!); });
      r.on("error", reject);
      r.end();
    });
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "LOCALHOST", `[::1]:${port}`, "10.1.2.3"]) expect(await get(host), host).to.equal(200);
    for (const host of [`evil.example:${port}`, "evil.example", "127.0.0.1.nip.io", "localhost.evil.example"]) expect(await get(host), host).to.equal(403);
  });

  it("refuses a state-changing request from a page of another site, whatever CORS would let through", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/api/v1/things`, { method: "POST", headers: { ...auth, "content-type": "application/json", ...headers }, body: '{"amount_sat":1}' });
    const foreign = await post({ Origin: "http://evil.example" });
    expect(foreign.status).to.equal(403);
    expect(((await foreign.json()) as { message: string }).message).to.match(/^Cross-site request refused/);
    expect((await post({ "Sec-Fetch-Site": "cross-site" })).status).to.equal(403);
    expect((await post({ Origin: "http://good.example" })).status).to.equal(200);
    expect((await post({ Origin: base })).status).to.equal(200); // same origin
    expect((await post({})).status).to.equal(200); // not a browser
    expect((await fetch(`${base}/api/v1/things/special`, { headers: { ...auth, Origin: "http://evil.example" } })).status).to.equal(200); // reads stay CORS's business
  });

  it("sends no ETag and answers a conditional GET in full, as barkd does", async () => {
    const first = await fetch(`${base}/api/v1/things/special`, { headers: auth });
    expect(first.headers.get("etag")).to.equal(null);
    const again = await fetch(`${base}/api/v1/things/special`, { headers: { ...auth, "If-None-Match": 'W/"anything"', "If-Modified-Since": new Date().toUTCString() } });
    expect(again.status).to.equal(200);
    expect(await again.json()).to.deep.equal({ special: true });
  });

  it("echoes an allowed origin and answers its preflight with barkd's allow lists", async () => {
    const pre = await fetch(`${base}/api/v1/things`, {
      method: "OPTIONS", headers: { Origin: "http://good.example", "Access-Control-Request-Method": "POST" },
    });
    expect(pre.status).to.equal(200);
    expect(pre.headers.get("access-control-allow-origin")).to.equal("http://good.example");
    expect(pre.headers.get("access-control-allow-methods")).to.equal("GET,POST,DELETE");
    expect(pre.headers.get("access-control-allow-headers")).to.equal("content-type,authorization");
    const bad = await fetch(`${base}/api/v1/things`, {
      method: "OPTIONS", headers: { Origin: "http://evil.example", "Access-Control-Request-Method": "POST" },
    });
    expect(bad.headers.get("access-control-allow-origin")).to.equal(null);
  });
});
