import { expect } from "chai";
import {
  arkoorCosignAttestation,
  encodeOutPoint,
  encodePolicy,
  encodeTx,
  encodeVtxo,
  exitTransactions,
  formatOutPoint,
  signAttestation,
  toHex,
  txidHex,
  vtxoStatusAttestation,
  type Vtxo,
} from "@tender/ark-protocol";
import { BadUserInputError, NotFoundError, UnusableInputsError } from "../../src/ark-server/server-errors.js";
import { ClientSpendState } from "../../src/ark-server/vtxo-registry.js";
import { newKey, pubkeyPolicy, WalletKit } from "./wallet-kit.js";
import { rejection, serverFixture, type ServerFixture } from "./fixture.js";

describe("ark server: arkoor cosigning (captaind's RequestArkoorCosign checks)", function () {
  this.timeout(60_000);
  let f: ServerFixture;
  let alice: WalletKit;
  let bob: WalletKit;
  beforeEach(async () => {
    f = await serverFixture();
    alice = new WalletKit(f.api, f.node);
    bob = new WalletKit(f.api, f.node);
  });
  afterEach(() => f.close());

  const stateOf = async (v: Vtxo) => (await f.server.ctx.store.getVtxo(formatOutPoint(v.point)))?.state;

  it("runs an arkoor chain of several hops with change, every output registered and spendable", async () => {
    let coins = [await alice.board(100_000n)];
    let hops = 0;
    for (const amount of [10_000n, 7_000n, 5_000n]) {
      const bobKey = bob.key();
      const { sent, change } = await alice.send(coins, amount, bobKey.pk, { changePieces: 2 });
      hops++;
      expect(sent.map((v) => v.amount)).to.deep.equal([amount]);
      expect(change.reduce((s, v) => s + v.amount, 0n)).to.equal(coins.reduce((s, v) => s + v.amount, 0n) - amount);
      for (const v of coins) expect(await stateOf(v)).to.equal("spent");
      for (const v of [...sent, ...change]) expect(await stateOf(v)).to.equal("spendable");
      // every exit tx of every output is stored with its witness (the outputs share their chain's
      // prefix, written once)
      for (const v of [...sent, ...change]) {
        for (const t of exitTransactions(v)) {
          const stored = await f.server.ctx.store.getTx(txidHex(t));
          expect(stored?.signed, `exit tx ${txidHex(t)} of ${formatOutPoint(v.point)}`).to.equal(true);
          expect(toHex(stored!.raw)).to.equal(toHex(encodeTx(t)));
        }
      }
      // bob spends what he got onwards, so his chain also grows
      if (hops > 1) await bob.send(sent, amount - 400n, newKey().pk);
      coins = change;
    }
    expect(coins[0]!.genesis.length).to.equal(1 + 2 * hops);
  });

  it("spends several inputs in one package", async () => {
    const a = await alice.board(30_000n);
    const b = await alice.board(25_000n);
    const { sent, change } = await alice.send([a, b], 50_000n, bob.key().pk);
    expect(sent.reduce((s, v) => s + v.amount, 0n)).to.equal(50_000n);
    expect(change.map((v) => v.amount)).to.deep.equal([5_000n]);
  });

  it("returns the same answer to an identical replayed request, and refuses a conflicting one", async () => {
    const coin = await alice.board(40_000n);
    const first = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const r1 = await f.server.requestArkoorCosign(first.parts);
    const r2 = await f.server.requestArkoorCosign(first.parts);
    expect(r2).to.deep.equal(r1);
    // same amounts, other destination: the same checkpoint tx, but a different arkoor tx
    const second = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const err = await rejection(f.server.requestArkoorCosign(second.parts));
    expect(err).to.be.instanceOf(UnusableInputsError);
    expect(err.message).to.equal(`bad user input: vtxo ${formatOutPoint(coin.point)} is not spendable (state: spent)`);
    expect((err as UnusableInputsError).identifiers).to.deep.equal([formatOutPoint(coin.point)]);
  });

  it("cosigns a package again with new nonces after its outputs were registered (a wallet that died before saving its signatures), and registers the outputs signed anew", async () => {
    const coin = await alice.board(40_000n);
    const payee = bob.key().pk;
    const outputs = [{ amount: 40_000n, policy: pubkeyPolicy(payee) }];
    const first = alice.prepareArkoor([coin], outputs);
    const signedFirst = alice.finishArkoor(first.pkg, first.nonces, await f.server.requestArkoorCosign(first.parts));
    await f.server.registerVtxoTransactions(signedFirst.map((v) => encodeVtxo(v)));
    expect(await stateOf(signedFirst[0]!)).to.equal("spendable");
    // the restarted wallet builds the same package with fresh nonces: the same transactions, other signatures
    const again = alice.prepareArkoor([coin], outputs);
    const signedAgain = alice.finishArkoor(again.pkg, again.nonces, await f.server.requestArkoorCosign(again.parts));
    expect(signedAgain.map((v) => formatOutPoint(v.point))).to.deep.equal(signedFirst.map((v) => formatOutPoint(v.point)));
    expect(toHex(encodeVtxo(signedAgain[0]!))).to.not.equal(toHex(encodeVtxo(signedFirst[0]!)));
    await f.server.registerVtxoTransactions(signedAgain.map((v) => encodeVtxo(v)));
    expect(await stateOf(signedAgain[0]!)).to.equal("spendable");
    expect((await f.server.ctx.store.getVtxo(formatOutPoint(signedAgain[0]!.point)))!.bytes).to.deep.equal(encodeVtxo(signedAgain[0]!));
  });

  it("lets exactly one of two concurrent conflicting requests through", async () => {
    const coin = await alice.board(40_000n);
    const reqs = [0, 1].map(() => alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(newKey().pk) }]));
    const results = await Promise.allSettled(reqs.map((r) => f.server.requestArkoorCosign(r.parts)));
    const ok = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(ok).to.have.length(1);
    expect(refused).to.have.length(1);
    expect(refused[0]!.reason).to.be.instanceOf(BadUserInputError);
    expect(String(refused[0]!.reason.message)).to.match(/already locked by another process|is not spendable \(state: spent\)/);
    const winner = reqs[results.indexOf(ok[0]!)]!;
    const outputs = alice.finishArkoor(winner.pkg, winner.nonces, (ok[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof f.server.requestArkoorCosign>>>).value);
    await f.server.registerVtxoTransactions(outputs.map((v) => encodeVtxo(v)));
    expect(await stateOf(outputs[0]!)).to.equal("spendable");
  });

  it("refuses a wrong attestation signature", async () => {
    const coin = await alice.board(40_000n);
    const { parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    parts[0]!.attestation = signAttestation(vtxoStatusAttestation(encodeOutPoint(coin.point)), alice.secretFor(coin.policy.userPubkey));
    const err = await rejection(f.server.requestArkoorCosign(parts));
    expect(err.message).to.equal("bad user input: invalid cosign request at index #0: Invalid attestation");
    expect(await stateOf(coin)).to.equal("spendable");
  });

  it("refuses a package naming the same input twice", async () => {
    const coin = await alice.board(40_000n);
    const { parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const err = await rejection(f.server.requestArkoorCosign([parts[0]!, parts[0]!]));
    expect(err.message).to.equal(`bad user input: duplicate input vtxo ${formatOutPoint(coin.point)}`);
  });

  it("refuses unknown inputs with NOT_FOUND naming them", async () => {
    const coin = await alice.board(40_000n);
    const { parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const unknownId = encodeOutPoint({ txid: new Uint8Array(32).fill(3), vout: 1 });
    const err = await rejection(f.server.requestArkoorCosign([{ ...parts[0]!, inputVtxoId: unknownId }]));
    expect(err).to.be.instanceOf(NotFoundError);
    expect((err as NotFoundError).identifiers).to.deep.equal([`${"03".repeat(32)}:1`]);
  });

  it("refuses an unregistered input (chain not uploaded)", async () => {
    const coin = await alice.board(40_000n);
    const { pkg, nonces, parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(alice.key().pk) }]);
    const [out] = alice.finishArkoor(pkg, nonces, await f.server.requestArkoorCosign(parts));
    const next = alice.prepareArkoor([out!], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const err = await rejection(f.server.requestArkoorCosign(next.parts));
    expect(err.message).to.equal(`bad user input: vtxo ${formatOutPoint(out!.point)} is not spendable (state: unregistered)`);
  });

  it("refuses packages without checkpoints", async () => {
    const coin = await alice.board(40_000n);
    const { parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const err = await rejection(f.server.requestArkoorCosign([{ ...parts[0]!, useCheckpoint: false }]));
    expect(err.message).to.equal("bad user input: should use arkoor checkpoints");
    expect((await rejection(f.server.requestArkoorCosign([]))).message).to.equal("bad user input: should use arkoor checkpoints");
  });

  it("refuses unbalanced parts and wrong nonce counts", async () => {
    const coin = await alice.board(40_000n);
    const { parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const unbalanced = { ...parts[0]!, outputs: [{ ...parts[0]!.outputs[0]!, totalAmount: 40_001n }] };
    expect((await rejection(f.server.requestArkoorCosign([unbalanced]))).message).to.equal("bad user input: invalid cosign request at index #0: Unbalanced { input: 40000, output: 40001 }");
    const fewNonces = { ...parts[0]!, userPubNonces: parts[0]!.userPubNonces.slice(1) };
    expect((await rejection(f.server.requestArkoorCosign([fewNonces]))).message).to.equal("bad user input: invalid cosign request at index #0: wrong number of user nonces: expected 2, got 1");
  });

  it("refuses a mix of dust and non-dust outputs, and accepts dust behind isolation", async () => {
    const coin = await alice.board(40_000n);
    const { parts } = alice.prepareArkoor([coin], [{ amount: 100n, policy: pubkeyPolicy(bob.key().pk) }, { amount: 39_900n, policy: pubkeyPolicy(alice.key().pk) }]);
    expect(parts[0]!.isolatedOutputs.length).to.be.greaterThan(0);
    // crafted: the dust output moved into the regular list next to a large one, attestation re-signed to match
    const normal = [{ amount: 100n, policy: pubkeyPolicy(bob.key().pk) }, { amount: 39_900n, policy: pubkeyPolicy(alice.key().pk) }];
    const attestation = signAttestation(arkoorCosignAttestation(encodeOutPoint(coin.point), normal, []), alice.secretFor(coin.policy.userPubkey));
    const mixed = { ...parts[0]!, outputs: normal.map((d) => ({ totalAmount: d.amount, policy: encodePolicy(d.policy) })), isolatedOutputs: [], userPubNonces: parts[0]!.userPubNonces.slice(0, 3), attestation };
    const err = await rejection(f.server.requestArkoorCosign([mixed]));
    expect(err.message).to.equal(`bad user input: invalid mix of dust and non-dust outputs for input ${formatOutPoint(coin.point)}`);
    // the honest, isolated package goes through
    const sent = await alice.send([coin], 100n, bob.key().pk);
    expect(sent.sent.map((v) => v.amount)).to.deep.equal([100n]);
  });

  it("refuses more outputs per input than the fan-out allows", async () => {
    const coin = await alice.board(50_000n);
    const outs = Array.from({ length: 5 }, () => ({ amount: 10_000n, policy: pubkeyPolicy(bob.key().pk) }));
    const { parts } = alice.prepareArkoor([coin], outs, { maxFanout: 99 });
    const err = await rejection(f.server.requestArkoorCosign(parts));
    expect(err.message).to.equal(`bad user input: too many outputs for input ${formatOutPoint(coin.point)}: 5 (max is 4)`);
  });

  it("refuses inputs at the maximum exit depth", async () => {
    const g = await serverFixture({ overrides: { maxVtxoExitDepth: 3 } });
    try {
      const w = new WalletKit(g.api, g.node);
      const coin = await w.board(30_000n);
      const { change } = await w.send([coin], 1_000n, newKey().pk); // depth 1 → 3
      const { parts } = w.prepareArkoor(change, [{ amount: change[0]!.amount, policy: pubkeyPolicy(newKey().pk) }]);
      const err = await rejection(g.server.requestArkoorCosign(parts));
      expect(err.message).to.equal(
        `bad user input: input vtxo ${formatOutPoint(change[0]!.point)} exit depth 3 meets or exceeds the maximum of 3; refresh the VTXO in a round to reset its exit depth`,
      );
    } finally {
      await g.close();
    }
  });

  it("refuses an input whose exit confirmed on chain", async () => {
    const coin = await alice.board(40_000n);
    const [exitTx] = exitTransactions(coin);
    f.node.mineTransactions([encodeTx(exitTx!)]);
    const { parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const err = await rejection(f.server.requestArkoorCosign(parts));
    expect(err.message).to.equal(`bad user input: vtxo ${formatOutPoint(coin.point)} has exited onchain`);
  });

  it("refuses banned inputs until the ban expires", async () => {
    const coin = await alice.board(40_000n);
    const until = await f.server.banVtxo(encodeOutPoint(coin.point), 2);
    expect(await f.server.listBannedVtxos()).to.deep.equal([{ id: formatOutPoint(coin.point), until }]);
    const { parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    expect((await rejection(f.server.requestArkoorCosign(parts))).message).to.equal(`bad user input: vtxo ${formatOutPoint(coin.point)} is banned until block ${until}`);
    f.node.mine(2);
    await f.server.requestArkoorCosign(parts);
  });

  it("reports spend states through GetVtxoStatus with an owner attestation", async () => {
    const coin = await alice.board(40_000n);
    const id = encodeOutPoint(coin.point);
    const att = signAttestation(vtxoStatusAttestation(id), alice.secretFor(coin.policy.userPubkey));
    expect(await f.server.getVtxoStatus(id, att)).to.equal(ClientSpendState.SPENDABLE);
    const { pkg, nonces, parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const [out] = alice.finishArkoor(pkg, nonces, await f.server.requestArkoorCosign(parts));
    expect(await f.server.getVtxoStatus(id, att)).to.equal(ClientSpendState.SPENT);
    const outId = encodeOutPoint(out!.point);
    const outAtt = signAttestation(vtxoStatusAttestation(outId), bob.secretFor(out!.policy.userPubkey));
    expect(await f.server.getVtxoStatus(outId, outAtt)).to.equal(ClientSpendState.UNREGISTERED);
    const wrong = signAttestation(vtxoStatusAttestation(outId), newKey().sk);
    expect((await rejection(f.server.getVtxoStatus(outId, wrong))).message).to.equal("bad user input: invalid VTXO status attestation");
    expect(await rejection(f.server.getVtxoStatus(encodeOutPoint({ txid: new Uint8Array(32), vout: 0 }), att))).to.be.instanceOf(NotFoundError);
  });

  it("refuses to register chains that are unknown, unsigned or empty", async () => {
    expect((await rejection(f.server.registerVtxoTransactions([]))).message).to.equal("bad user input: no vtxos provided");
    const coin = await alice.board(40_000n);
    const { pkg, nonces, parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(bob.key().pk) }]);
    const resp = await f.server.requestArkoorCosign(parts);
    const unsigned = (await import("@tender/ark-protocol")).arkoorPackageVtxos(pkg, pkg.parts.map((p) => p.signing.map(() => null)));
    const err = await rejection(f.server.registerVtxoTransactions([encodeVtxo(unsigned[0]!)]));
    expect(err.message).to.equal(`bad user input: vtxo ${formatOutPoint(unsigned[0]!.point)} is not fully signed`);
    const signed = alice.finishArkoor(pkg, nonces, resp);
    await f.server.registerVtxoTransactions([encodeVtxo(signed[0]!), encodeVtxo(signed[0]!)]);
    const stranger = await new WalletKit(f.api, f.node).cosignBoard(await alice.prepareBoard(30_000n));
    expect(await rejection(f.server.registerVtxoTransactions([encodeVtxo(stranger)]))).to.be.instanceOf(NotFoundError);
    // one bad VTXO fails the whole batch: the good one stays unregistered
    const next = bob.prepareArkoor([signed[0]!], [{ amount: 40_000n, policy: pubkeyPolicy(alice.key().pk) }]);
    const [good] = bob.finishArkoor(next.pkg, next.nonces, await f.server.requestArkoorCosign(next.parts));
    expect(await rejection(f.server.registerVtxoTransactions([encodeVtxo(good!), encodeVtxo(stranger)]))).to.be.instanceOf(NotFoundError);
    expect(await stateOf(good!)).to.equal("unregistered");
  });
  it("registers a registered chain again without a change, but checks a different encoding of a registered VTXO (an altered signature is refused)", async () => {
    const coin = await alice.board(40_000n);
    const { sent } = await alice.send([coin], 40_000n, bob.key().pk);
    const vtxo = sent[0]!;
    await f.server.registerVtxoTransactions([encodeVtxo(vtxo)]);
    expect(await stateOf(vtxo)).to.equal("spendable");
    // the same id with one signature byte changed is not taken for the registered chain
    const last = vtxo.genesis.at(-1)!;
    const sig = new Uint8Array(last.transition.signature!);
    sig[10]! ^= 1;
    const forged: Vtxo = { ...vtxo, genesis: [...vtxo.genesis.slice(0, -1), { ...last, transition: { ...last.transition, signature: sig } as typeof last.transition }] };
    const err = await rejection(f.server.registerVtxoTransactions([encodeVtxo(forged)]));
    expect(err).to.be.instanceOf(BadUserInputError);
    expect(err.message).to.match(/^bad user input: vtxo validation failed: /);
    expect((await f.server.ctx.store.getVtxo(formatOutPoint(vtxo.point)))!.bytes).to.deep.equal(encodeVtxo(vtxo));
    // spent onwards, the registered chain registers again and stays spent
    await bob.send(sent, 39_000n, newKey().pk);
    await f.server.registerVtxoTransactions([encodeVtxo(vtxo)]);
    expect(await stateOf(vtxo)).to.equal("spent");
  });
});
