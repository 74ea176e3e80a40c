import { expect } from "chai";
import { Validator } from "@seriousme/openapi-schema-validator";
import { BARKD_OPENAPI, schemaChecks } from "../src/barkd-schemas.js";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";

interface Doc { openapi: string; paths: Record<string, Record<string, { operationId: string; tags?: string[]; deprecated?: boolean }>> }

const METHODS = ["get", "post", "put", "patch", "delete"];

/**
 * tender's own operations (extensions a barkd client never calls), by method and path, with their
 * operationId: the only documented operations barkd does not have.
 */
const TENDER_EXTENSIONS: Record<string, string> = {
  "get /api/v1/events": "list_events",
  "post /api/v1/webhooks": "create_webhook",
  "get /api/v1/webhooks": "list_webhooks",
  "get /api/v1/webhooks/{id}": "get_webhook",
  "delete /api/v1/webhooks/{id}": "delete_webhook",
  "post /api/v1/webhooks/{id}/enable": "enable_webhook",
  "get /api/v1/webhooks/{id}/deliveries": "list_webhook_deliveries",
  "post /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver": "redeliver_webhook_delivery",
  "post /api/v1/keys": "create_api_key",
  "get /api/v1/keys": "list_api_keys",
  "get /api/v1/keys/audit": "list_api_audit",
  "delete /api/v1/keys/{id}": "revoke_api_key",
  "post /api/v1/wallet/bip321/qr": "bip321_qr",
  "get /api/v1/wallet/lock": "wallet_lock_state",
  "post /api/v1/wallet/unlock": "wallet_unlock",
  "post /api/v1/wallet/lock": "wallet_lock",
  "get /healthz": "healthz",
  "get /readyz": "readyz",
  "get /metrics": "metrics",
};

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

  it("lists only operations barkd has, with the same method, path and operationId, besides tender's listed extensions", () => {
    const ours = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).filter(([m]) => METHODS.includes(m)).map(([method, op]) => ({ path, method, op })));
    expect(ours.length).to.be.greaterThan(5);
    for (const { path, method, op } of ours) {
      const extension = TENDER_EXTENSIONS[`${method} ${path}`];
      if (extension !== undefined) {
        expect(BARKD_OPENAPI.paths[path]?.[method], `${method.toUpperCase()} ${path} is barkd's`).to.equal(undefined);
        expect(op.operationId, `${method.toUpperCase()} ${path}`).to.equal(extension);
        continue;
      }
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

  it("documents every tender extension operation of the default plugins", () => {
    for (const [key, operationId] of Object.entries(TENDER_EXTENSIONS)) {
      const [method, path] = key.split(" ") as [string, string];
      expect(doc.paths[path]?.[method]?.operationId, key).to.equal(operationId);
    }
  });

  it("validated the JSON responses received by the end-to-end suite against barkd's schemas", async () => {
    const r = await d.api("GET", "/api/v1/wallet");
    expect(r.status).to.equal(200);
    expect(schemaChecks.count).to.be.greaterThan(0);
  });
});
