import { expect } from "chai";
import { decodeVtxo, transitionHasAllWitnesses } from "@tender/ark-protocol";
import type { Daemon } from "../src/daemon-process.js";
import { BOB_MNEMONIC } from "./ark-harness.js";
import { allVtxos, balance, ok, serverState, until, vtxos, type DevnetWithArk, type VtxoInfo } from "./rounds-harness.js";
import {
  afterFaultProxyTest, armFault, boardAmounts, clearFaults, deleteAndCreate, encodedId, faultHits, holdings, proxyBody, recoveryMailbox,
  startFaultProxyWallets, stopFaultProxyWallets,
} from "./recovery-harness.js";

/**
 * The sync-time recovery catch-up, end to end through the devnet's fault proxy: while the proxy
 * fails every recovery mailbox post and answers chain registrations with a success it never
 * forwards, VTXOs reach the wallets with no recovery state on the server; once the proxy lets
 * calls through, a sync posts their ids and registers their chains, marks them, and later
 * syncs send nothing for them again.
 */
describe("recovery catch-up on sync: VTXOs whose recovery backup was lost are backed up by the next sync", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  /** Makes the proxy lose every recovery backup: posts fail, registrations answer ok unforwarded. */
  const loseBackups = async () => {
    await armFault(devnet, { kind: "drop", method: "PostRecoveryVtxoIds" });
    await armFault(devnet, { kind: "drop", method: "RegisterVtxoTransactions", answer: "ok" });
  };
  /** A proxy fault that only counts the recovery posts that reach the server. */
  const countPosts = async () => (await armFault(devnet, { kind: "delay", method: "PostRecoveryVtxoIds", ms: 0 })).id;
  const sync = (d: Daemon) => ok(d, "POST", "/api/v1/wallet/sync");
  /** Alice pays Bob `amount` while backups are lost; answers the VTXOs Bob received (new to him; several when Alice paid from several). */
  const payBobLosingBackups = async (amount: number): Promise<VtxoInfo[]> => {
    const known = new Set((await allVtxos(bob)).map((v) => v.id));
    const spendableBefore = (await balance(bob)).spendable_sat;
    await loseBackups();
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: amount });
    await until("Bob received", async () => ((await balance(bob)).spendable_sat === spendableBefore + amount ? true : undefined));
    const fresh = (await vtxos(bob)).filter((v) => !known.has(v.id));
    expect(fresh.reduce((t, v) => t + v.amount_sat, 0)).to.equal(amount);
    await clearFaults(devnet);
    // Alice's change was stored without its backup as well: her sync catches it up, so it can pay again
    await sync(alice);
    return fresh;
  };
  const postedTimes = async (mnemonic: string, id: string) => (await recoveryMailbox(devnet, mnemonic)).filter((h) => h === encodedId(id)).length;
  /** Whether the server holds `id` with every signature (its chain registered). */
  const fullySignedOnServer = async (id: string) => {
    const row = await devnet.ark.server.ctx.store.getVtxo(id);
    return row !== undefined && decodeVtxo(row.bytes).genesis.every((g) => transitionHasAllWitnesses(g.transition));
  };

  before(async () => {
    ({ devnet, alice, bob } = await startFaultProxyWallets("recovery-catchup", "proxy"));
    await boardAmounts(alice, devnet, [150_000]);
  });
  afterEach(async function () {
    await afterFaultProxyTest(this, { devnet, alice, bob });
  });
  after(() => stopFaultProxyWallets({ devnet, alice, bob }));

  it("a VTXO received while its recovery post and registration were lost is posted, registered and marked by the next sync; later syncs post nothing (recovery_state_catches_up_on_sync)", async () => {
    const v = (await payBobLosingBackups(20_000))[0]!;
    expect(await serverState(devnet, v.id), "the server never saw its chain").to.equal("unregistered");
    expect(await postedTimes(BOB_MNEMONIC, v.id), "its id never reached the recovery mailbox").to.equal(0);
    expect(bob.stderr()).to.contain("recovery mailbox failed (the next sync posts them again)");

    const counter = await countPosts();
    await sync(bob);
    expect(await serverState(devnet, v.id)).to.equal("spendable");
    expect(await fullySignedOnServer(v.id)).to.equal(true);
    expect(await postedTimes(BOB_MNEMONIC, v.id)).to.equal(1);
    const posts = await faultHits(devnet, counter);
    expect(posts).to.be.greaterThan(0);

    // marked: another sync sends nothing for it
    await sync(bob);
    expect(await faultHits(devnet, counter)).to.equal(posts);
    expect(await postedTimes(BOB_MNEMONIC, v.id)).to.equal(1);

    // and a wallet restored from Bob's seed finds it
    const held = await vtxos(bob);
    await deleteAndCreate(bob, proxyBody(devnet, BOB_MNEMONIC));
    expect(holdings(await allVtxos(bob))).to.deep.equal(holdings(held));
  });

  it("one VTXO whose registration the server refuses does not hold back the others; it is caught up once the refusal ends (recovery_catchup_survives_rejected_vtxo)", async () => {
    const poison = (await payBobLosingBackups(10_000))[0]!;
    const healthy = (await payBobLosingBackups(7_000))[0]!;
    expect([await serverState(devnet, poison.id), await serverState(devnet, healthy.id)]).to.deep.equal(["unregistered", "unregistered"]);

    await armFault(devnet, { kind: "refuse", method: "RegisterVtxoTransactions", vtxo: poison.id });
    await sync(bob);
    expect(await serverState(devnet, healthy.id)).to.equal("spendable");
    expect(await postedTimes(BOB_MNEMONIC, healthy.id)).to.equal(1);
    expect(await serverState(devnet, poison.id)).to.equal("unregistered");
    expect(bob.stderr()).to.contain(`registering VTXO ${poison.id} failed`);

    await clearFaults(devnet);
    const counter = await countPosts();
    await sync(bob);
    expect(await serverState(devnet, poison.id)).to.equal("spendable");
    expect(await fullySignedOnServer(poison.id)).to.equal(true);
    // only the VTXO still unmarked was posted again
    expect(await faultHits(devnet, counter)).to.equal(1);
    expect(await postedTimes(BOB_MNEMONIC, healthy.id)).to.equal(1);
    await sync(bob);
    expect(await faultHits(devnet, counter)).to.equal(1);
  });

  it("an exited VTXO whose recovery backup was lost is backed up by the next sync too, and marked like any other (recovery_catchup_includes_exited_vtxos)", async () => {
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/onchain/addresses/next");
    devnet.node.faucet(address, 500_000n);
    devnet.node.mine(1);
    await ok(bob, "POST", "/api/v1/onchain/sync");
    const exiting = await payBobLosingBackups(25_000);
    for (const v of exiting) expect(await postedTimes(BOB_MNEMONIC, v.id)).to.equal(0);
    const ids = exiting.map((v) => v.id);

    // exit it on chain (never claimed) while recovery posts still fail
    await armFault(devnet, { kind: "drop", method: "PostRecoveryVtxoIds" });
    await ok(bob, "POST", "/api/v1/exits/start/vtxos", { vtxos: ids });
    const states = async () => (await allVtxos(bob)).filter((x) => ids.includes(x.id)).map((x) => x.state.type);
    for (let round = 0; round < 60; round++) {
      if ((await states()).every((t) => t === "exited")) break;
      await ok(bob, "POST", "/api/v1/exits/progress", {});
      devnet.node.mine(1);
    }
    expect(await states()).to.deep.equal(ids.map(() => "exited"));
    await sync(bob);
    for (const id of ids) expect(await postedTimes(BOB_MNEMONIC, id), "posts still fail").to.equal(0);

    await clearFaults(devnet);
    const counter = await countPosts();
    await sync(bob);
    for (const id of ids) {
      expect(await postedTimes(BOB_MNEMONIC, id)).to.equal(1);
      expect(await fullySignedOnServer(id)).to.equal(true);
    }
    const posts = await faultHits(devnet, counter);
    await sync(bob);
    expect(await faultHits(devnet, counter), "a caught-up wallet does not post again").to.equal(posts);
  });
});
