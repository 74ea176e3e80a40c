import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { ArkServerClient, ArkServerInternalError, ArkServerNotFoundError, ArkServerRejectedError, ArkServerUnimplementedError, GrpcArkServer } from "@tender/ark-grpc";
import { encodeOutPoint, encodeTx, encodeVtxo, exitTransactions, formatOutPoint, type Vtxo } from "@tender/ark-protocol";
import type { RoundAttemptEvent, RoundEvent } from "@tender/ark-protocol/server";
import { RoundFixture } from "./round-fixture.js";
import { RoundFailedError } from "./round-participant.js";
import { prepareSubmission, refreshOutputs } from "./round-kit.js";
import { rejection } from "./fixture.js";
import { pubkeyPolicy, type WalletKit } from "./wallet-kit.js";

const isAttempt = (e: RoundEvent): e is RoundAttemptEvent => e.kind === "attempt";

describe("ark server: round sign-up refusals (captaind's texts and codes)", function () {
  this.timeout(60_000);
  let f: RoundFixture;
  let attempt: RoundAttemptEvent;

  /** A server with a 20 s sign-up window and a running attempt. */
  async function openRound(overrides = {}): Promise<void> {
    f = await RoundFixture.start({ overrides: { roundSubmitTimeMs: 20_000, ...overrides } });
  }
  async function startAttempt(): Promise<void> {
    const rec = f.recorder();
    f.ark.server.triggerRound();
    attempt = (await rec.until(isAttempt)) as RoundAttemptEvent;
    await rec.stop();
  }
  const submit = (kit: WalletKit, inputs: Vtxo[], outputs = refreshOutputs(kit, inputs)) => f.port().submitPayment(prepareSubmission(kit, attempt.challenge, inputs, outputs, f.info.nbRoundNonces).request);

  afterEach(() => f.close());

  describe("during one sign-up window", () => {
    beforeEach(async () => {
      await openRound();
    });

    it("refuses malformed, unknown and unspendable inputs (bad_round_input)", async () => {
      const { kit, vtxos } = await f.walletWith(30_000n, 40_000n);
      await kit.send([vtxos[1]!], 40_000n, kit.key().pk);
      await startAttempt();
      const good = prepareSubmission(kit, attempt.challenge, [vtxos[0]!], refreshOutputs(kit, [vtxos[0]!]), f.info.nbRoundNonces).request;
      const malformed = await rejection(f.port().submitPayment({ ...good, inputs: [{ vtxoId: new Uint8Array(10), attestation: good.inputs[0]!.attestation }] }));
      expect((malformed as ArkServerRejectedError).serverMessage).to.equal("invalid VTXO ID");
      const unknownId = encodeOutPoint({ txid: new Uint8Array(randomBytes(32)), vout: 1 });
      const unknown = await rejection(f.port().submitPayment({ ...good, inputs: [{ vtxoId: unknownId, attestation: good.inputs[0]!.attestation }] }));
      expect(unknown).to.be.instanceOf(ArkServerNotFoundError);
      expect((unknown as ArkServerNotFoundError).serverMessage).to.equal("not found: vtxo does not exist");
      const spent = await rejection(submit(kit, [vtxos[1]!]));
      expect(spent).to.be.instanceOf(ArkServerRejectedError);
      expect((spent as ArkServerRejectedError).serverMessage).to.equal(`unusable inputs: [${formatOutPoint(vtxos[1]!.point)}]: bad user input: input vtxo(s) not spendable`);
      expect((spent as ArkServerRejectedError).identifiers).to.deep.equal([formatOutPoint(vtxos[1]!.point)]);
      // the refusals left nothing locked: the good input still joins
      expect(await submit(kit, [vtxos[0]!])).to.have.length(32);
    });

    it("refuses the same inputs twice in one attempt (double_spend_round)", async () => {
      const { kit, vtxos } = await f.walletWith(30_000n);
      await startAttempt();
      await submit(kit, vtxos);
      const again = await rejection(submit(kit, vtxos));
      expect(again).to.be.instanceOf(ArkServerInternalError);
      expect(again.message).to.include(`vtxo ${formatOutPoint(vtxos[0]!.point)} already registered`);
      const twice = await rejection(submit(kit, [vtxos[0]!, vtxos[0]!]));
      expect(twice.message).to.include("user provided duplicate inputs");
    });

    it("refuses a correctly attested output below dust, and more out than in (reject_dust_vtxo_request)", async () => {
      const { kit, vtxos } = await f.walletWith(30_000n);
      await startAttempt();
      const dust = await rejection(submit(kit, vtxos, [{ amount: 329n, policy: pubkeyPolicy(kit.key().pk) }]));
      expect((dust as ArkServerRejectedError).serverMessage).to.equal("bad user input: vtxo amount must be at least 330 to participate in a round");
      const over = await rejection(submit(kit, vtxos, [{ amount: 30_001n, policy: pubkeyPolicy(kit.key().pk) }]));
      expect((over as ArkServerRejectedError).serverMessage).to.equal("bad user input: total output amount (30001) exceeds total input amount (30000)");
    });

    it("checks nonce count, outputs, offboards, cosign keys and attestations", async () => {
      const { kit, vtxos } = await f.walletWith(30_000n);
      await startAttempt();
      const s = prepareSubmission(kit, attempt.challenge, vtxos, refreshOutputs(kit, vtxos), f.info.nbRoundNonces).request;
      const port = f.port();
      const nonces = await rejection(port.submitPayment({ ...s, outputs: [{ ...s.outputs[0]!, pubNonces: s.outputs[0]!.pubNonces.slice(1) }] }));
      expect((nonces as ArkServerRejectedError).serverMessage).to.equal(`bad user input: need exactly ${f.info.nbRoundNonces} public nonces`);
      const none = await rejection(port.submitPayment({ ...s, outputs: [] }));
      expect((none as ArkServerRejectedError).serverMessage).to.equal("bad user input: invalid request: no outputs");
      const offboard = await rejection(
        port.client.ark("submitPayment", {
          inputVtxos: [],
          vtxoRequests: s.outputs.map((o) => ({ vtxo: { amount: o.amount, policy: o.policy }, cosignPubkey: o.cosignPubkey, publicNonces: [...o.pubNonces] })),
          offboardRequests: [{ netAmountSat: 1000n, offboardSpk: new Uint8Array(34), deductFeesFromGrossAmount: false, feeRateKwu: 1n }],
        }),
      );
      expect(offboard).to.be.instanceOf(ArkServerUnimplementedError);
      expect((offboard as ArkServerUnimplementedError).serverMessage).to.equal("offboards in rounds are no longer supported");
      const dupKey = await rejection(port.submitPayment({ ...s, outputs: [s.outputs[0]!, s.outputs[0]!] }));
      expect(dupKey).to.be.instanceOf(ArkServerInternalError);
      expect(dupKey.message).to.include("duplicate cosign key");
      const forged = await rejection(port.submitPayment({ ...s, inputs: [{ ...s.inputs[0]!, attestation: new Uint8Array(64).fill(1) }] }));
      expect(forged).to.be.instanceOf(ArkServerInternalError);
      expect(forged.message).to.include("attestation is invalid");
      // an attestation over another attempt's challenge does not verify either
      const stale = prepareSubmission(kit, new Uint8Array(32), vtxos, refreshOutputs(kit, vtxos), f.info.nbRoundNonces).request;
      expect((await rejection(port.submitPayment(stale))).message).to.include("attestation is invalid");
      expect(await port.submitPayment(s)).to.have.length(32);
    });

    it("refuses inputs being exited: the VTXO's exit tx is on chain (should_refuse_round_input_vtxo_that_is_being_exited)", async () => {
      const { kit, vtxos } = await f.walletWith(30_000n, 35_000n);
      f.node.mineTransactions([encodeTx(exitTransactions(vtxos[0]!)[0]!)]);
      await startAttempt();
      const err = await rejection(submit(kit, [vtxos[0]!]));
      expect((err as ArkServerRejectedError).serverMessage).to.include("input vtxo(s) not spendable");
      expect((err as ArkServerRejectedError).identifiers).to.deep.equal([formatOutPoint(vtxos[0]!.point)]);
      expect(await submit(kit, [vtxos[1]!])).to.have.length(32);
    });

    it("refuses a banned VTXO and accepts it again after the unban (banned_vtxo_cannot_be_spent, refresh)", async () => {
      const { kit, vtxos } = await f.walletWith(30_000n);
      await f.ark.server.banVtxo(encodeOutPoint(vtxos[0]!.point), 10);
      await startAttempt();
      const err = await rejection(submit(kit, vtxos));
      expect((err as ArkServerRejectedError).serverMessage).to.include("input vtxo(s) not spendable");
      expect((err as ArkServerRejectedError).identifiers).to.deep.equal([formatOutPoint(vtxos[0]!.point)]);
      await f.ark.server.unbanVtxo(encodeOutPoint(vtxos[0]!.point));
      expect(await submit(kit, vtxos)).to.have.length(32);
    });

    it("refuses an input locked by the running attempt for another operation (arkoor)", async () => {
      const { kit, vtxos } = await f.walletWith(30_000n);
      await startAttempt();
      await submit(kit, vtxos);
      const pay = kit.prepareArkoor(vtxos, [{ amount: 30_000n, policy: pubkeyPolicy(kit.key().pk) }]);
      const err = await rejection(kit.api.requestArkoorCosign(pay.parts));
      expect(err.message).to.include("already locked");
    });
  });

  it("refuses an insufficient refresh fee at the tip", async () => {
    await openRound({ fees: { ...(await import("../../src/ark-server/server-config.js")).testFeeSchedule(), refresh: { baseFeeSat: 500n, ppmExpiryTable: [] } } });
    const { kit, vtxos } = await f.walletWith(30_000n);
    await startAttempt();
    const err = await rejection(submit(kit, vtxos, refreshOutputs(kit, vtxos, 499n)));
    expect((err as ArkServerRejectedError).serverMessage).to.equal("bad user input: insufficient refresh fee: expected at least 500, got 499");
    expect(await submit(kit, vtxos, refreshOutputs(kit, vtxos, 500n))).to.have.length(32);
  });

  it("refuses signatures during sign-up and payments during signing (test_participate_round_wrong_step)", async () => {
    await openRound({ roundSubmitTimeMs: 1500, roundSignTimeMs: 4000 });
    const a = await f.walletWith(30_000n);
    const b = await f.walletWith(30_000n);
    const rec = f.recorder();
    const withholder = f.participant(a.kit, a.vtxos, { withholdOn: [0, 1] });
    f.ark.server.triggerRound();
    const first = (await rec.until(isAttempt)) as RoundAttemptEvent;
    const early = await rejection(f.port().provideVtxoSignatures({ cosignPubkey: a.kit.key().pk, signatures: [] }));
    expect((early as ArkServerRejectedError).serverMessage).to.equal("bad user input: unexpected message. current step is payment registration");
    await rec.until((e) => e.kind === "vtxo-proposal");
    const late = await rejection(f.port().submitPayment(prepareSubmission(b.kit, first.challenge, b.vtxos, refreshOutputs(b.kit, b.vtxos), f.info.nbRoundNonces).request));
    expect((late as ArkServerRejectedError).serverMessage).to.equal("bad user input: Round already started. Message arrived late or round was full.");
    const stranger = await rejection(f.port().provideVtxoSignatures({ cosignPubkey: b.kit.key().pk, signatures: [] }));
    expect((stranger as ArkServerRejectedError).serverMessage).to.equal("bad user input: pubkey is not part of cosigner group");
    // the withholder is excluded and its resubmission refused: the round fails, nothing was spent
    await rec.until((e) => e.kind === "failed");
    expect(await rejection(withholder.outcome)).to.be.instanceOf(Error);
    await rec.stop();
  });

  it("refuses rounds to clients older than protocol version 5", async () => {
    await openRound();
    const { kit, vtxos } = await f.walletWith(30_000n);
    await startAttempt();
    const old = new GrpcArkServer(new ArkServerClient({ url: f.ark.url, network: "regtest", userAgent: "old-test/0.1.0", protocolVersions: { min: 4, max: 4 } }));
    try {
      const err = await rejection(old.submitPayment(prepareSubmission(kit, attempt.challenge, vtxos, refreshOutputs(kit, vtxos), f.info.nbRoundNonces).request));
      expect((err as ArkServerRejectedError).serverMessage).to.equal("bad user input: Your client version is too old, you need to update in order to be able to participate in rounds.");
    } finally {
      old.close();
    }
  });

  it("funds rounds only from trusted coins: an unconfirmed wallet fails the round with Insufficient funds, a confirmed one works (cant_spend_untrusted)", async () => {
    f = await RoundFixture.start({ fundSat: 0n });
    const { kit, vtxos } = await f.walletWith(30_000n);
    await f.ark.server.wallet.fundFromFaucet(5_000_000n);
    expect((await f.ark.server.walletStatus()).untrustedBalance).to.equal(5_000_000n);
    const first = f.participant(kit, vtxos);
    f.ark.server.triggerRound();
    expect(await rejection(first.outcome)).to.be.instanceOf(RoundFailedError);
    expect(f.logLines.some((l) => l.includes("Insufficient funds"))).to.equal(true);
    // its inputs were released: after a confirmation the same VTXO refreshes
    f.node.mine(1);
    const second = f.participant(kit, vtxos);
    f.ark.server.triggerRound();
    const done = await second.complete();
    expect(done.vtxos[0]!.amount).to.equal(30_000n);
    expect(encodeVtxo(done.vtxos[0]!).length).to.be.greaterThan(0);
  });
});
