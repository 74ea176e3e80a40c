import { expect } from "chai";
import { ArkServerClient, ArkServerUrlError, parseServerUrl } from "../src/index.js";

describe("ark-grpc server URLs", () => {
  it("uses plaintext for http:// and TLS for https://, defaulting ports", () => {
    expect(parseServerUrl("http://127.0.0.1:3535")).to.deep.equal({ address: "127.0.0.1:3535", tls: false, host: "127.0.0.1" });
    expect(parseServerUrl("https://ark.example.com")).to.deep.equal({ address: "ark.example.com:443", tls: true, host: "ark.example.com" });
    expect(parseServerUrl("http://[::1]:3535")).to.deep.equal({ address: "[::1]:3535", tls: false, host: "::1" });
  });

  it("prefixes https:// when the address has no scheme, as bark does", () => {
    expect(parseServerUrl("ark.example.com:3535")).to.deep.equal({ address: "ark.example.com:3535", tls: true, host: "ark.example.com" });
  });

  it("refuses other schemes, credentials and paths with a typed error", () => {
    expect(() => parseServerUrl("ftp://x")).to.throw(ArkServerUrlError, "unsupported scheme ftp");
    expect(() => parseServerUrl("http://u:p@x")).to.throw(ArkServerUrlError, "credentials");
    expect(() => parseServerUrl("http://x/api")).to.throw(ArkServerUrlError, "path");
    expect(() => new ArkServerClient({ url: "http://x", network: "regtest", userAgent: "Bad Agent" })).to.throw(ArkServerUrlError, "user agent");
  });
});
