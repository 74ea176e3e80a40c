import { expect } from "chai";
import { Validator } from "@seriousme/openapi-schema-validator";
import { BARKD_OPENAPI } from "../src/barkd-schemas.js";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";

interface Doc { paths: Record<string, Record<string, { operationId: string }>> }

/** Every operation the bitcoin and onchain plugins serve (barkd's onchain, fees and bitcoin groups). */
const OPERATIONS: [string, string, string][] = [
  ["get", "/api/v1/onchain/balance", "onchain_balance"],
  ["post", "/api/v1/onchain/addresses/next", "onchain_address"],
  ["post", "/api/v1/onchain/send", "onchain_send"],
  ["post", "/api/v1/onchain/send-many", "onchain_send_many"],
  ["post", "/api/v1/onchain/drain", "onchain_drain"],
  ["get", "/api/v1/onchain/utxos", "onchain_utxos"],
  ["get", "/api/v1/onchain/transactions", "onchain_transactions"],
  ["post", "/api/v1/onchain/sync", "onchain_sync"],
  ["get", "/api/v1/fees/onchain", "onchain_fee_rates"],
  ["get", "/api/v1/bitcoin/tip", "tip"],
];

describe("OpenAPI document with the bitcoin and onchain plugins", function () {
  this.timeout(60_000);
  let d: Daemon;
  let doc: Doc;
  before(async () => {
    d = await startDaemon({ config: { plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-chain", "@tender/plugin-fees", "@tender/plugin-onchain"] } });
    doc = (await d.api("GET", "/api-docs/openapi.json", { token: null })).json as Doc;
  });
  after(async () => { await d.stop(); cleanup(d.datadir); });

  it("stays a valid OpenAPI 3.1 document", async () => {
    const r = await new Validator().validate(doc as never);
    expect(r, JSON.stringify(r)).to.deep.include({ valid: true });
  });

  it("documents each on-chain, fee-rate and tip operation with barkd's method, path and operationId", () => {
    for (const [method, path, id] of OPERATIONS) {
      expect(BARKD_OPENAPI.paths[path]?.[method]?.operationId, `barkd ${method} ${path}`).to.equal(id);
      expect(doc.paths[path]?.[method]?.operationId, `ours ${method} ${path}`).to.equal(id);
    }
  });
});
