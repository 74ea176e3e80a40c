import { expect } from "chai";
import { ConfigError, parseCommandLine } from "../src/index.js";

const serve = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const c = parseCommandLine(argv, env);
  if (c.kind !== "serve") throw new Error("expected serve");
  return c.config;
};

describe("tenderd command line (barkd's flags, environment and subcommands)", () => {
  it("uses barkd's defaults: port 3000, host 127.0.0.1, deny-all CORS, auth on", () => {
    const c = serve(["--datadir", "/tmp/x"]);
    expect(c).to.include({ port: 3000, host: "127.0.0.1", noAuth: false, exposeMnemonic: false, datadir: "/tmp/x" });
    expect(c.allowedOrigins).to.deep.equal([]);
  });

  it("reads TENDER_* variables, flags winning over them", () => {
    const c = serve(["--port", "4000"], { TENDER_BIND_PORT: "5000", TENDER_BIND_HOST: "::1", TENDER_EXPOSE_MNEMONIC: "yes", TENDER_DATADIR: "/d" });
    expect(c).to.include({ port: 4000, host: "::1", exposeMnemonic: true, datadir: "/d" });
  });

  it("rejects port 0, a host name and a malformed CORS origin", () => {
    expect(() => serve(["--port", "0"])).to.throw(ConfigError, "invalid port");
    expect(() => serve(["--host", "localhost"])).to.throw(ConfigError, "invalid host");
    expect(() => serve(["--allowed-origins", "http://a.example/"])).to.throw(ConfigError, "invalid CORS origin: http://a.example/");
    expect(() => serve(["--allowed-origins", "a.example"])).to.throw(ConfigError, "invalid CORS origin");
    expect(serve(["--allowed-origins", "http://a.example:8080,https://b.example"]).allowedOrigins).to.deep.equal(["http://a.example:8080", "https://b.example"]);
  });

  it("refuses --no-auth on a non-loopback host unless remote no-auth is explicitly allowed", () => {
    expect(() => serve(["--no-auth", "--host", "0.0.0.0"])).to.throw(ConfigError, /^refusing to start: --no-auth with bind host 0\.0\.0\.0/);
    expect(serve(["--no-auth", "--host", "127.0.0.2"]).noAuth).to.equal(true);
    const c = serve(["--dangerously-allow-remote-no-auth", "--host", "0.0.0.0"]);
    expect(c.noAuth).to.equal(true);
  });

  it("has no environment variable that turns auth off", () => {
    const c = serve([], { TENDER_NO_AUTH: "true", BARKD_NO_AUTH: "true", TENDER_DANGEROUSLY_ALLOW_REMOTE_NO_AUTH: "true" });
    expect(c.noAuth).to.equal(false);
    expect(c.dangerouslyAllowRemoteNoAuth).to.equal(false);
  });

  it("refuses -v together with -q", () => {
    expect(() => serve(["-v", "-q"])).to.throw(ConfigError, "--verbose and --quiet cannot be used together");
  });

  it("parses the secret subcommands", () => {
    expect(parseCommandLine(["secret", "show"], {}).kind).to.equal("secret-show");
    const r = parseCommandLine(["secret", "refresh", "--secret", "ab".repeat(32)], {});
    expect(r).to.include({ kind: "secret-refresh", secretHex: "ab".repeat(32) });
    expect(() => parseCommandLine(["secret", "bogus"], {})).to.throw(ConfigError, "unknown command");
  });
});

describe("tenderd command line: exposure guards", () => {
  it("refuses --expose-mnemonic together with disabled authentication", () => {
    expect(() => serve(["--no-auth", "--expose-mnemonic"])).to.throw(ConfigError, "refusing to start: --expose-mnemonic with authentication disabled");
    expect(() => serve(["--dangerously-allow-remote-no-auth", "--host", "0.0.0.0"], { TENDER_EXPOSE_MNEMONIC: "1" })).to.throw(ConfigError, "--expose-mnemonic");
    expect(serve(["--expose-mnemonic"]).exposeMnemonic).to.equal(true);
  });

  it("reads --allowed-hosts (or TENDER_ALLOWED_HOSTS) as lower-case DNS names and refuses anything else", () => {
    expect(serve(["--allowed-hosts", "Wallet.Example, pos.local"]).allowedHosts).to.deep.equal(["wallet.example", "pos.local"]);
    expect(serve([], { TENDER_ALLOWED_HOSTS: "wallet.example" }).allowedHosts).to.deep.equal(["wallet.example"]);
    expect(() => serve(["--allowed-hosts", "wallet.example:3000"])).to.throw(ConfigError, "invalid allowed host: wallet.example:3000");
  });

  it("allows port 0 only for test harnesses (TENDER_TEST_ANY_PORT=1), as barkd refuses it", () => {
    expect(() => serve(["--port", "0"])).to.throw(ConfigError, "invalid port");
    expect(serve(["--port", "0"], { TENDER_TEST_ANY_PORT: "1" }).port).to.equal(0);
  });
});
