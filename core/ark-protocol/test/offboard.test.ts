/** Offboard connector swaps: connector layout, forfeit txs, client checks, user signing and server completion. */
import { expect } from "chai";
import * as ecc from "tiny-secp256k1";
import { randomBytes } from "node:crypto";
import { formatOutPoint, toHex, type OutPoint } from "../src/encoding.js";
import { toXOnly } from "../src/keys.js";
import { musigNonceGen } from "../src/musig.js";
import {
  CONNECTOR_VALUE, OffboardError, OffboardForfeitSignatureError, checkOffboardRequest, checkSignedOffboardTx, connectorScript,
  destinationDustLimit, finalizeOffboardForfeits, offboardConnectors, offboardForfeits, serverForfeitScript, signOffboardForfeits,
  validateOffboardTx, type OffboardableVtxo,
} from "../src/offboard.js";
import { policyTaproot } from "../src/policy.js";
import { P2A_SCRIPT } from "../src/script.js";
import { verifySchnorr } from "../src/schnorr.js";
import { taprootSighash } from "../src/sighash.js";
import { txid, type Transaction } from "../src/tx.js";

const key = () => {
  const secretKey = new Uint8Array(randomBytes(32));
  return { secretKey, publicKey: ecc.pointFromScalar(secretKey, true)! as Uint8Array };
};
const server = key();
const connector = key();
const destination = Uint8Array.from([0x51, 0x20, ...new Uint8Array(32).fill(7)]);
const point = (b: number, vout = 0): OutPoint => ({ txid: new Uint8Array(32).fill(b), vout });

function vtxo(user: ReturnType<typeof key>, amount: bigint, b: number): OffboardableVtxo {
  return { point: point(b), amount, policy: { type: "pubkey", userPubkey: user.publicKey }, serverPubkey: server.publicKey, exitDelta: 12, expiryHeight: 500 };
}

function offboardTx(net: bigint, inputs: number): Transaction {
  return {
    version: 3, locktime: 0,
    inputs: [{ prevout: point(0xee, 1), scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }],
    outputs: [{ value: net, script: destination }, { value: CONNECTOR_VALUE * BigInt(inputs), script: connectorScript(connector.publicKey) }, { value: 50_000n, script: destination }],
  };
}

function serverNonces(vs: readonly OffboardableVtxo[]) {
  return vs.map(() => musigNonceGen({ pubkey: server.publicKey, secretKey: server.secretKey }));
}

describe("offboard connector swap", () => {
  const alice = key();
  const bob = key();

  it("one input: the connector is the offboard tx's vout 1; two: a v3 fan-out of 330-sat connectors and a zero P2A anchor", () => {
    const tx = offboardTx(10_000n, 1);
    const one = offboardConnectors(tx, 1);
    expect(one.fanout).to.equal(undefined);
    expect(formatOutPoint(one.points[0]!)).to.equal(formatOutPoint({ txid: txid(tx), vout: 1 }));
    const two = offboardConnectors(offboardTx(10_000n, 2), 2);
    const f = two.fanout!;
    expect([f.version, f.locktime, f.inputs.length, f.inputs[0]!.sequence, f.inputs[0]!.prevout.vout]).to.deep.equal([3, 0, 1, 0xffffffff, 1]);
    expect(f.outputs.map((o) => [o.value, toHex(o.script)])).to.deep.equal([
      [330n, toHex(connectorScript(connector.publicKey))], [330n, toHex(connectorScript(connector.publicKey))], [0n, toHex(P2A_SCRIPT)],
    ]);
    expect(two.points.map((p) => p.vout)).to.deep.equal([0, 1]);
    expect(toHex(two.points[1]!.txid)).to.equal(toHex(txid(f)));
  });

  it("forfeit tx: v3, [VTXO, connector] with final sequences, VTXO + 330 to the server's key-path P2TR and a zero P2A anchor", () => {
    const v = vtxo(alice, 40_000n, 1);
    const [f] = offboardForfeits(offboardTx(10_000n, 1), [v]);
    expect([f!.tx.version, f!.tx.locktime, f!.tx.inputs.map((i) => i.sequence)]).to.deep.equal([3, 0, [0xffffffff, 0xffffffff]]);
    expect(f!.tx.outputs.map((o) => [o.value, toHex(o.script)])).to.deep.equal([[40_330n, toHex(serverForfeitScript(server.publicKey))], [0n, toHex(P2A_SCRIPT)]]);
    expect(toHex(f!.prevouts[0].script)).to.equal(toHex(policyTaproot(v.policy, { serverPubkey: server.publicKey, exitDelta: 12, expiryHeight: 500 }).scriptPubKey));
  });

  it("the client refuses an offboard tx whose destination, amount or connector value differs from the request", () => {
    const req = { netAmountSat: 10_000n, script: destination };
    validateOffboardTx(offboardTx(10_000n, 2), req, 2);
    expect(() => validateOffboardTx(offboardTx(9_999n, 2), req, 2)).to.throw(OffboardError, "offboard output amount doesn't match: got=9999, expected=10000");
    expect(() => validateOffboardTx(offboardTx(10_000n, 1), req, 2)).to.throw(OffboardError, "insufficient connector amount: got=330, need=660");
    expect(() => validateOffboardTx(offboardTx(10_000n, 2), { ...req, script: connectorScript(alice.publicKey) }, 2)).to.throw(OffboardError, "scriptPubkey doesn't match");
  });

  it("the client refuses a finish answer with another txid or an input without witness", () => {
    const tx = offboardTx(10_000n, 1);
    const signed = { ...tx, inputs: [{ ...tx.inputs[0]!, witness: [new Uint8Array(64)] }] };
    checkSignedOffboardTx(signed, tx);
    expect(() => checkSignedOffboardTx(tx, tx)).to.throw(OffboardError, "unsigned input");
    expect(() => checkSignedOffboardTx({ ...signed, locktime: 1 }, tx)).to.throw(OffboardError, "different txid");
  });

  for (const n of [1, 3]) {
    it(`${n} input(s): user partial signatures complete into valid forfeits; the connector inputs and fan-out verify under the connector key`, () => {
      const users = Array.from({ length: n }, () => key());
      const vs = users.map((u, i) => vtxo(u, 20_000n + BigInt(i), i + 1));
      const tx = offboardTx(30_000n, n);
      const nonces = serverNonces(vs);
      const sigs = signOffboardForfeits(tx, vs, users.map((u) => u.secretKey), nonces.map((x) => x.pubNonce));
      const done = finalizeOffboardForfeits({
        offboardTx: tx, vtxos: vs, serverSecretKey: server.secretKey, connectorSecretKey: connector.secretKey, serverNonces: nonces,
        userPubNonces: sigs.pubNonces, userPartialSigs: sigs.partialSigs,
      });
      const c = offboardConnectors(tx, n);
      done.forfeits.forEach((f, i) => {
        const prevouts = [{ value: vs[i]!.amount, script: policyTaproot(vs[i]!.policy, { serverPubkey: server.publicKey, exitDelta: 12, expiryHeight: 500 }).scriptPubKey }, c.txOut];
        expect(verifySchnorr(f.inputs[0]!.witness[0]!, taprootSighash(f, 0, prevouts), prevouts[0]!.script.subarray(2))).to.equal(true);
        expect(verifySchnorr(f.inputs[1]!.witness[0]!, taprootSighash(f, 1, prevouts), c.txOut.script.subarray(2))).to.equal(true);
        expect(formatOutPoint(f.inputs[1]!.prevout)).to.equal(formatOutPoint(c.points[i]!));
      });
      if (n === 1) expect(done.fanout).to.equal(undefined);
      else expect(verifySchnorr(done.fanout!.inputs[0]!.witness[0]!, taprootSighash(done.fanout!, 0, [tx.outputs[1]!]), tx.outputs[1]!.script.subarray(2))).to.equal(true);
    });
  }

  it("the server refuses a partial signature made with another nonce than announced, naming the VTXO", () => {
    const vs = [vtxo(alice, 20_000n, 1), vtxo(bob, 21_000n, 2)];
    const tx = offboardTx(30_000n, 2);
    const nonces = serverNonces(vs);
    const first = signOffboardForfeits(tx, vs, [alice.secretKey, bob.secretKey], nonces.map((x) => x.pubNonce));
    const second = signOffboardForfeits(tx, vs, [alice.secretKey, bob.secretKey], nonces.map((x) => x.pubNonce));
    const sigs = { pubNonces: first.pubNonces, partialSigs: [first.partialSigs[0]!, second.partialSigs[1]!] };
    const run = () => finalizeOffboardForfeits({
      offboardTx: tx, vtxos: vs, serverSecretKey: server.secretKey, connectorSecretKey: connector.secretKey, serverNonces: nonces,
      userPubNonces: sigs.pubNonces, userPartialSigs: sigs.partialSigs,
    });
    expect(run).to.throw(OffboardForfeitSignatureError, `vtxo ${formatOutPoint(vs[1]!.point)}`);
  });

  it("destinations: standard scripts with their dust limits; non-standard refused", () => {
    expect(destinationDustLimit(destination)).to.equal(330n);
    expect(destinationDustLimit(Uint8Array.from([0x00, 0x14, ...new Uint8Array(20)]))).to.equal(294n);
    expect(() => destinationDustLimit(P2A_SCRIPT)).to.throw(OffboardError, "non-standard output");
    checkOffboardRequest({ netAmountSat: 330n, script: destination });
    expect(() => checkOffboardRequest({ netAmountSat: 329n, script: destination })).to.throw(OffboardError, "invalid offboard request: non-standard output");
    expect(() => checkOffboardRequest({ netAmountSat: 1000n, script: Uint8Array.of(0x51) })).to.throw(OffboardError);
    expect(toHex(connectorScript(toXOnly(connector.publicKey)))).to.equal(toHex(connectorScript(connector.publicKey)));
  });
});
