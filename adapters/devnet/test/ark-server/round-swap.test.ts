import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { ArkServerNotFoundError, ArkServerRejectedError } from "@tender/ark-grpc";
import { createForfeitBundle, encodeForfeitBundle, encodeOutPoint, musigNonceGen, sha256, toHex, vtxoId, type Vtxo } from "@tender/ark-protocol";
import type { RoundEvent } from "@tender/ark-protocol/server";
import { RoundFixture } from "./round-fixture.js";
import { delegatedOutcome, harkSwap, prepareDelegated, refreshOutputs } from "./round-kit.js";
import { rejection } from "./fixture.js";
import { pubkeyPolicy } from "./wallet-kit.js";

describe("ark server: the hArk swap after a round (leaf cosign, forfeit nonces, forfeits)", function () {
  this.timeout(60_000);
  let f: RoundFixture;
  let dir: string | undefined;
  afterEach(async () => {
    await f.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("answers leaf cosign requests repeatably and refuses VTXOs that are not round leaves", async () => {
    f = await RoundFixture.start();
    const { kit, vtxos } = await f.walletWith(30_000n, 20_000n);
    const p = f.participant(kit, [vtxos[0]!]);
    f.ark.server.triggerRound();
    const outcome = await p.outcome;
    const leaf = outcome.vtxos[0]!;
    const port = f.port();
    const nonce = musigNonceGen({ pubkey: leaf.policy.userPubkey, secretKey: kit.secretFor(leaf.policy.userPubkey) }).pubNonce;
    const first = await port.requestLeafVtxoCosign({ vtxoId: vtxoId(leaf), pubNonce: nonce });
    expect(await port.requestLeafVtxoCosign({ vtxoId: vtxoId(leaf), pubNonce: nonce })).to.deep.equal(first);
    const board = await rejection(port.requestLeafVtxoCosign({ vtxoId: vtxoId(vtxos[1]!), pubNonce: nonce }));
    expect((board as ArkServerRejectedError).serverMessage).to.equal("bad user input: VTXO's chain anchor is not a known round");
    const unknown = await rejection(port.requestLeafVtxoCosign({ vtxoId: encodeOutPoint({ txid: new Uint8Array(randomBytes(32)), vout: 0 }), pubNonce: nonce }));
    expect(unknown).to.be.instanceOf(ArkServerNotFoundError);
    await p.complete();
  });

  it("checks forfeit nonce requests and forfeits, returns held nonces again, releases the preimage once and again on replay", async () => {
    f = await RoundFixture.start();
    const { kit, vtxos } = await f.walletWith(30_000n, 25_000n, 20_000n);
    const p = f.participant(kit, [vtxos[0]!, vtxos[1]!]);
    f.ark.server.triggerRound();
    const outcome = await p.outcome;
    await p.stop();
    const port = f.port();
    const hash = outcome.unlockHash;
    const ids = [vtxoId(vtxos[0]!), vtxoId(vtxos[1]!)];
    const tooMany = await rejection(port.requestForfeitNonces(hash, Array.from({ length: 1001 }, () => ids[0]!)));
    expect((tooMany as ArkServerRejectedError).serverMessage).to.equal("bad user input: too many vtxo ids, max is 1000");
    const unknown = await rejection(port.requestForfeitNonces(new Uint8Array(32).fill(7), ids));
    expect((unknown as ArkServerNotFoundError).serverMessage).to.equal("not found: unknown unlock hash");
    const foreign = await rejection(port.requestForfeitNonces(hash, [vtxoId(vtxos[2]!)]));
    expect((foreign as ArkServerRejectedError).serverMessage).to.include("is not part of this round participation");
    expect(await rejection(port.forfeitVtxos([]))).to.have.property("serverMessage", "bad user input: zero forfeit bundles provided");

    // a bundle for an input without a nonce yet
    const someNonce = musigNonceGen({ pubkey: f.info.serverPubkey }).pubNonce;
    const bundle = (v: Vtxo, n: Uint8Array, h = hash) => encodeForfeitBundle(createForfeitBundle(v, h, kit.secretFor(v.policy.userPubkey), n));
    const noNonce = await rejection(port.forfeitVtxos([bundle(vtxos[0]!, someNonce), bundle(vtxos[1]!, someNonce)]));
    expect((noNonce as ArkServerRejectedError).serverMessage).to.include("no forfeit nonces generated for vtxo");

    const nonces = await port.requestForfeitNonces(hash, ids);
    expect(await port.requestForfeitNonces(hash, ids)).to.deep.equal(nonces);
    const missing = await rejection(port.forfeitVtxos([bundle(vtxos[0]!, nonces[0]!)]));
    expect((missing as ArkServerRejectedError).serverMessage).to.include("missing input vtxos");
    const mixed = await rejection(port.forfeitVtxos([bundle(vtxos[0]!, nonces[0]!), bundle(vtxos[1]!, nonces[1]!, new Uint8Array(32).fill(1))]));
    expect((mixed as ArkServerRejectedError).serverMessage).to.equal("bad user input: not all forfeit bundles have same unlock hash");
    // signed against the wrong server nonce: the partial signature does not verify
    const wrong = await rejection(port.forfeitVtxos([bundle(vtxos[0]!, nonces[1]!), bundle(vtxos[1]!, nonces[1]!)]));
    expect((wrong as ArkServerRejectedError).serverMessage).to.include(`forfeit validation failed for vtxo`);

    const done = await harkSwap(port, kit, f.info, { fundingTx: outcome.fundingTx, vtxos: outcome.vtxos, unlockHash: hash, inputs: [vtxos[0]!, vtxos[1]!] });
    expect(toHex(sha256(done.preimage))).to.equal(toHex(hash));
    // replay after the release: the same preimage, without nonces
    expect(await port.forfeitVtxos([bundle(vtxos[0]!, nonces[0]!), bundle(vtxos[1]!, nonces[1]!)])).to.deep.equal(done.preimage);
    // the round-spent inputs stay spent: an arkoor spend of one is refused
    const pay = kit.prepareArkoor([vtxos[0]!], [{ amount: 30_000n, policy: pubkeyPolicy(kit.key().pk) }]);
    expect((await rejection(kit.api.requestArkoorCosign(pay.parts))).message).to.include("is not spendable (state: spent)");
  });

  it("keeps a finished round across a restart: leaf cosign, forfeits and delegated status work on the restarted server", async () => {
    dir = mkdtempSync(join(tmpdir(), "tender-ark-rounds-"));
    {
      f = await RoundFixture.start({ datadir: dir });
      const kit = f.wallet();
      const mine = await kit.board(40_000n);
      const theirs = await kit.board(35_000n);
      const outputs = refreshOutputs(kit, [theirs]);
      const delegatedHash = await f.port().submitRoundParticipation(prepareDelegated(kit, [theirs], outputs));
      const p = f.participant(kit, [mine]);
      f.ark.server.triggerRound();
      const outcome = await p.outcome;
      await f.restart();
      const port = f.port();
      const info = (await port.connect()).arkInfo;
      const done = await harkSwap(port, kit, info, { fundingTx: outcome.fundingTx, vtxos: outcome.vtxos, unlockHash: outcome.unlockHash, inputs: [mine] });
      expect(done.vtxos[0]!.amount).to.equal(40_000n);
      const status = await port.roundParticipationStatus(delegatedHash);
      expect(status.status).to.equal("issued");
      if (status.status === "pending") throw new Error("unreachable");
      const issued = delegatedOutcome(status.roundFundingTx, status.outputVtxos, outputs, delegatedHash);
      const swapped = await harkSwap(port, kit, info, { fundingTx: issued.fundingTx, vtxos: issued.vtxos, unlockHash: delegatedHash, inputs: [theirs] });
      expect(swapped.vtxos[0]!.amount).to.equal(35_000n);
      const released = await port.roundParticipationStatus(delegatedHash);
      expect(released.status).to.equal("released");
      expect(released.status !== "pending" && released.unlockPreimage).to.deep.equal(swapped.preimage);
      // the refreshed VTXOs are spendable on the restarted server
      const { sent } = await kit.send([...done.vtxos, ...swapped.vtxos], 70_000n, kit.key().pk);
      expect(sent.reduce((s, v) => s + v.amount, 0n)).to.equal(70_000n);
    }
  });

  it("abandons an attempt running at shutdown: subscribers see it fail, and after a restart its inputs refresh", async () => {
    dir = mkdtempSync(join(tmpdir(), "tender-ark-rounds-"));
    f = await RoundFixture.start({ datadir: dir, overrides: { roundSubmitTimeMs: 20_000 } });
    const kit = f.wallet();
    const coin = await kit.board(30_000n);
    // an in-process subscriber of the domain object sees the events up to the shutdown
    const seen: RoundEvent[] = [];
    const collecting = (async () => {
      for await (const e of f.ark.server.subscribeRounds()) seen.push(e);
    })();
    const p = f.participant(kit, [coin]);
    f.ark.server.triggerRound();
    while (p.unlockHashes.length === 0) await new Promise((r) => setTimeout(r, 20));
    await f.restart({ roundSubmitTimeMs: 1500 });
    await collecting;
    expect(seen.map((e) => e.kind)).to.deep.equal(["attempt", "failed"]);
    expect(seen[1]!.roundSeq).to.equal(seen[0]!.roundSeq);
    const again = f.participant(kit, [coin]);
    f.ark.server.triggerRound();
    const done = await again.complete();
    expect(done.vtxos[0]!.amount).to.equal(30_000n);
  });
});
