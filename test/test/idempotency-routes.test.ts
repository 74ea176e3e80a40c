import { expect } from "chai";
import { regtestWallet } from "../src/shared-devnet.js";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";

const CONFIG = { plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/e2e/example-plugin"] };

interface Op { parameters?: { name: string; in: string; required?: boolean }[]; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema?: Record<string, unknown> }> }> }

describe("Idempotency-Key on any mutating route, wallet creation, restarts and the OpenAPI document", function () {
  this.timeout(120_000);
  let d: Daemon;
  let regtest: Record<string, unknown>;
  const datadir = tempDatadir("tenderd-idem-routes-");
  const note = (key: string, text: string) => d.api("POST", "/api/v1/example/notes", { body: { text }, headers: { "Idempotency-Key": key } });
  const notes = async () => (await d.api("GET", "/api/v1/example/notes")).json as { id: number; text: string }[];

  before(async () => {
    regtest = await regtestWallet();
    d = await startDaemon({ datadir, config: CONFIG });
  });
  after(async () => {
    await d?.stop();
    cleanup(datadir);
  });

  it("replays a keyed wallet creation instead of answering that the wallet exists", async () => {
    const first = await d.api("POST", "/api/v1/wallet/create", { body: regtest, headers: { "Idempotency-Key": "create-1" } });
    expect(first.status, first.text).to.equal(200);
    const again = await d.api("POST", "/api/v1/wallet/create", { body: regtest, headers: { "Idempotency-Key": "create-1" } });
    expect([again.status, again.json, again.headers.get("idempotent-replayed")]).to.deep.equal([200, first.json, "true"]);
    const unkeyed = await d.api("POST", "/api/v1/wallet/create", { body: regtest });
    expect(unkeyed.status, "without the key it is a second creation, refused").to.not.equal(200);
  });

  it("stores a keyed write once and replays it, across a restart and a SIGKILL", async () => {
    const first = await note("note-1", "hello");
    expect(first.status).to.equal(200);
    expect((await note("note-1", "hello")).json).to.deep.equal(first.json);
    await d.stop();
    d = await startDaemon({ datadir, config: CONFIG });
    const afterRestart = await note("note-1", "hello");
    expect([afterRestart.json, afterRestart.headers.get("idempotent-replayed")]).to.deep.equal([first.json, "true"]);
    await d.kill9();
    d = await startDaemon({ datadir, config: CONFIG });
    expect((await note("note-1", "hello")).json).to.deep.equal(first.json);
    expect((await notes()).filter((n) => n.text === "hello")).to.deep.equal([first.json]);
    const other = await note("note-1", "bye");
    expect(other.status).to.equal(422);
    expect((await notes()).some((n) => n.text === "bye")).to.equal(false);
  });

  it("does not keep a request refused before its handler ran (bad body): the key is still free", async () => {
    const bad = await d.api("POST", "/api/v1/example/notes", { body: { text: "" }, headers: { "Idempotency-Key": "note-2" } });
    expect(bad.status).to.equal(422);
    const good = await note("note-2", "second");
    expect(good.status).to.equal(200);
    expect(good.headers.get("idempotent-replayed")).to.equal(null);
  });

  it("answers the movement a write created in Tender-Movement-Id, leaving the body of an operation that is not a payment as it is", async () => {
    const r = await d.api("POST", "/api/v1/example/movements", {
      body: { kind: "receive", amount_sat: 1234, method: { type: "custom", value: "tip" } }, headers: { "Idempotency-Key": "movement-1" },
    });
    const m = r.json as { id: number; movement_id?: number };
    expect(r.headers.get("tender-movement-id")).to.equal(String(m.id));
    expect(m.movement_id).to.equal(undefined);
    const again = await d.api("POST", "/api/v1/example/movements", {
      body: { kind: "receive", amount_sat: 1234, method: { type: "custom", value: "tip" } }, headers: { "Idempotency-Key": "movement-1" },
    });
    expect([again.json, again.headers.get("tender-movement-id")]).to.deep.equal([m, String(m.id)]);
    const history = (await d.api("GET", "/api/v1/history")).json as { id: number }[];
    expect(history.filter((h) => h.id === m.id)).to.have.length(1);
    expect(history.filter((h) => h.id > m.id)).to.have.length(0);
  });

  it("documents the header, its answers and the movement id on every mutating operation, and on no read", async () => {
    const doc = (await d.api("GET", "/api-docs/openapi.json", { token: null })).json as { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    let mutating = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const header = (op.parameters ?? []).find((p) => p.in === "header" && p.name === "Idempotency-Key");
        if (method === "get") {
          expect(header, `GET ${path}`).to.equal(undefined);
          continue;
        }
        mutating++;
        expect(header?.required, `${method} ${path}`).to.equal(false);
        expect(Object.keys(op.responses), `${method} ${path}`).to.include.members(["409", "422"]);
        if (op.responses["200"]) expect(Object.keys(op.responses["200"].headers ?? {})).to.include.members(["Idempotent-Replayed", "Tender-Movement-Id"]);
      }
    }
    expect(mutating).to.be.greaterThan(3);
    const send = doc.paths["/api/v1/wallet/send"]!.post!.responses["200"]!.content!["application/json"]!.schema!;
    const sendSchema = typeof send.$ref === "string" ? doc.components.schemas[send.$ref.split("/").pop()!]! : send;
    expect(Object.keys(sendSchema.properties ?? {})).to.include.members(["message", "movement_id"]);
    const create = doc.paths["/api/v1/wallet/create"]!.post!.responses["200"]!.content!["application/json"]!.schema!;
    const createSchema = typeof create.$ref === "string" ? doc.components.schemas[create.$ref.split("/").pop()!]! : create;
    expect(Object.keys(createSchema.properties ?? {}), "only payment answers gain the field").to.not.include("movement_id");
  });
});
