import { expect } from "chai";
import { statSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, runTenderd, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import { rawGet } from "./http-raw.js";

describe("tenderd authentication (barkd's bearer token)", function () {
  this.timeout(60_000);
  let d: Daemon;
  before(async () => { d = await startDaemon(); });
  after(async () => { await d.stop(); cleanup(d.datadir); });

  it("creates <datadir>/auth_token with mode 0600 holding a 44-character token, without printing it", () => {
    const path = join(d.datadir, "auth_token");
    expect(statSync(path).mode & 0o777).to.equal(0o600);
    expect(d.token).to.match(/^A[A-Za-z0-9_-]{43}$/);
    expect(d.stderr()).to.not.contain(d.token!);
    expect(readFileSync(join(d.datadir, "debug.log"), "utf8")).to.not.contain(d.token!);
    expect(statSync(d.datadir).mode & 0o777).to.equal(0o700);
  });

  const cases: [string, [string, string | string[]][], string][] = [
    ["no Authorization header", [], "missing auth token"],
    ["another scheme", [["Authorization", "Basic dXNlcjpwYXNz"]], "missing auth token"],
    ["a lower-case scheme word", [["Authorization", "bearer TOKEN"]], "missing auth token"],
    ["the historical AuthToken scheme", [["Authorization", "AuthToken TOKEN"]], "missing auth token"],
    ["the historical auth-token header", [["auth-token", "TOKEN"]], "missing auth token"],
    ["two Authorization headers", [["Authorization", ["Bearer TOKEN", "Bearer TOKEN"]]], "multiple authorization headers are not allowed"],
    ["a header that is not UTF-8", [["Authorization", "Bearer \u00e9t\u00e9"]], "authorization header is not valid UTF-8"],
    ["a wrong token", [["Authorization", "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]], "invalid auth token"],
    ["a token with padding", [["Authorization", "Bearer TOKEN="]], "invalid auth token"],
    ["garbage", [["Authorization", "Bearer not-a-token"]], "invalid auth token"],
  ];
  for (const [what, headers, message] of cases) {
    it(`answers 401 "${message}" for ${what}`, async () => {
      const h = headers.map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => x.replace("TOKEN", d.token!)) : v.replace("TOKEN", d.token!)] as [string, string | string[]]);
      const r = await rawGet(d.base, "/api/v1/wallet", h);
      expect(r.status).to.equal(401);
      expect(JSON.parse(r.body)).to.deep.equal({ message });
      expect(r.headers["www-authenticate"]).to.equal(undefined);
    });
  }

  it("accepts the right token, also with surrounding whitespace", async () => {
    expect((await rawGet(d.base, "/api/v1/wallet", [["Authorization", `Bearer ${d.token}`]])).status).to.equal(200);
    expect((await rawGet(d.base, "/api/v1/wallet", [["Authorization", `Bearer  ${d.token} `]])).status).to.equal(200);
  });

  it("checks auth before parsing the body", async () => {
    const r = await d.api("POST", "/api/v1/wallet/create", { token: null, body: "{not json" });
    expect(r.status).to.equal(401);
  });

  it("leaves /ping, the OpenAPI document and unknown paths public", async () => {
    expect((await d.api("GET", "/ping", { token: null })).status).to.equal(200);
    expect((await d.api("GET", "/api-docs/openapi.json", { token: null })).status).to.equal(200);
    expect((await d.api("GET", "/api/v1/nope", { token: null })).status).to.equal(404);
  });

  it("answers a CORS preflight from an origin that is not allowed without any Allow header", async () => {
    const r = await fetch(`${d.base}/api/v1/wallet`, { method: "OPTIONS", headers: { Origin: "http://evil.example", "Access-Control-Request-Method": "GET" } });
    expect(r.status).to.equal(200);
    for (const h of ["access-control-allow-origin", "access-control-allow-methods", "access-control-allow-headers"]) expect(r.headers.get(h)).to.equal(null);
    const g = await fetch(`${d.base}/ping`, { headers: { Origin: "http://evil.example" } });
    expect(g.headers.get("access-control-allow-origin")).to.equal(null);
  });
});

describe("tenderd secret subcommands and pre-placed tokens", function () {
  this.timeout(60_000);

  it("uses a token file placed in the datadir before the first start as is", async () => {
    const dir = tempDatadir();
    const token = Buffer.concat([Buffer.from([0]), Buffer.alloc(32, 9)]).toString("base64url");
    writeFileSync(join(dir, "auth_token"), token, { mode: 0o600 });
    const d = await startDaemon({ datadir: dir });
    try {
      expect(d.token).to.equal(token);
      expect((await d.api("GET", "/api/v1/wallet")).status).to.equal(200);
    } finally { await d.stop(); cleanup(dir); }
  });

  it("`secret show` prints the token; `secret refresh` replaces it (random or from --secret); a running daemon keeps the old one until restarted", async () => {
    const dir = tempDatadir();
    const none = await runTenderd(["--datadir", dir, "secret", "show"]);
    expect(none.code).to.not.equal(0);
    const d = await startDaemon({ datadir: dir });
    try {
      const shown = await runTenderd(["--datadir", dir, "secret", "show"]);
      expect(shown.code).to.equal(0);
      expect(shown.stdout.trim()).to.equal(d.token);

      const refreshed = await runTenderd(["--datadir", dir, "secret", "refresh"]);
      expect(refreshed.code).to.equal(0);
      const fresh = refreshed.stdout.trim();
      expect(fresh).to.match(/^A[A-Za-z0-9_-]{43}$/).and.not.equal(d.token);
      expect(readFileSync(join(dir, "auth_token"), "utf8").trim()).to.equal(fresh);
      expect(statSync(join(dir, "auth_token")).mode & 0o777).to.equal(0o600);
      expect((await d.api("GET", "/api/v1/wallet")).status).to.equal(200);
      expect((await d.api("GET", "/api/v1/wallet", { token: fresh })).status).to.equal(401);

      const fixed = await runTenderd(["--datadir", dir, "secret", "refresh", "--secret", "11".repeat(32)]);
      expect(fixed.stdout.trim()).to.equal(Buffer.concat([Buffer.from([0]), Buffer.alloc(32, 0x11)]).toString("base64url"));
      const bad = await runTenderd(["--datadir", dir, "secret", "refresh", "--secret", "xyz"]);
      expect(bad.code).to.not.equal(0);
    } finally { await d.stop(); }

    const again = await startDaemon({ datadir: dir });
    try {
      expect((await again.api("GET", "/api/v1/wallet")).status).to.equal(200);
      expect(again.token).to.equal(Buffer.concat([Buffer.from([0]), Buffer.alloc(32, 0x11)]).toString("base64url"));
    } finally { await again.stop(); cleanup(dir); }
  });
});

describe("tenderd no-auth mode (loopback only unless dangerously allowed)", function () {
  this.timeout(60_000);

  it("refuses --no-auth on a non-loopback host", async () => {
    const dir = tempDatadir();
    const r = await runTenderd(["--datadir", dir, "--no-auth", "--host", "0.0.0.0", "--port", "23999"]);
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.contain("refusing to start: --no-auth with bind host 0.0.0.0");
    cleanup(dir);
  });

  it("serves without a token on loopback with --no-auth, ignoring any Authorization header, and creates no token file", async () => {
    const d = await startDaemon({ args: ["--no-auth"], readToken: false });
    try {
      expect(d.stderr()).to.contain("authentication is DISABLED");
      expect((await d.api("GET", "/api/v1/wallet", { token: null })).status).to.equal(200);
      expect((await d.api("GET", "/api/v1/wallet", { token: "garbage" })).status).to.equal(200);
      expect(() => statSync(join(d.datadir, "auth_token"))).to.throw();
    } finally { await d.stop(); cleanup(d.datadir); }
  });

  it("--dangerously-allow-remote-no-auth alone disables auth and permits a non-loopback bind", async () => {
    const d = await startDaemon({ args: ["--dangerously-allow-remote-no-auth", "--host", "0.0.0.0"], readToken: false });
    try {
      expect(d.stderr()).to.contain("Server starting on http://0.0.0.0:");
      expect(d.stderr()).to.contain("authentication is DISABLED");
      expect((await d.api("GET", "/api/v1/wallet", { token: null })).status).to.equal(200);
      expect(() => statSync(join(d.datadir, "auth_token"))).to.throw();
    } finally { await d.stop(); cleanup(d.datadir); }
  });

  it("ignores TENDER_NO_AUTH and BARKD_NO_AUTH: auth stays on", async () => {
    const d = await startDaemon({ env: { TENDER_NO_AUTH: "true", BARKD_NO_AUTH: "1" } });
    try {
      const r = await d.api("GET", "/api/v1/wallet", { token: null });
      expect(r.status).to.equal(401);
      expect(r.json).to.deep.equal({ message: "missing auth token" });
    } finally { await d.stop(); cleanup(d.datadir); }
  });
});

describe("tenderd single-instance lock", function () {
  this.timeout(60_000);

  it("refuses a second daemon on the same datadir, naming the running one's pid, and takes over a stale lock", async () => {
    const d = await startDaemon();
    try {
      expect(readFileSync(join(d.datadir, "tenderd.lock"), "utf8").trim()).to.equal(String(d.proc.pid));
      const second = await runTenderd(["--datadir", d.datadir, "--port", String(d.port + 500)]);
      expect(second.code).to.not.equal(0);
      expect(second.stderr).to.contain(`another tenderd is already running on datadir ${d.datadir} (pid ${d.proc.pid})`);
    } finally { await d.kill9(); }
    const after = await startDaemon({ datadir: d.datadir });
    try {
      expect(readFileSync(join(d.datadir, "tenderd.lock"), "utf8").trim()).to.equal(String(after.proc.pid));
    } finally { await after.stop(); cleanup(d.datadir); }
  });
});
