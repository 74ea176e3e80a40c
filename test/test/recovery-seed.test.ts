import { expect } from "chai";
import { decodeArkAddress, toHex } from "@tender/ark-protocol";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC, CAROL_MNEMONIC } from "./ark-harness.js";
import {
  ROUNDS_ENV, ROUND_CONFIRMATIONS, allVtxos, arkControl, balance, boardedWallet, createBody, history, ok, printLogsOnFailure, rounds, roundsDaemonConfig,
  serverState, startRoundsDevnet, sum, triggerRound, until, untilRoundStatus, vtxos, type DevnetWithArk, type PendingRoundInfo, type VtxoInfo,
} from "./rounds-harness.js";

const DAVE_MNEMONIC = "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong";

/** What a wallet holds, comparable across wallets: id, amount and state of each VTXO, by id. */
const holdings = (vs: readonly VtxoInfo[]) => vs.map((v) => ({ id: v.id, amount_sat: v.amount_sat, state: v.state.type })).sort((a, b) => a.id.localeCompare(b.id));

/** Deletes the loaded wallet with its datadir files and creates it again from `mnemonic` (recovery runs inside create). */
async function deleteAndRecover(d: Daemon, devnet: DevnetWithArk, mnemonic: string): Promise<void> {
  const { fingerprint } = await ok<{ fingerprint: string }>(d, "GET", "/api/v1/wallet");
  expect(await ok(d, "DELETE", "/api/v1/wallet", { dangerous: true, fingerprint })).to.deep.equal({ deleted: true, message: "Wallet deleted" });
  expect(await ok(d, "GET", "/api/v1/wallet")).to.deep.equal({ fingerprint: null });
  expect(await ok(d, "POST", "/api/v1/wallet/create", createBody(devnet, mnemonic))).to.deep.equal({ fingerprint });
}

/**
 * Recovery from the seed over HTTP: wallets that boarded, paid, received and refreshed lose their
 * datadir and are created again from their mnemonic; the daemon reads the recovery mailbox back
 * while it creates the wallet.
 */
describe("recovery from the seed: a deleted wallet created again from its mnemonic finds its VTXOs", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    devnet = await startRoundsDevnet("recovery-seed");
    [alice, bob] = await Promise.all([
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
    ]);
    await boardedWallet(alice, devnet, ALICE_MNEMONIC, [150_000, 100_000]);
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
  });
  afterEach(function () {
    printLogsOnFailure(this, { alice, bob });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  it("boarded, paid, received, refreshed and kept change: exactly the spendable VTXOs come back (ids, amounts, balance), across paged mailbox reads, twice in a row; spent ones stay gone", async () => {
    // Alice pays Bob twice (change), Bob pays part back (a receive), Alice refreshes one VTXO in a round
    const { address: bobAddress } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: 60_000 });
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: 30_000 });
    await until("Bob received", async () => ((await balance(bob)).spendable_sat === 90_000 ? true : undefined));
    const { address: aliceAddress } = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    await ok(bob, "POST", "/api/v1/wallet/send", { destination: aliceAddress, amount_sat: 10_000 });
    await until("Alice received", async () => ((await balance(alice)).spendable_sat === 170_000 ? true : undefined));
    const toRefresh = (await vtxos(alice)).sort((a, b) => b.amount_sat - a.amount_sat)[0]!;
    const refresh = await ok<PendingRoundInfo>(alice, "POST", "/api/v1/wallet/refresh/vtxos", { vtxos: [toRefresh.id] });
    await triggerRound(devnet);
    await untilRoundStatus(alice, refresh.id, "unconfirmed");
    devnet.node.mine(ROUND_CONFIRMATIONS);
    await until("the refresh to complete", async () => ((await rounds(alice)).length === 0 ? true : undefined), 30_000);
    expect(await serverState(devnet, toRefresh.id)).to.equal("spent");

    const before = await vtxos(alice);
    expect(before.every((v) => v.state.type === "spendable")).to.equal(true);
    const spentBefore = (await allVtxos(alice)).filter((v) => v.state.type === "spent").map((v) => v.id);
    expect(spentBefore.length, "spent boards, change and the refreshed input").to.be.greaterThan(2);
    const balanceBefore = await balance(alice);
    expect(balanceBefore.spendable_sat).to.equal(sum(before));
    // the devnet control makes every recovery mailbox page one message long: the reads page through it
    await arkControl(devnet, "settings", { max_read_mailbox_items: 1 });

    for (const attempt of [1, 2]) {
      await deleteAndRecover(alice, devnet, ALICE_MNEMONIC);
      expect(holdings(await allVtxos(alice)), `recovery ${attempt}: every VTXO ever stored is a spendable one from before`).to.deep.equal(holdings(before));
      expect(await balance(alice), `recovery ${attempt}: balance`).to.deep.equal(balanceBefore);
      // as barkd, a recovery records no movement: the history of the lost datadir is not rebuilt
      expect(await history(alice)).to.deep.equal([]);
      expect(alice.stderr()).to.match(/recovery complete: \d+ recovered/);
    }
    await arkControl(devnet, "settings", { max_read_mailbox_items: 100 });

    // new addresses do not reuse the keys of the recovered VTXOs, and the recovered VTXOs pay
    const { address: next } = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    expect(before.map((v) => v.user_pubkey)).to.not.include(toHex(decodeArkAddress(next).policy.userPubkey));
    const bobBefore = (await balance(bob)).spendable_sat;
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: sum(before) - 1_000 });
    await until("Bob received from recovered VTXOs", async () => ((await balance(bob)).spendable_sat === bobBefore + sum(before) - 1_000 ? true : undefined));
  });

  it("a fully spent wallet recovers empty: nothing spent is resurrected", async () => {
    const carol = await startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV });
    try {
      await boardedWallet(carol, devnet, CAROL_MNEMONIC, [50_000]);
      const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
      await ok(carol, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: (await balance(carol)).spendable_sat });
      expect(await vtxos(carol)).to.deep.equal([]);
      await deleteAndRecover(carol, devnet, CAROL_MNEMONIC);
      expect(await allVtxos(carol)).to.deep.equal([]);
      expect((await balance(carol)).spendable_sat).to.equal(0);
      expect(carol.stderr()).to.match(/recovery complete: 0 recovered \(0 sat\), [1-9]\d* skipped/);
    } finally {
      await carol.stop();
      cleanup(carol.datadir);
    }
  });

  it("a VTXO on a key more than 50 unused keys past the last match is not found (reported as foreign); the one before it is", async () => {
    const dave = await startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV });
    try {
      await ok(dave, "POST", "/api/v1/wallet/create", createBody(devnet, DAVE_MNEMONIC));
      const addresses: string[] = [];
      for (let i = 0; i < 61; i++) addresses.push((await ok<{ address: string }>(dave, "POST", "/api/v1/wallet/addresses/next")).address);
      // keys 0..60 handed out: a payment to key 5 is found, the window then ends at key 55, so key 60 is out of reach
      await ok(bob, "POST", "/api/v1/wallet/send", { destination: addresses[5], amount_sat: 7_000 });
      await ok(bob, "POST", "/api/v1/wallet/send", { destination: addresses[60], amount_sat: 8_000 });
      await until("Dave received both", async () => ((await balance(dave)).spendable_sat === 15_000 ? true : undefined));
      // a payment may arrive as several VTXOs: tell them apart by the key they pay
      const keyOf = (a: string) => toHex(decodeArkAddress(a).policy.userPubkey);
      const held = await vtxos(dave);
      const within = held.filter((v) => v.user_pubkey === keyOf(addresses[5]!));
      const beyond = held.filter((v) => v.user_pubkey === keyOf(addresses[60]!));
      expect([sum(within), sum(beyond)]).to.deep.equal([7_000, 8_000]);
      await deleteAndRecover(dave, devnet, DAVE_MNEMONIC);
      expect(holdings(await allVtxos(dave))).to.deep.equal(holdings(within));
      for (const v of beyond) expect(dave.stderr()).to.include(v.id);
      expect(dave.stderr()).to.match(/gap limit/).and.to.match(/recovery incomplete: .* \d+ foreign \(8000 sat\)/);
    } finally {
      await dave.stop();
      cleanup(dave.datadir);
    }
  });
});
