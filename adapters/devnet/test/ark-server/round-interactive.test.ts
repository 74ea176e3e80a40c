import { expect } from "chai";
import { encodeOutPoint, formatOutPoint, signAttestation, txidHex, vtxoStatusAttestation, type Vtxo } from "@tender/ark-protocol";
import { ClientSpendState } from "../../src/ark-server/vtxo-registry.js";
import { RoundFixture } from "./round-fixture.js";
import type { WalletKit } from "./wallet-kit.js";

describe("ark server: interactive hArk rounds", function () {
  this.timeout(60_000);
  let f: RoundFixture;
  beforeEach(async () => {
    f = await RoundFixture.start();
  });
  afterEach(() => f.close());

  const stateOf = async (kit: WalletKit, v: Vtxo) => {
    const id = encodeOutPoint(v.point);
    return (await f.port().client.ark("getVtxoStatus", { vtxoId: id, attestation: signAttestation(vtxoStatusAttestation(id), kit.secretFor(v.policy.userPubkey)) })).spendState;
  };

  it("refreshes a board through a full round: attest, submit, sign, finish, leaf cosign, forfeit, unlock; the new VTXO validates against the broadcast funding tx", async () => {
    const { kit, vtxos } = await f.walletWith(50_000n);
    const alice = f.participant(kit, vtxos);
    f.ark.server.triggerRound();
    const outcome = await alice.outcome;
    expect(outcome.vtxos).to.have.length(1);
    expect(outcome.vtxos[0]!.amount).to.equal(50_000n);
    // the funding tx is in the node's mempool and the round's outputs are unclaimed until the forfeits
    expect(f.node.getTxStatus(txidHex(outcome.fundingTx))).to.deep.equal({ confirmed: false });
    expect(await stateOf(kit, vtxos[0]!)).to.equal(ClientSpendState.SPENT);
    const done = await alice.complete();
    expect(await stateOf(kit, done.vtxos[0]!)).to.equal(ClientSpendState.SPENDABLE);
    expect(done.vtxos[0]!.expiryHeight).to.equal(f.node.tipHeight() + f.info.vtxoLifetime);
    // the refreshed VTXO can be paid onwards by arkoor
    const { sent } = await kit.send(done.vtxos, 20_000n, kit.key().pk);
    expect(sent[0]!.amount).to.equal(20_000n);
    expect(formatOutPoint(done.vtxos[0]!.point)).to.match(/:0$/);
  });
});
