import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuthToken, Kernel, silentLogger, type DaemonConfig } from "../src/index.js";
import { IdempotencyRecord } from "../src/idempotency/idempotency-record.js";

const config = (): DaemonConfig => ({
  datadir: "/nonexistent", port: 0, host: "127.0.0.1", allowedOrigins: [], exposeMnemonic: false, noAuth: false,
  dangerouslyAllowRemoteNoAuth: false, verbose: false, quiet: true, plugins: [], pluginConfig: {}, databaseSchema: "tender",
});

describe("Idempotency-Key and answers holding a secret shown once (a new API key)", function () {
  const dir = mkdtempSync(join(tmpdir(), "tender-idem-secret-"));
  const owner = AuthToken.generate();
  let kernel: Kernel;
  let base: string;

  const createKey = (idempotencyKey: string) => fetch(`${base}/api/v1/keys`, {
    method: "POST",
    headers: { Authorization: `Bearer ${owner.encode()}`, "content-type": "application/json", "Idempotency-Key": idempotencyKey },
    body: JSON.stringify({ scopes: ["read"] }),
  });

  before(async () => {
    kernel = new Kernel({ config: config(), plugins: [], logger: silentLogger, authToken: owner });
    await kernel.load();
    await kernel.database.open({ dialect: "sqlite", path: join(dir, "db.sqlite") });
    await kernel.wallet.load({ fingerprint: "00000000", network: "regtest" });
    base = `http://127.0.0.1:${(await kernel.start()).port}`;
  });
  after(async () => {
    await kernel?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("never stores a created API key's secret in the idempotency table: a keyed retry makes a new key, it is not a replay of the secret", async () => {
    const first = await createKey("make-a-key-1");
    expect(first.status).to.equal(200);
    const a = (await first.json()) as { id: string; secret: string };
    expect(a.secret).to.match(/^tender_key_/);

    const rows = await kernel.database.em().find(IdempotencyRecord, {});
    // the stored answer is base64 of the bytes sent
    for (const r of rows) expect(Buffer.from(r.body ?? "", "base64").toString("utf8")).to.not.include(a.secret);
    expect(rows.map((r) => r.operationId)).to.not.include("create_api_key");

    const retry = await createKey("make-a-key-1");
    expect(retry.status).to.equal(200);
    expect(retry.headers.get("Idempotent-Replayed")).to.equal(null);
    const b = (await retry.json()) as { id: string; secret: string };
    expect(b.id).to.not.equal(a.id);
  });
});
