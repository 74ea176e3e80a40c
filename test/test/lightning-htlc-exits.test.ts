/**
 * HTLC VTXOs the Ark server will not take back or claim go out on chain. The devnet's server is
 * told to refuse (`POST /devnet/ark/settings {refused_calls}`) the revocation of a Lightning
 * send's HTLCs — after a failed payment, and while a payment stays pending — or the claim of a
 * receive's HTLC-recv VTXOs after the preimage was revealed. Past the point where the wallet can
 * still win on chain (send: `vtxo_refresh_expiry_threshold` before the HTLC expiry; receive:
 * `vtxo_exit_delta + htlc_expiry_delta + vtxo_exit_margin` before it) the daemon hands the HTLCs
 * to the exits rail; before it, it only keeps asking. The exit is progressed (CPFP packages from
 * the on-chain wallet) and claimed through the clause the wallet signs — the HTLC-send refund after
 * the HTLC expiry, the HTLC-recv hash clause with the preimage — accepted by the devnet's
 * validating mempool. The on-chain balance grows by the HTLC amount minus the claim fee, once;
 * the send is recorded failed (money back), the receive successful (money arrived), only once the
 * claim confirmed.
 */
import { expect } from "chai";
import { decodeVtxo } from "@tender/ark-protocol";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC, CAROL_MNEMONIC, boardToDaemon, createBody, startArkDevnet } from "./ark-harness.js";
import { fundOnchain, liveExits, ok, progressUntilClaimable, until, type Balance, type DevnetWithArk, type ExitStatus, type Movement } from "./exits-harness.js";

interface OnchainBalance { total_sat: number; confirmed_sat: number }
interface SendInfo { payment_hash: string; state: string }
interface ReceiveInfo { payment_hash: string; state: string; htlc_vtxo_ids: string[]; payment_preimage: string | null }

const CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-onchain", "@tender/plugin-ark", "@tender/plugin-lightning", "@tender/plugin-exits",
  ],
  pluginConfig: {
    onchain: { syncIntervalMs: 3_600_000 }, notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 },
    exits: { progressIntervalMs: 3_600_000 },
  },
};
/** The same with the exits' background pass every second: it claims HTLC exits by itself. */
const AUTO_CLAIM_CONFIG = { ...CONFIG, pluginConfig: { ...CONFIG.pluginConfig, exits: { progressIntervalMs: 1_000 } } };
/** A fourth BIP-39 vector, for the crash case's own wallet. */
const DAVE_MNEMONIC = "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong";
/** The wallet's refresh threshold in these tests (not the regtest default, so the setting is what counts). */
const THRESHOLD = 30;
/** Longer than the send's retry (3 s) and the receive's first back-offs: a step that was due has run. */
const SETTLE_MS = 6_000;

describe("unilateral exits of Lightning HTLC VTXOs the Ark server refuses to revoke or claim (devnet refused_calls)", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  const daemons: Daemon[] = [];

  before(async () => {
    devnet = await startArkDevnet("lightning-htlc-exits-e2e");
  });
  after(async () => {
    for (const d of daemons) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });
  afterEach(async () => {
    await settings({ refused_calls: [] });
  });

  async function settings(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await fetch(`${devnet.arkControlUrl}/settings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(r.status, await r.clone().text()).to.equal(200);
    return (await r.json()) as Record<string, unknown>;
  }
  /** A wallet with `ark` sats boarded and confirmed on-chain coins for the CPFP children (several: sibling packages go out in one pass). */
  async function wallet(mnemonic: string, ark: bigint, opts: { datadir?: string; env?: NodeJS.ProcessEnv; config?: typeof CONFIG } = {}): Promise<Daemon> {
    const d = await startDaemon({ config: opts.config ?? CONFIG, ...(opts.datadir ? { datadir: opts.datadir } : {}), env: { TENDER_VTXO_REFRESH_EXPIRY_THRESHOLD: String(THRESHOLD), ...opts.env } });
    daemons.push(d);
    await ok(d, "POST", "/api/v1/wallet/create", createBody(devnet, mnemonic));
    await fundOnchain(d, devnet, [100_000n, 100_000n, 100_000n, 100_000n]);
    await ok(d, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(d, devnet, mnemonic, ark)] });
    return d;
  }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const mineTo = (height: number) => {
    const n = height - devnet.node.tipHeight();
    expect(n, `mining up to ${height}`).to.be.at.least(0);
    if (n > 0) devnet.node.mine(n);
  };
  const movementsOf = async (d: Daemon, subsystem: string, hash: string) => (await ok<Movement[]>(d, "GET", "/api/v1/history"))
    .filter((m) => m.subsystem.name === subsystem && m.metadata?.payment_hash === hash);
  const exitMovements = async (d: Daemon) => (await ok<Movement[]>(d, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.exit");
  /** The HTLC policy of a VTXO, read from the server's copy. */
  async function htlcPolicy(id: string): Promise<{ htlcExpiry: number; htlcExpiryDelta?: number; exitDelta: number; amount: bigint }> {
    const row = await devnet.ark.server.ctx.store.getVtxo(id);
    const v = decodeVtxo(row!.bytes);
    const p = v.policy as { type: string; htlcExpiry: number; htlcExpiryDelta?: number };
    expect(p.type).to.match(/^server-htlc-/);
    return { htlcExpiry: p.htlcExpiry, ...(p.htlcExpiryDelta !== undefined ? { htlcExpiryDelta: p.htlcExpiryDelta } : {}), exitDelta: v.exitDelta, amount: v.amount };
  }

  /**
   * Progresses the exits of `d` until claimable, claims them all to its on-chain wallet and
   * confirms the claim; checks the claim paid the exits minus its fee and the on-chain balance
   * grew by exactly that, once. Answers the claim txid.
   */
  async function claimToWallet(d: Daemon, htlcIds: readonly string[], htlcTotal: number): Promise<string> {
    await progressUntilClaimable(devnet, [d], 120);
    const live = await liveExits(d);
    expect(live.map((e) => e.vtxo_id).sort()).to.deep.equal([...htlcIds].sort());
    expect((await ok<Balance>(d, "GET", "/api/v1/wallet/balance")).pending_exit_sat).to.equal(htlcTotal);
    await ok(d, "POST", "/api/v1/onchain/sync");
    const before = await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance");
    const { address } = await ok<{ address: string }>(d, "POST", "/api/v1/onchain/addresses/next");
    expect(await ok(d, "POST", "/api/v1/exits/claim/all", { destination: address })).to.deep.equal({ message: "Exit claimed successfully" });
    const claimTxid = (await liveExits(d))[0]!.state.claim_txid as string;
    const claim = devnet.node.getTransaction(claimTxid)!;
    expect(claim, "the claim is in the devnet's (validating) mempool").to.not.equal(undefined);
    expect(claim.vout).to.have.length(1);
    const claimFee = htlcTotal - Number(claim.vout[0]!.amountSat);
    expect(claimFee).to.be.greaterThan(0).and.lessThan(5_000);
    devnet.node.mine(1);
    await ok(d, "POST", "/api/v1/exits/progress", {});
    expect(await liveExits(d)).to.deep.equal([]);
    const finished = await ok<ExitStatus[]>(d, "GET", "/api/v1/exits/status/finished");
    expect(finished.filter((e) => htlcIds.includes(e.vtxo_id)).map((e) => [e.state.type, e.state.txid])).to.deep.equal(htlcIds.map(() => ["claimed", claimTxid]));
    await ok(d, "POST", "/api/v1/onchain/sync");
    const after = await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance");
    expect(after.confirmed_sat - before.confirmed_sat, "the HTLC amount minus the claim fee, once").to.equal(htlcTotal - claimFee);
    // nothing left to claim: a second claim is refused and changes nothing
    const again = await d.api("POST", "/api/v1/exits/claim/all", { body: { destination: address } });
    expect(again.status).to.not.equal(200);
    devnet.node.mine(1);
    await ok(d, "POST", "/api/v1/onchain/sync");
    expect((await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance")).confirmed_sat).to.equal(after.confirmed_sat);
    expect((await ok<Balance>(d, "GET", "/api/v1/wallet/balance")).pending_exit_sat).to.equal(0);
    const exits = (await exitMovements(d)).filter((m) => htlcIds.some((id) => m.input_vtxos.includes(id)));
    expect(exits.map((m) => m.status)).to.deep.equal(htlcIds.map(() => "successful"));
    return claimTxid;
  }

  /**
   * Mines a block at a time, asking nothing of `d`, until its background pass has claimed every
   * exit of `htlcIds` to its on-chain wallet (each as soon as it is claimable: exits whose chains
   * confirmed at different heights go out in separate claims) and the claims confirmed; checks the
   * claims paid the exits minus their fees, once, to the wallet. Answers the claim txids.
   */
  async function claimedUnasked(d: Daemon, htlcIds: readonly string[], htlcTotal: number): Promise<string[]> {
    for (let i = 0; i < 150 && (await liveExits(d)).length > 0; i++) {
      devnet.node.mine(1);
      await sleep(1_200);
    }
    expect(await liveExits(d), `the daemon claimed the HTLC exits by itself; log: ${d.stderr().split("\n").filter((l) => /claim/i.test(l)).slice(-6).join("\n")}`).to.deep.equal([]);
    const finished = (await ok<ExitStatus[]>(d, "GET", "/api/v1/exits/status/finished")).filter((e) => htlcIds.includes(e.vtxo_id));
    expect(finished.map((e) => e.state.type)).to.deep.equal(htlcIds.map(() => "claimed"));
    const claims = [...new Set(finished.map((e) => e.state.txid as string))];
    let fees = 0;
    for (const txid of claims) {
      const claim = devnet.node.getTransaction(txid)!;
      expect(claim.vout).to.have.length(1);
      const inputs = finished.filter((e) => e.state.txid === txid).length;
      expect(claim.vin).to.have.length(inputs);
      fees += Number(claim.feeSat);
    }
    expect(fees).to.be.greaterThan(0).and.lessThan(5_000 * claims.length);
    // each claim pays one output to the on-chain wallet: together the HTLC amount minus the claims' fees
    await ok(d, "POST", "/api/v1/onchain/sync");
    const utxos = await ok<{ outpoint: string; amount_sat: number }[]>(d, "GET", "/api/v1/onchain/utxos");
    const claimed = claims.map((txid) => utxos.find((u) => u.outpoint === `${txid}:0`));
    expect(claimed.every((u) => u !== undefined), "every claim output is the wallet's").to.equal(true);
    expect(claimed.reduce((t, u) => t + u!.amount_sat, 0)).to.equal(htlcTotal - fees);
    return claims;
  }

  /** The send's one movement: pending with the HTLCs exited while the exit runs. */
  async function sendHandedOver(d: Daemon, hash: string): Promise<{ htlcIds: string[]; total: number }> {
    const [m] = await movementsOf(d, "bark.lightning_send", hash);
    expect(m!.status, "money that may still go out is not failed").to.equal("pending");
    const htlcIds = m!.metadata!.htlc_vtxos as string[];
    expect(htlcIds).to.have.length.at.least(1);
    expect(m!.exited_vtxos).to.deep.equal(htlcIds);
    expect((await ok<SendInfo>(d, "GET", `/api/v1/lightning/sends/${hash}`)).state).to.equal("revocation-stuck");
    let total = 0;
    for (const id of htlcIds) total += Number((await htlcPolicy(id)).amount);
    return { htlcIds, total };
  }

  it("a failed payment whose revocation the server refuses: revocation-stuck and retried up to the threshold, then the HTLC goes out on chain and is claimed after its expiry; the send ends failed, the money back on chain once", async () => {
    const alice = await wallet(ALICE_MNEMONIC, 100_000n);
    expect(await settings({ refused_calls: ["RequestLightningPayHtlcRevocation"] })).to.deep.include({ refused_calls: ["RequestLightningPayHtlcRevocation"] });
    const { htlc_send_expiry_delta: delta } = await ok<{ htlc_send_expiry_delta: number }>(alice, "GET", "/api/v1/wallet/ark-info");
    const inv = devnet.lightning.createInvoice({ amountSat: 30_000n, kind: "unroutable" });
    const tip = devnet.node.tipHeight();
    await alice.api("POST", "/api/v1/lightning/pay", { body: { destination: inv.invoice } });
    const htlcExpiry = tip + delta;
    await until("revocation-stuck", async () => ((await ok<SendInfo>(alice, "GET", `/api/v1/lightning/sends/${inv.paymentHash}`)).state === "revocation-stuck" ? true : undefined), 30_000);

    // before the threshold the daemon only asks again
    mineTo(htlcExpiry - THRESHOLD);
    await sleep(SETTLE_MS);
    expect(await liveExits(alice)).to.deep.equal([]);
    expect((await movementsOf(alice, "bark.lightning_send", inv.paymentHash))[0]!.status).to.equal("pending");

    mineTo(htlcExpiry - THRESHOLD + 1);
    await until("the HTLC exit started", async () => ((await liveExits(alice)).length > 0 ? true : undefined), 30_000);
    const { htlcIds, total } = await sendHandedOver(alice, inv.paymentHash);
    expect((await htlcPolicy(htlcIds[0]!)).htlcExpiry).to.equal(htlcExpiry);
    const claimTxid = await claimToWallet(alice, htlcIds, total);
    expect(devnet.node.tipHeight(), "the refund clause needs the HTLC expiry").to.be.greaterThan(htlcExpiry);
    expect(devnet.node.getTransaction(claimTxid)!.locktime).to.be.at.least(htlcExpiry);

    const done = await until("the send recorded", async () => {
      const [m] = await movementsOf(alice, "bark.lightning_send", inv.paymentHash);
      return m!.status !== "pending" ? m : undefined;
    }, 30_000);
    expect(done).to.deep.include({ status: "failed", effective_balance_sat: 0, offchain_fee_sat: 0 });
    expect(done!.exited_vtxos).to.deep.equal(htlcIds);
    expect(await movementsOf(alice, "bark.lightning_send", inv.paymentHash)).to.have.length(1);
    expect((await ok<SendInfo>(alice, "GET", `/api/v1/lightning/sends/${inv.paymentHash}`)).state).to.equal("unknown");
    expect((await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).pending_lightning_send_sat).to.equal(0);
  });

  it("a payment still pending whose revocation the server refuses past the threshold: the HTLC goes out on chain, the send stays pending until the claim confirmed, then failed", async () => {
    const bob = await wallet(BOB_MNEMONIC, 100_000n);
    await settings({ refused_calls: ["RequestLightningPayHtlcRevocation"] });
    const { htlc_send_expiry_delta: delta } = await ok<{ htlc_send_expiry_delta: number }>(bob, "GET", "/api/v1/wallet/ark-info");
    const inv = devnet.lightning.createInvoice({ amountSat: 25_000n, kind: "hold" });
    const tip = devnet.node.tipHeight();
    await ok(bob, "POST", "/api/v1/lightning/pay", { destination: inv.invoice });
    await until("the payee to hold the payment", async () => (devnet.lightning.invoice(inv.paymentHash)!.state === "held" ? true : undefined));
    const htlcExpiry = tip + delta;
    mineTo(htlcExpiry - THRESHOLD);
    await sleep(SETTLE_MS);
    expect((await ok<SendInfo>(bob, "GET", `/api/v1/lightning/sends/${inv.paymentHash}`)).state).to.equal("payment-initiated");
    expect(await liveExits(bob)).to.deep.equal([]);

    mineTo(htlcExpiry - THRESHOLD + 1);
    await until("the HTLC exit started", async () => ((await liveExits(bob)).length > 0 ? true : undefined), 30_000);
    const { htlcIds, total } = await sendHandedOver(bob, inv.paymentHash);
    const pendingSend = (await ok<Balance>(bob, "GET", "/api/v1/wallet/balance")).pending_lightning_send_sat;
    expect(pendingSend, "the HTLC counts once: still the send's until its exit chain confirms").to.equal(total);
    await claimToWallet(bob, htlcIds, total);
    const [m] = await until("the send recorded", async () => {
      const ms = await movementsOf(bob, "bark.lightning_send", inv.paymentHash);
      return ms[0]!.status !== "pending" ? ms : undefined;
    }, 30_000);
    expect(m).to.deep.include({ status: "failed", effective_balance_sat: 0 });
    const b = await ok<Balance>(bob, "GET", "/api/v1/wallet/balance");
    expect(b.pending_lightning_send_sat).to.equal(0);
    expect(b.pending_exit_sat).to.equal(0);
    devnet.lightning.cancelHold(inv.paymentHash);
  });

  it("killed right after the HTLC's exit was recorded (the hand-over step not yet done), the restarted daemon resumes: one exit, claimed once, the send failed once", async () => {
    const datadir = tempDatadir();
    const first = await wallet(DAVE_MNEMONIC, 100_000n, { datadir, env: { TENDER_FAULT_INJECT: "exit-start:recorded" } });
    await settings({ refused_calls: ["RequestLightningPayHtlcRevocation"] });
    const { htlc_send_expiry_delta: delta } = await ok<{ htlc_send_expiry_delta: number }>(first, "GET", "/api/v1/wallet/ark-info");
    const inv = devnet.lightning.createInvoice({ amountSat: 20_000n, kind: "unroutable" });
    const tip = devnet.node.tipHeight();
    await first.api("POST", "/api/v1/lightning/pay", { body: { destination: inv.invoice } });
    await until("revocation-stuck", async () => ((await ok<SendInfo>(first, "GET", `/api/v1/lightning/sends/${inv.paymentHash}`)).state === "revocation-stuck" ? true : undefined), 30_000);
    mineTo(tip + delta - THRESHOLD + 1);
    await until("the daemon killed at the fault point", async () => (first.proc.signalCode === "SIGKILL" ? true : undefined), 30_000);
    expect(first.stderr()).to.contain("fault point exit-start:recorded fired");

    const second = await startDaemon({ config: CONFIG, datadir, env: { TENDER_VTXO_REFRESH_EXPIRY_THRESHOLD: String(THRESHOLD) } });
    daemons.push(second);
    await until("the hand-over resumed", async () => {
      const [m] = await movementsOf(second, "bark.lightning_send", inv.paymentHash);
      return m!.exited_vtxos.length > 0 ? true : undefined;
    }, 30_000);
    const { htlcIds, total } = await sendHandedOver(second, inv.paymentHash);
    expect((await liveExits(second)).map((e) => e.vtxo_id)).to.deep.equal(htlcIds);
    await claimToWallet(second, htlcIds, total);
    const [m] = await until("the send recorded", async () => {
      const ms = await movementsOf(second, "bark.lightning_send", inv.paymentHash);
      return ms[0]!.status !== "pending" ? ms : undefined;
    }, 30_000);
    expect(m).to.deep.include({ status: "failed", effective_balance_sat: 0 });
    expect(await movementsOf(second, "bark.lightning_send", inv.paymentHash)).to.have.length(1);
  });

  it("a receive whose claim the server refuses after the preimage was revealed: retried while there is time, then the HTLC-recv VTXOs go out on chain and the daemon claims them with the preimage unasked; the receive ends settled, the money on chain once", async () => {
    const carol = await wallet(CAROL_MNEMONIC, 50_000n, { config: AUTO_CLAIM_CONFIG });
    await settings({ refused_calls: ["ClaimLightningReceive"] });
    const { invoice } = await ok<{ invoice: string }>(carol, "POST", "/api/v1/lightning/receives/invoice", { amount_sat: 40_000 });
    const hold = await fetch(`${devnet.lnControlUrl}/hold-invoices/pay`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ invoice }) });
    expect(hold.status, await hold.clone().text()).to.equal(200);
    const revealed = await until("preimage-revealed", async () => {
      const r = await ok<ReceiveInfo>(carol, "GET", `/api/v1/lightning/receives/${encodeURIComponent(invoice)}`);
      return r.state === "preimage-revealed" ? r : undefined;
    }, 60_000);
    const hash = revealed.payment_hash;
    const htlcIds = revealed.htlc_vtxo_ids;
    expect(htlcIds).to.have.length.at.least(1);
    const policies = await Promise.all(htlcIds.map(htlcPolicy));
    const total = policies.reduce((t, p) => t + Number(p.amount), 0);
    // the point past which the server's timeout clause could win: tip + Δ + htlc_expiry_delta + vtxo_exit_margin ≥ expiry
    const exitAt = Math.min(...policies.map((p) => p.htlcExpiry - p.exitDelta - p.htlcExpiryDelta! - 12));
    expect(devnet.node.tipHeight()).to.be.lessThan(exitAt);
    mineTo(exitAt - 1);
    await sleep(SETTLE_MS);
    expect(await liveExits(carol), "before the point the claim is only asked again").to.deep.equal([]);
    expect((await ok<Balance>(carol, "GET", "/api/v1/wallet/balance")).claimable_lightning_receive_sat).to.equal(total);

    mineTo(exitAt);
    await until("the HTLC-recv exits started", async () => ((await liveExits(carol)).length === htlcIds.length ? true : undefined), 60_000);
    const [pendingMovement] = await movementsOf(carol, "bark.lightning_receive", hash);
    expect(pendingMovement!.status).to.equal("pending");
    expect(pendingMovement!.exited_vtxos).to.deep.equal(htlcIds);
    expect((await ok<ReceiveInfo>(carol, "GET", `/api/v1/lightning/receives/${hash}`)).state).to.equal("preimage-revealed");

    for (const claimTxid of await claimedUnasked(carol, htlcIds, total)) {
      for (const vin of devnet.node.getTransaction(claimTxid)!.vin) {
        expect(vin.witness.map((w) => Buffer.from(w).toString("hex")), "the hash clause's witness carries the preimage").to.include(revealed.payment_preimage);
      }
    }
    const settled = await until("settled", async () => {
      const r = await ok<ReceiveInfo>(carol, "GET", `/api/v1/lightning/receives/${hash}`);
      return r.state === "settled" ? r : undefined;
    }, 30_000);
    expect(settled.payment_preimage).to.equal(revealed.payment_preimage);
    const ms = await movementsOf(carol, "bark.lightning_receive", hash);
    expect(ms).to.have.length(1);
    expect(ms[0]).to.deep.include({ status: "successful" });
    expect(ms[0]!.exited_vtxos).to.deep.equal(htlcIds);
    const b = await ok<Balance>(carol, "GET", "/api/v1/wallet/balance");
    expect(b.claimable_lightning_receive_sat).to.equal(0);
    expect(b.pending_exit_sat).to.equal(0);
  });
});
