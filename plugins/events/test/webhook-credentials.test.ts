import { expect } from "chai";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { fetchPost, withoutCredentials } from "../src/webhooks/delivery-worker.js";

describe("webhook URLs with credentials", () => {
  it("leaves a URL without credentials as it is", () => {
    expect(withoutCredentials("https://hooks.example.com/tender?x=1")).to.deep.equal({ url: "https://hooks.example.com/tender?x=1" });
  });

  it("sends the credentials of the URL as Basic authorization, to the URL without them", async () => {
    const seen: { url?: string; headers?: IncomingHttpHeaders } = {};
    const server = createServer((req, res) => {
      seen.url = req.url;
      seen.headers = req.headers;
      res.statusCode = 204;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as AddressInfo).port;
      const status = await fetchPost(`http://hook%20user:p%40ss:w@127.0.0.1:${port}/in?k=v`, {
        headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(5_000),
      });
      expect(status).to.equal(204);
      expect(seen.url).to.equal("/in?k=v");
      expect(seen.headers?.authorization).to.equal(`Basic ${Buffer.from("hook user:p@ss:w").toString("base64")}`);
    } finally {
      server.close();
    }
  });

  it("a failed delivery's error does not carry the password", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const err = await fetchPost(`http://user:s3cret@127.0.0.1:${port}/`, { headers: {}, body: "{}", signal: AbortSignal.timeout(5_000) }).catch((e: unknown) => e);
    const text: string[] = [];
    for (let c: unknown = err; c instanceof Error; c = c.cause) text.push(c.message);
    expect(text.length, "the delivery failed").to.be.greaterThan(0);
    expect(text.join(" ")).to.not.include("s3cret");
  });
});
