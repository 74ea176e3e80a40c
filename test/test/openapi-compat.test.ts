import { expect } from "chai";
import { Validator } from "@seriousme/openapi-schema-validator";
import { BARKD_OPENAPI, schemaChecks } from "../src/barkd-schemas.js";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";

interface Doc { openapi: string; paths: Record<string, Record<string, { operationId: string; tags?: string[]; deprecated?: boolean }>> }

const METHODS = ["get", "post", "put", "patch", "delete"];

describe("OpenAPI document compared with barkd's", function () {
  this.timeout(60_000);
  let d: Daemon;
  let doc: Doc;
  before(async () => {
    d = await startDaemon();
    doc = (await d.api("GET", "/api-docs/openapi.json", { token: null })).json as Doc;
  });
  after(async () => { await d.stop(); cleanup(d.datadir); });

  it("is a valid OpenAPI 3.1 document", async () => {
    const v = new Validator();
    const r = await v.validate(doc as never);
    expect(r, JSON.stringify(r)).to.deep.include({ valid: true });
    expect(v.version).to.equal("3.1");
  });

  it("lists only operations barkd has, with the same method, path and operationId", () => {
    const ours = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).filter(([m]) => METHODS.includes(m)).map(([method, op]) => ({ path, method, op })));
    expect(ours.length).to.be.greaterThan(5);
    for (const { path, method, op } of ours) {
      const theirs = BARKD_OPENAPI.paths[path]?.[method];
      expect(theirs, `${method.toUpperCase()} ${path} is not a barkd operation`).to.not.equal(undefined);
      expect(op.operationId, `${method.toUpperCase()} ${path}`).to.equal(theirs!.operationId);
    }
  });

  it("documents every implemented operation of the lifecycle and notification groups", () => {
    const has = (m: string, p: string) => doc.paths[p]?.[m]?.operationId;
    expect(has("get", "/api/v1/wallet")).to.equal("wallet_exists");
    expect(has("post", "/api/v1/wallet/create")).to.equal("create_wallet");
    expect(has("delete", "/api/v1/wallet")).to.equal("wallet_delete");
    expect(has("get", "/api/v1/wallet/mnemonic")).to.equal("mnemonic");
    expect(has("get", "/api/v1/notifications/ws/ticket")).to.equal("websocket_ticket");
    expect(has("get", "/api/v1/notifications/wait")).to.equal("wait_notification");
    expect(has("get", "/ping")).to.equal("ping");
    // undocumented in barkd, undocumented here
    expect(doc.paths["/api/v1/wallet"]?.post).to.equal(undefined);
    expect(doc.paths["/api/v1/notifications/ws"]).to.equal(undefined);
  });

  it("validated the JSON responses received by the end-to-end suite against barkd's schemas", async () => {
    const r = await d.api("GET", "/api/v1/wallet");
    expect(r.status).to.equal(200);
    expect(schemaChecks.count).to.be.greaterThan(0);
  });
});
