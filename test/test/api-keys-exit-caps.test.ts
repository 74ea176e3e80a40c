import { expect } from "chai";
import { regtestWallet } from "../src/shared-devnet.js";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";

interface CreatedKey { id: string; secret: string }

describe("API key spending caps and exit claims: an admin key with an on-chain cap cannot claim exits to an address", function () {
  this.timeout(120_000);
  let d: Daemon;
  const datadir = tempDatadir("tenderd-keys-exit-caps-");
  let destination: string;

  const createKey = async (body: Record<string, unknown>): Promise<CreatedKey> => {
    const r = await d.api("POST", "/api/v1/keys", { body });
    expect(r.status, r.text).to.equal(200);
    return r.json as CreatedKey;
  };

  before(async () => {
    d = await startDaemon({ datadir });
    const created = await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() });
    expect(created.status, created.text).to.equal(200);
    destination = ((await d.api("POST", "/api/v1/onchain/addresses/next", { body: {} })).json as { address: string }).address;
  });
  after(async () => {
    await d?.stop();
    cleanup(datadir);
  });

  it("refuses exit claims (all, and chosen VTXOs) to a key with an on-chain cap with 403 before anything is claimed", async () => {
    const capped = await createKey({ scopes: ["admin"], caps: { onchain: { per_day_sat: 1_000 } } });
    const all = await d.api("POST", "/api/v1/exits/claim/all", { token: capped.secret, body: { destination } });
    expect([all.status, (all.json as { message: string }).message]).to.deep.equal([
      403, "this API key has a spending cap on onchain and the amount of an exit claim is not known before paying; a capped key cannot make it",
    ]);
    const some = await d.api("POST", "/api/v1/exits/claim/vtxos", { token: capped.secret, body: { destination, vtxos: [] } });
    expect(some.status, some.text).to.equal(403);
  });

  it("lets an admin key without an on-chain cap, and the owner token, past the cap check", async () => {
    const uncapped = await createKey({ scopes: ["admin"], caps: { ark: { per_day_sat: 1_000 } } });
    for (const token of [uncapped.secret, undefined]) {
      const r = await d.api("POST", "/api/v1/exits/claim/all", { token, body: { destination } });
      expect(r.status, r.text).to.not.equal(403);
    }
  });
});
