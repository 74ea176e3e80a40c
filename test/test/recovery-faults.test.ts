import { expect } from "chai";
import type { Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC } from "./ark-harness.js";
import { allVtxos, balance, ok, until, vtxos, type DevnetWithArk, type VtxoInfo } from "./rounds-harness.js";
import {
  afterFaultProxyTest, armFault, boardAmounts, clearFaults, deleteAndCreate, holdings, proxyBody, recoveryMailboxId, startFaultProxyWallets,
  stopFaultProxyWallets,
} from "./recovery-harness.js";

/**
 * Recovery from the seed against a server that misbehaves, through the devnet's fault proxy:
 * Alice's wallet (a board and a VTXO received from Bob by arkoor) talks to the server through the
 * proxy; her recovery mailbox reads gain a foreign or an undecodable id, or `GetVtxo` answers one
 * of her VTXOs with an invalidated signature. Each time she deletes her wallet and creates it
 * again from her mnemonic.
 */
describe("recovery from the seed through the fault proxy: foreign, invalid and undecodable VTXO ids", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;
  let held: VtxoInfo[];
  let received: VtxoInfo;

  /** Deletes Alice's wallet, creates it from her mnemonic again, and answers the log lines that recovery wrote. */
  const recoverAlice = async (): Promise<string> => {
    const from = alice.stderr().length;
    await deleteAndCreate(alice, proxyBody(devnet, ALICE_MNEMONIC));
    return alice.stderr().slice(from);
  };

  before(async () => {
    ({ devnet, alice, bob } = await startFaultProxyWallets("recovery-faults", "direct"));
    await Promise.all([boardAmounts(alice, devnet, [100_000]), boardAmounts(bob, devnet, [50_000])]);
    const { address } = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    await ok(bob, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 20_000 });
    await until("Alice received", async () => ((await balance(alice)).spendable_sat === 120_000 ? true : undefined));
    held = await vtxos(alice);
    received = held.find((v) => v.amount_sat === 20_000)!;
    expect(held.map((v) => v.amount_sat).sort()).to.deep.equal([100_000, 20_000]);
  });
  afterEach(async function () {
    await afterFaultProxyTest(this, { devnet, alice, bob });
  });
  after(() => stopFaultProxyWallets({ devnet, alice, bob }));

  it("a VTXO of another seed in the recovery mailbox is reported foreign and not stored; her own VTXOs all come back (recovered_wallet_skips_unownable_vtxo)", async () => {
    const foreign = (await vtxos(bob))[0]!;
    const fault = await armFault(devnet, { kind: "inject-recovery-ids", mailbox: recoveryMailboxId(ALICE_MNEMONIC), vtxo_ids: [foreign.id] });
    const log = await recoverAlice();
    expect(holdings(await allVtxos(alice))).to.deep.equal(holdings(held));
    expect((await balance(alice)).spendable_sat).to.equal(120_000);
    expect(log).to.contain("belong to no key of this seed within the gap limit").and.to.contain(foreign.id);
    expect(log).to.match(new RegExp(`recovery incomplete: 2 recovered \\(120000 sat\\), 0 skipped \\(0 sat\\), 0 failed \\(0 sat\\), 1 foreign \\(${foreign.amount_sat} sat\\)`));
    expect(fault.id).to.be.a("number");
  });

  it("a VTXO whose signature no longer verifies is not stored (failed after the retries), the others come back; once the server answers it intact the next recovery finds it (recovered_wallet_skips_invalid_vtxo)", async () => {
    await armFault(devnet, { kind: "invalid-signature", vtxo: received.id });
    const log = await recoverAlice();
    expect(holdings(await allVtxos(alice))).to.deep.equal(holdings(held.filter((v) => v.id !== received.id)));
    expect((await balance(alice)).spendable_sat).to.equal(100_000);
    expect(log).to.match(new RegExp(`VTXO ${received.id} is not valid: genesis item \\d+: invalid \\S+ signature`));
    expect(log).to.match(/recovery incomplete: 1 recovered \(100000 sat\), 0 skipped \(0 sat\), 1 failed \(20000 sat\), 0 foreign/);
    expect(log).to.contain(`funds may be missing: ${received.id}`);

    await clearFaults(devnet);
    const again = await recoverAlice();
    expect(holdings(await allVtxos(alice))).to.deep.equal(holdings(held));
    expect(again).to.match(/recovery complete: 2 recovered \(120000 sat\)/);
  });

  it("an undecodable id in the recovery mailbox is logged and ignored; recovery completes with all her VTXOs (recovered_wallet_tolerates_undecodable_vtxo_id)", async () => {
    await armFault(devnet, { kind: "inject-recovery-ids", mailbox: recoveryMailboxId(ALICE_MNEMONIC), raw_ids_hex: ["deadbeef", "00".repeat(37)] });
    const log = await recoverAlice();
    expect(holdings(await allVtxos(alice))).to.deep.equal(holdings(held));
    expect(log).to.contain("recovery: ignoring an undecodable VTXO id of 4 bytes").and.to.contain("recovery: ignoring an undecodable VTXO id of 37 bytes");
    expect(log).to.match(/recovery complete: 2 recovered \(120000 sat\), 0 skipped \(0 sat\), 0 failed \(0 sat\), 0 foreign \(0 sat\), 0 exited \(0 sat\)/);
    // the recovered wallet pays from what it found
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 110_000 });
    expect((await balance(alice)).spendable_sat).to.equal(10_000);
  });
});
