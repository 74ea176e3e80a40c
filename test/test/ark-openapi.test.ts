import { expect } from "chai";
import { Validator } from "@seriousme/openapi-schema-validator";
import { BARKD_OPENAPI } from "../src/barkd-schemas.js";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { arkDaemonConfig } from "./ark-harness.js";

interface Doc { paths: Record<string, Record<string, { operationId: string }>> }

/** Every operation the Ark plugin serves (in barkd's wallet group). */
const OPERATIONS: [string, string, string][] = [
  ["get", "/api/v1/wallet/connected", "connected"],
  ["get", "/api/v1/wallet/ark-info", "ark_info"],
  ["get", "/api/v1/wallet/next-round", "next_round"],
  ["post", "/api/v1/wallet/addresses/next", "address"],
  ["get", "/api/v1/wallet/addresses/index/{index}", "peek_address"],
  ["get", "/api/v1/wallet/balance", "balance"],
  ["get", "/api/v1/wallet/vtxos", "vtxos"],
  ["get", "/api/v1/wallet/vtxos/{id}", "get_vtxo"],
  ["get", "/api/v1/wallet/vtxos/{id}/encoded", "get_vtxo_encoded"],
  ["post", "/api/v1/wallet/import-vtxo", "import_vtxo"],
  ["post", "/api/v1/wallet/send", "send"],
  ["post", "/api/v1/wallet/sync", "sync"],
  ["post", "/api/v1/wallet/sync/mailbox", "sync_mailbox"],
];

describe("OpenAPI document with the Ark plugin", function () {
  this.timeout(60_000);
  let d: Daemon;
  let doc: Doc;
  before(async () => {
    d = await startDaemon({ config: arkDaemonConfig() });
    doc = (await d.api("GET", "/api-docs/openapi.json", { token: null })).json as Doc;
  });
  after(async () => { await d.stop(); cleanup(d.datadir); });

  it("stays a valid OpenAPI 3.1 document", async () => {
    const r = await new Validator().validate(doc as never);
    expect(r, JSON.stringify(r)).to.deep.include({ valid: true });
  });

  it("documents each Ark wallet operation with barkd's method, path and operationId", () => {
    for (const [method, path, id] of OPERATIONS) {
      expect(BARKD_OPENAPI.paths[path]?.[method]?.operationId, `barkd ${method} ${path}`).to.equal(id);
      expect(doc.paths[path]?.[method]?.operationId, `ours ${method} ${path}`).to.equal(id);
    }
  });

  it("answers 422 No wallet set on every Ark route without a wallet", async () => {
    for (const [method, path] of OPERATIONS) {
      const concrete = path.replace("{index}", "0").replace("{id}", `${"00".repeat(32)}:0`);
      const r = await d.api(method.toUpperCase(), concrete, method === "post" ? { body: path.endsWith("send") ? { destination: "x" } : path.endsWith("import-vtxo") ? { vtxos: [] } : {} } : {});
      expect([r.status, r.json], `${method} ${path}`).to.deep.equal([422, { message: "No wallet set" }]);
    }
  });
});
