import { expect } from "chai";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { ArkServerInternalError, ArkServerNotFoundError, ArkServerRejectedError } from "@tender/ark-grpc";
import { encodeOutPoint, p2trAddress, P2A_SCRIPT, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import { RoundFixture } from "./round-fixture.js";
import { rejection } from "./fixture.js";
import { attested, p2trDestination, planOffboard, prepareAndSign } from "./offboard-kit.js";
import type { WalletKit } from "./wallet-kit.js";

describe("ark server: offboard refusals (captaind's texts and codes; nothing changes)", function () {
  this.timeout(60_000);
  let f: RoundFixture;
  let kit: WalletKit;
  let vtxos: Vtxo[];
  afterEach(() => f?.close());

  async function start(overrides = {}): Promise<void> {
    f = await RoundFixture.start({ seed: "offboard-refusals", overrides });
    ({ kit, vtxos } = await f.walletWith(40_000n, 50_000n));
    // more wallet coins, so several sessions can be funded at once
    for (let i = 0; i < 3; i++) await f.ark.server.wallet.fundFromFaucet(1_000_000n);
    f.node.mine(1);
  }
  const plan = (inputs: Vtxo[], opts: Parameters<typeof planOffboard>[6] = {}, script = p2trDestination(1)) => planOffboard(f.port(), f.info, f.node, kit, inputs, script, opts);
  const refusal = async (p: Promise<unknown>): Promise<ArkServerRejectedError> => {
    const e = await rejection(p);
    expect(e, e.message).to.be.instanceOf(ArkServerRejectedError);
    return e as ArkServerRejectedError;
  };
  async function expectUntouched(): Promise<void> {
    for (const v of vtxos) {
      expect((await f.ark.server.ctx.store.getVtxo(vtxoIdString(v)))?.state).to.equal("spendable");
      expect(f.ark.server.ctx.locks.isLocked(vtxoIdString(v))).to.equal(false);
    }
    expect(f.ark.server.offboards.sessions.heldCoins().size).to.equal(0);
  }

  it("refuses the request's shape: too many inputs, a non-standard or dust destination, duplicate inputs, a missing attestation", async () => {
    await start({ maxOffboardInputs: 1 });
    const two = await plan(vtxos);
    expect((await refusal(f.port().prepareOffboard(two.request))).serverMessage).to.equal("bad user input: too many inputs");
    await f.ark.settings.update({ maxOffboardInputs: 100 });
    const p = await plan([vtxos[0]!]);
    const p2a = { ...p.request, offboard: { ...p.request.offboard, script: P2A_SCRIPT } };
    expect((await refusal(f.port().prepareOffboard(p2a))).serverMessage).to.equal("bad user input: invalid offboard request: non-standard output");
    const dust = attested(kit, { ...p.request.offboard, netAmountSat: 329n }, [vtxos[0]!]);
    expect((await refusal(f.port().prepareOffboard(dust))).serverMessage).to.equal("bad user input: invalid offboard request: non-standard output");
    const dup = { ...p.request, inputVtxoIds: [p.request.inputVtxoIds[0]!, p.request.inputVtxoIds[0]!], attestations: [p.request.attestations[0]!, p.request.attestations[0]!] };
    expect((await refusal(f.port().prepareOffboard(dup))).serverMessage).to.equal("bad user input: duplicate input vtxo");
    const noAtt = { ...p.request, attestations: [] };
    expect((await refusal(f.port().prepareOffboard(noAtt))).serverMessage).to.equal("bad user input: wrong number of attestations");
    await expectUntouched();
  });

  it("refuses unknown (NOT_FOUND), spent and banned inputs, naming them", async () => {
    await start();
    const p = await plan([vtxos[0]!]);
    const unknown = { ...p.request, inputVtxoIds: [encodeOutPoint({ txid: new Uint8Array(randomBytes(32)), vout: 0 })] };
    const nf = await refusal(f.port().prepareOffboard(unknown));
    expect(nf).to.be.instanceOf(ArkServerNotFoundError);
    expect(nf.serverMessage).to.equal("not found: vtxo does not exist");
    await f.ark.server.banVtxo(p.request.inputVtxoIds[0]!, 10);
    const banned = await refusal(f.port().prepareOffboard(p.request));
    expect(banned.serverMessage).to.contain("input vtxo(s) not spendable");
    expect(banned.rejectedVtxoIds).to.deep.equal([vtxoIdString(vtxos[0]!)]);
    await f.ark.server.unbanVtxo(p.request.inputVtxoIds[0]!);
    await kit.send([vtxos[1]!], 50_000n, kit.key().pk);
    const spent = await refusal(f.port().prepareOffboard((await plan([vtxos[1]!])).request));
    expect(spent.serverMessage).to.contain("input vtxo(s) not spendable");
    expect(spent.rejectedVtxoIds).to.deep.equal([vtxoIdString(vtxos[1]!)]);
    expect((await f.ark.server.ctx.store.getVtxo(vtxoIdString(vtxos[0]!)))?.state).to.equal("spendable");
  });

  it("refuses a blocklisted destination, listed in the setting or in the blocklist file", async () => {
    await start();
    const script = p2trDestination(9);
    const address = p2trAddress(script.subarray(2), "regtest");
    const p = await plan([vtxos[0]!], {}, script);
    await f.ark.settings.update({ bitcoinAddressBlocklist: [address] });
    expect((await refusal(f.port().prepareOffboard(p.request))).serverMessage).to.equal(`bad user input: requested output address is blocked: ${address}`);
    const file = join(mkdtempSync(join(tmpdir(), "blocklist-")), "blocked.txt");
    writeFileSync(file, `# blocked\n${address}\n`);
    await f.ark.settings.update({ bitcoinAddressBlocklist: [], bitcoinAddressBlocklistFile: file });
    expect((await refusal(f.port().prepareOffboard(p.request))).serverMessage).to.equal(`bad user input: requested output address is blocked: ${address}`);
    writeFileSync(file, "# nothing blocked\n");
    await prepareAndSign(f.port(), kit, p);
  });

  it("refuses a fee rate above every recent estimate, with the expected rate; the estimate itself passes", async () => {
    await start();
    const rateKwu = (await f.port().offboardFeeRateSatPerKvb() + 3n) / 4n;
    const high = await plan([vtxos[0]!], { feeRateSatPerKwu: rateKwu + 1n });
    const e = await refusal(f.port().prepareOffboard(high.request));
    expect(e.serverMessage).to.equal(`bad user input: fee rate is no longer valid: provided = ${rateKwu + 1n}, expected = ${rateKwu}`);
    expect(e.inputsCheckedSpendable).to.equal(true);
    await expectUntouched();
    await prepareAndSign(f.port(), kit, await plan([vtxos[0]!], { feeRateSatPerKwu: rateKwu }));
  });

  it("refuses amounts the fee does not allow: dust after the fee (INTERNAL), a net above gross − fee, an on-chain amount + fee above the inputs", async () => {
    await start();
    const { sent } = await kit.send([vtxos[1]!], 1_000n, kit.key().pk);
    const small = attested(kit, { netAmountSat: 330n, script: p2trDestination(1), deductFeesFromGrossAmount: true, feeRateSatPerKwu: (await f.port().offboardFeeRateSatPerKvb() + 3n) / 4n }, [sent[0]!]);
    const dust = await rejection(f.port().prepareOffboard(small));
    expect(dust).to.be.instanceOf(ArkServerInternalError);
    expect(dust.message).to.contain("Amount after fee (");
    expect(dust.message).to.contain("is below dust limit (330 sat)");
    const p = await plan([vtxos[0]!]);
    const greedy = attested(kit, { ...p.request.offboard, netAmountSat: p.request.offboard.netAmountSat + 1n }, p.vtxos);
    const e1 = await refusal(f.port().prepareOffboard(greedy));
    expect(e1.serverMessage).to.contain("bad user input: offboard net amount does not match expected amount");
    expect(e1.inputsCheckedSpendable).to.equal(true);
    const send = await plan([vtxos[0]!], { sendSat: 40_000n - p.feeSat + 1n });
    expect((await refusal(f.port().prepareOffboard(send.request))).serverMessage).to.contain("bad user input: offboard gross amount does not match expected amount");
    expect((await f.ark.server.ctx.store.getVtxo(vtxoIdString(vtxos[0]!)))?.state).to.equal("spendable");
  });

  it("refuses an attestation by another key, naming the VTXO", async () => {
    await start();
    const p = await plan([vtxos[0]!]);
    const other = await plan([vtxos[1]!]);
    const forged = { ...p.request, attestations: other.request.attestations };
    expect((await refusal(f.port().prepareOffboard(forged))).serverMessage).to.equal(`bad user input: invalid attestations for vtxo ${vtxoIdString(vtxos[0]!)}`);
    await expectUntouched();
  });

  it("finish: a wrong nonce count is refused and uses up the session's one signing chance: the right finish then finds no session; the inputs stay unspent, held until the session expires", async () => {
    await start({ offboardSessionTimeoutMs: 2_000, offboardCheckIntervalMs: 100 });
    const p = await prepareAndSign(f.port(), kit, await plan(vtxos));
    expect((await refusal(f.port().finishOffboard({ ...p.finish, userNonces: [p.finish.userNonces[0]!] }))).serverMessage).to.equal("bad user input: incorrect number of public nonces");
    const gone = await refusal(f.port().finishOffboard(p.finish));
    expect(gone).to.be.instanceOf(ArkServerNotFoundError);
    expect(gone.serverMessage).to.equal("not found: unknown offboard txid");
    expect((await refusal(f.port().prepareOffboard((await plan(vtxos, {}, p2trDestination(2))).request))).serverMessage).to.contain("some VTXO is already locked by another process");
    for (const v of vtxos) expect((await f.ark.server.ctx.store.getVtxo(vtxoIdString(v)))?.state).to.equal("spendable");
    expect(f.node.getTxStatus(p.txid)).to.equal(undefined);
    const end = Date.now() + 10_000;
    while (f.ark.server.offboards.sessions.get(p.txid) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    await expectUntouched();
  });

  it("finish: a wrong partial-signature count and partial signatures made with other nonces are refused; nothing is spent or broadcast", async () => {
    await start();
    const a = await plan([vtxos[0]!]);
    const first = await prepareAndSign(f.port(), kit, a);
    const second = await prepareAndSign(f.port(), kit, a); // the identical prepare replays the session; the user signs again with fresh nonces
    expect(second.txid).to.equal(first.txid);
    const mixed = { ...first.finish, partialSignatures: second.finish.partialSignatures };
    expect((await refusal(f.port().finishOffboard(mixed))).serverMessage).to.contain("bad user input: invalid partial forfeit signatures");
    const b = await prepareAndSign(f.port(), kit, await plan([vtxos[1]!]));
    expect((await refusal(f.port().finishOffboard({ ...b.finish, partialSignatures: [] }))).serverMessage).to.equal("bad user input: incorrect number of partial signatures");
    for (const v of vtxos) expect((await f.ark.server.ctx.store.getVtxo(vtxoIdString(v)))?.state).to.equal("spendable");
    expect(f.node.getTxStatus(first.txid)).to.equal(undefined);
    expect(await f.ark.server.offboards.store.get(first.txid)).to.equal(undefined);
  });

  it("finish: a node refusing the offboard tx (its wallet coin spent meanwhile) stores nothing and spends no input", async () => {
    await start();
    const p = await prepareAndSign(f.port(), kit, await plan([vtxos[0]!]));
    const session = f.ark.server.offboards.sessions.get(p.txid)!;
    // the server's own wallet spends the session's coin elsewhere, paying more fee
    const coin = session.coins[0]!;
    const { signRoundFunding } = await import("../../src/ark-server/rounds/round-funding.js");
    const { encodeTx, fromHex, reverseBytes } = await import("@tender/ark-protocol");
    const conflict = signRoundFunding(f.ark.server.ctx, {
      tx: { version: 2, locktime: 0, inputs: [{ prevout: { txid: reverseBytes(fromHex(coin.txid)), vout: coin.vout }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }], outputs: [{ value: coin.amount - 50_000n, script: f.ark.server.ctx.keys.walletScript }] },
      coins: [coin],
    });
    f.node.submitTransaction(encodeTx(conflict));
    const e = await rejection(f.port().finishOffboard(p.finish));
    expect(e).to.be.instanceOf(ArkServerInternalError);
    expect(e.message).to.contain("mempool rejected offboard tx");
    expect((await f.ark.server.ctx.store.getVtxo(vtxoIdString(vtxos[0]!)))?.state).to.equal("spendable");
    expect(await f.ark.server.offboards.store.get(p.txid)).to.equal(undefined);
  });
});
