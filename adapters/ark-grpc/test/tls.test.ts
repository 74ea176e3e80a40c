import { expect } from "chai";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ArkServerClient, ArkServerUnavailableError } from "../src/index.js";
import { FakeArkServer, useFakeServers } from "./fake-server.js";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "fixtures");
const cert = readFileSync(join(FIXTURES, "tls-test-cert.pem"));
const key = readFileSync(join(FIXTURES, "tls-test-key.pem"));

describe("ark-grpc transport security", () => {
  const fx = useFakeServers();
  let server: FakeArkServer;
  let client: ArkServerClient | undefined;

  it("speaks TLS to an https:// server whose certificate it trusts", async () => {
    server = fx.server();
    server.tls = { cert, key };
    await server.start();
    client = fx.client({ url: server.url, network: "regtest", rootCerts: cert });
    const session = await client.connect();
    expect(session.protocolVersion).to.equal(5);
    expect(server.callsTo("GetArkInfo")[0]!.pver).to.equal("5");
  });

  it("refuses an https:// server whose certificate is not trusted", async () => {
    server = fx.server();
    server.tls = { cert, key };
    await server.start();
    client = fx.client({ url: server.url, network: "regtest" }); // platform roots only
    const err = await client.connect().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ArkServerUnavailableError);
    expect(server.calls).to.have.length(0);
  });

  it("does not talk plaintext to a TLS server (http:// URL against a TLS port)", async () => {
    server = fx.server();
    server.tls = { cert, key };
    await server.start();
    client = fx.client({ url: `http://127.0.0.1:${server.port}`, network: "regtest" });
    const err = await client.connect().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ArkServerUnavailableError);
    expect(server.calls).to.have.length(0);
  });
});
