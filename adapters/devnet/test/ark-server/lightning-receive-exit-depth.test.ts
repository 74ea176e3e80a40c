import { expect } from "chai";
import { formatOutPoint, type Vtxo } from "@tender/ark-protocol";
import { rejection } from "./fixture.js";
import { Receive, ReceiveFixture } from "./lightning-receive-kit.js";
import { settingsChange } from "../../src/ark-server/ark-settings-json.js";
import { TEST_RECEIVE_SETTINGS } from "../../src/ark-server/lightning/receive-settings.js";

describe("ark server: claiming HTLC-recv VTXOs is exempt from the arkoor exit-depth limit", function () {
  this.timeout(60_000);
  let f: ReceiveFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  it("with max_vtxo_exit_depth lowered to 3 at run time, HTLC-recv VTXOs at depth 3 are claimed (outputs deeper than the limit), while an ordinary arkoor from a depth-3 VTXO is refused", async () => {
    // one pool VTXO: the second receive is granted from the first one's change, one level deeper
    f = await ReceiveFixture.start({ lightningReceive: { ...TEST_RECEIVE_SETTINGS, poolIssueIntervalMs: 600_000, poolTargets: [{ amountSat: 100_000n, count: 1 }] } });
    const applied = f.ark.settings.update(settingsChange({ max_vtxo_exit_depth: 3 }, f.ark.settings.current));
    expect(applied.maxVtxoExitDepth).to.equal(3);
    const fresh = await f.port();
    expect((await fresh.connect()).arkInfo.maxVtxoExitDepth).to.equal(3);

    const receive = async (amount: bigint): Promise<Receive> => {
      const r = new Receive(f!, f!.wallet(), await f!.port(), amount);
      await r.start();
      await f!.ln.holds.payExternally(r.invoice, { routeCltvDelta: 40 });
      expect((await r.port.checkLightningReceive(r.paymentHash, true)).state).to.equal("accepted");
      await r.prepare();
      return r;
    };
    const first = await receive(10_000n);
    expect(first.htlcs.map((v) => v.genesis.length)).to.deep.equal([2]);
    await first.claim();
    const bob = await receive(20_000n);
    expect(bob.htlcs.map((v) => v.genesis.length)).to.deep.equal([3]);

    // an ordinary pubkey VTXO at the same depth: board (1) + checkpoint + arkoor
    const alice = f.wallet();
    const { sent } = await alice.send([await alice.board(30_000n)], 10_000n, alice.key().pk);
    const depthThree: Vtxo = sent[0]!;
    expect(depthThree.genesis.length).to.equal(3);
    const refused = await rejection(alice.send([depthThree], 5_000n, alice.key().pk));
    expect(refused.message).to.include(`input vtxo ${formatOutPoint(depthThree.point)} exit depth 3 meets or exceeds the maximum of 3`);
    expect((await f.ark.server.ctx.store.getVtxo(formatOutPoint(depthThree.point)))?.state).to.equal("spendable");

    const claimed = await bob.claim();
    expect(claimed.map((v) => [v.amount, v.policy.type])).to.deep.equal([[20_000n, "pubkey"]]);
    expect(claimed[0]!.genesis.length).to.be.greaterThan(3);
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("settled");
    expect(await f.ark.server.lightningSend.store.settlement(bob.hashHex)).to.equal(Buffer.from(bob.preimage).toString("hex"));
  });
});
