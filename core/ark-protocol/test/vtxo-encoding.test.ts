import { expect } from "chai";
import { arkVectors } from "./ark-vectors.js";
import { expectTaproot, policyFromVector } from "./vector-helpers.js";
import { fromHex, parseOutPoint, formatOutPoint, toHex, utf8 } from "../src/encoding.js";
import { VtxoValidationError } from "../src/errors.js";
import { sha256 } from "../src/hashes.js";
import { pubkeyFromSecret, toXOnly } from "../src/keys.js";
import { encodePolicy, policyScriptPubKey, policyTaproot, type ServerVtxoPolicy } from "../src/policy.js";
import { decodeTx, encodeTx, txidHex, type Transaction } from "../src/tx.js";
import { transitionSpentOutput, type CosignedTransition, type GenesisItem } from "../src/vtxo-genesis.js";
import { ByteWriter } from "../src/encoding.js";
import { writeTransition } from "../src/vtxo-genesis.js";
import {
  decodeBareVtxo,
  decodeServerVtxo,
  decodeVtxo,
  encodeBareVtxo,
  encodeVtxo,
  exitDepth,
  peekVtxoVersion,
  vtxoId,
  vtxoIdString,
  vtxoPolicyContext,
  type Vtxo,
} from "../src/vtxo.js";
import { ancestorIdStrings, chainAmount, exitChain } from "../src/vtxo-exit.js";
import { checkStandard, validateVtxo } from "../src/vtxo-validate.js";

const GROUPS = ["encoding_version_2", "encoding_version_1"] as const;

function checkAnchorTx(v: any): Transaction {
  const tx = decodeTx(fromHex(v.hex));
  expect(txidHex(tx)).to.equal(v.txid);
  expect(toHex(encodeTx(tx))).to.equal(v.hex);
  return tx;
}

function checkTransition(item: GenesisItem, vt: any, ctx: ReturnType<typeof vtxoPolicyContext>): void {
  const t = item.transition;
  expect(t.kind).to.equal(vt.kind);
  expect(toHex(writeTransition(new ByteWriter(), t).finish())).to.equal(vt.encoded_hex);
  expect(t.signature ? toHex(t.signature) : null).to.equal(vt.signature);
  const spent = transitionSpentOutput(t, ctx);
  const it = vt.input_taproot;
  if (t.kind === "cosigned") {
    expect(t.pubkeys.map(toHex)).to.deep.equal(vt.pubkeys);
    expectTaproot(spent.taproot!, it);
  } else if (t.kind === "arkoor") {
    expect(t.clientCosigners.map(toHex)).to.deep.equal(vt.client_cosigners);
    expect(toHex(t.tapTweak)).to.equal(vt.tap_tweak);
    expect(toHex(spent.aggregateKey)).to.equal(it.aggregate_key_xonly_of_cosigners_plus_server);
    expect(toHex(spent.tapTweak)).to.equal(it.tap_tweak);
    expect(toHex(spent.signingKey)).to.equal(it.output_key_xonly);
    expect(toHex(spent.scriptPubKey)).to.equal(it.script_pubkey);
  } else {
    expect(toHex(t.userPubkey)).to.equal(vt.user_pubkey);
    expect(t.unlock.type).to.equal("preimage");
    if (t.unlock.type === "preimage") expect(toHex(t.unlock.preimage)).to.equal(vt.unlock_preimage);
    expect(toHex(sha256(fromHex(vt.unlock_preimage)))).to.equal(vt.unlock_hash);
    expectTaproot(spent.taproot!, it);
  }
}

for (const group of GROUPS) {
  describe(`VTXO encoding (vector group \`vtxo_encoding.${group}\`: encoding, exit chain, validation)`, () => {
    const g = arkVectors.vtxo_encoding[group];
    const anchorTx = checkAnchorTx(g.anchor_tx);
    const roundTx = checkAnchorTx(g.round_tx);
    const anchors = new Map<string, Transaction>([
      [g.anchor_tx.txid, anchorTx],
      [g.round_tx.txid, roundTx],
    ]);
    const serverPubkey = toHex(pubkeyFromSecret(fromHex(g.server_key)));

    for (const [idx, vv] of (g.vtxos as any[]).entries()) {
      describe(`vtxo ${idx} (${vv.name})`, () => {
        const vtxo: Vtxo = decodeVtxo(fromHex(vv.hex));
        const ctx = vtxoPolicyContext(vtxo);

        it("decodes every field and reports its id", () => {
          expect(peekVtxoVersion(fromHex(vv.hex))).to.equal(vv.encoding_version);
          expect(vtxoIdString(vtxo)).to.equal(vv.vtxo_id);
          expect(toHex(vtxoId(vtxo))).to.equal(vv.vtxo_id_bytes_hex);
          expect(vtxo.amount).to.equal(BigInt(vv.amount));
          expect(vtxo.expiryHeight).to.equal(vv.expiry_height);
          expect(toHex(vtxo.serverPubkey)).to.equal(vv.server_pubkey);
          expect(toHex(vtxo.serverPubkey)).to.equal(serverPubkey);
          expect(vtxo.exitDelta).to.equal(vv.exit_delta);
          expect(formatOutPoint(vtxo.anchorPoint)).to.equal(vv.chain_anchor);
          expect(exitDepth(vtxo)).to.equal(vv.exit_depth);
        });

        it("re-encodes byte for byte (version 1 input: as version 2, and as version 1 on request)", () => {
          if (vv.encoding_version === 2) {
            expect(toHex(encodeVtxo(vtxo))).to.equal(vv.hex);
          } else {
            expect(toHex(encodeVtxo(vtxo))).to.equal(vv.reencoded_as_version_2_hex);
            expect(toHex(encodeVtxo(vtxo, 1))).to.equal(vv.hex);
            expect(vtxoIdString(decodeVtxo(fromHex(vv.reencoded_as_version_2_hex)))).to.equal(vv.vtxo_id);
          }
          expect(toHex(encodeVtxo(decodeServerVtxo(fromHex(vv.hex))))).to.equal(toHex(encodeVtxo(vtxo)));
        });

        it("bare form: encodes without genesis and decodes from both the bare and the full bytes", () => {
          expect(toHex(encodeBareVtxo(vtxo))).to.equal(vv.bare_hex);
          const fromBare = decodeBareVtxo(fromHex(vv.bare_hex));
          const fromFull = decodeBareVtxo(fromHex(vv.hex));
          expect(fromBare).to.deep.equal(fromFull);
          expect(formatOutPoint(fromBare.point)).to.equal(vv.vtxo_id);
        });

        it("policy and its taproot output", () => {
          const expected = policyFromVector(vv.policy);
          expect(vtxo.policy).to.deep.equal(expected);
          expect(toHex(encodePolicy(vtxo.policy))).to.equal(vv.policy.encoded_hex);
          expectTaproot(policyTaproot(vtxo.policy, ctx), vv.output_taproot);
          expect(toHex(policyScriptPubKey(vtxo.policy, ctx))).to.equal(vv.output_script_pubkey);
        });

        it("genesis items: transitions, spent-output taproots, outputs and fees", () => {
          expect(vtxo.genesis.length).to.equal(vv.genesis.length);
          vv.genesis.forEach((gi: any, i: number) => {
            const item = vtxo.genesis[i]!;
            checkTransition(item, gi.transition, ctx);
            expect(item.outputIdx).to.equal(gi.output_idx);
            expect(item.otherOutputs.length + 1).to.equal(gi.nb_outputs_byte);
            expect(item.otherOutputs.map((o) => ({ value: Number(o.value), script_pubkey: toHex(o.script) }))).to.deep.equal(
              gi.other_outputs.map((o: any) => ({ value: o.value, script_pubkey: o.script_pubkey })),
            );
            expect(item.feeAmount).to.equal(BigInt(gi.fee_amount));
          });
        });

        it("rebuilds the exit chain: signed and unsigned txs, txids, spent outputs, sighashes; every signature verifies", () => {
          const chain = exitChain(vtxo);
          expect(chain.length).to.equal(vv.exit_transactions.length);
          vv.exit_transactions.forEach((et: any, i: number) => {
            const e = chain[i]!;
            expect(i).to.equal(et.index);
            expect(txidHex(e.tx)).to.equal(et.txid);
            expect(toHex(encodeTx(e.tx))).to.equal(et.hex);
            expect(toHex(encodeTx(e.tx, false))).to.equal(et.unsigned_hex);
            expect(e.outputIdx).to.equal(et.vtxo_output_index);
            expect(formatOutPoint(e.prevout)).to.equal(et.spent_output.outpoint);
            expect(e.spentOutput.value).to.equal(BigInt(et.spent_output.value));
            expect(toHex(e.spentOutput.script)).to.equal(et.spent_output.script_pubkey);
            expect(e.spent.unlockLeaf ? "script" : "key").to.equal(et.spend_path.split(" ")[0]);
            expect(toHex(e.sighash)).to.equal(et.sighash_default);
            expect(toHex(e.spent.signingKey)).to.equal(et.signature_verifies_under_xonly);
          });
          expect(formatOutPoint({ txid: chain.at(-1)!.txid, vout: chain.at(-1)!.outputIdx })).to.equal(vv.vtxo_id);
          expect(ancestorIdStrings(vtxo)).to.deep.equal(vv.exit_transactions.slice(1).map((et: any) => et.spent_output.outpoint));
        });

        it("validates against its chain anchor; a flipped signature byte or a wrong point fails", () => {
          const anchor = anchors.get(formatOutPoint(vtxo.anchorPoint).split(":")[0]!)!;
          expect(chainAmount(vtxo)).to.equal(anchor.outputs[vtxo.anchorPoint.vout]!.value);
          expect(() => validateVtxo(vtxo, anchor)).to.not.throw();
          expect(checkStandard(vtxo)).to.equal(null);
          const last = vtxo.genesis.length - 1;
          const item = vtxo.genesis[last]!;
          const sig = Uint8Array.from(item.transition.signature!);
          sig[5]! ^= 1;
          const badSig = { ...vtxo, genesis: [...vtxo.genesis.slice(0, last), { ...item, transition: { ...item.transition, signature: sig } }] };
          expect(() => validateVtxo(badSig, anchor)).to.throw(VtxoValidationError, /invalid .* signature/);
          const badPoint = { ...vtxo, point: { ...vtxo.point, vout: vtxo.point.vout + 1 } };
          expect(() => validateVtxo(badPoint, anchor)).to.throw(VtxoValidationError, /id mismatch/);
          const noSig = { ...vtxo, genesis: [...vtxo.genesis.slice(0, last), { ...item, transition: { ...item.transition, signature: null } }] };
          expect(() => validateVtxo(noSig, anchor)).to.throw(VtxoValidationError, /missing signature/);
          const otherAnchor = anchor === anchorTx ? roundTx : anchorTx;
          expect(() => validateVtxo(vtxo, otherAnchor)).to.throw(VtxoValidationError);
        });
      });
    }

    it("version 1 and version 2 scenarios have the same shape (name → amount, depth, policy kind family)", () => {
      const other = arkVectors.vtxo_encoding[group === "encoding_version_2" ? "encoding_version_1" : "encoding_version_2"];
      for (const vv of g.vtxos) {
        const twin = other.vtxos.find((o: any) => o.name === vv.name);
        expect(twin, vv.name).to.not.equal(undefined);
        expect(twin.amount).to.equal(vv.amount);
        expect(twin.exit_depth).to.equal(vv.exit_depth);
        expect(String(twin.policy.type).replace(/-v1$/, "")).to.equal(String(vv.policy.type).replace(/-v1$/, ""));
      }
    });

    it("arkoor3_user_key owns the arkoor3 VTXO", () => {
      const v = g.vtxos.find((x: any) => x.name === "arkoor3_vtxo");
      expect(toHex(pubkeyFromSecret(fromHex(g.arkoor3_user_key)))).to.equal(v.policy.user_pubkey);
    });

    it("round tree: siblings are hArk leaf outputs of the other users; cosign keys are all listed", () => {
      const keys = arkVectors.keys;
      const round1 = decodeVtxo(fromHex(g.vtxos.find((x: any) => x.name === "round1_vtxo").hex));
      const ctx = vtxoPolicyContext(round1);
      const leafType = group === "encoding_version_2" ? "hark-leaf-v1" : "hark-leaf";
      const expectedSiblings = new Set<string>(
        keys.vtxo_vector_round_other_users.map((u: any) =>
          toHex(policyScriptPubKey({ type: leafType, userPubkey: fromHex(u.public_key), unlockHash: fromHex(u.unlock_hash) } as ServerVtxoPolicy, ctx)),
        ),
      );
      const siblings = round1.genesis.flatMap((it) => it.otherOutputs.filter((o) => o.value === 5000n).map((o) => toHex(o.script)));
      expect(new Set(siblings)).to.deep.equal(expectedSiblings);
      const rootCosigners = new Set((round1.genesis[0]!.transition as CosignedTransition).pubkeys.map(toHex));
      const gen = keys.vtxo_vector_generation;
      const cosignKeys = [
        ...keys.vtxo_vector_round_other_users.map((u: any) => u.cosign_secret_key),
        gen.round1_cosign_key.secret_key,
        gen.round2_cosign_key.secret_key,
        gen.server_cosign_key.secret_key,
      ].map((sk: string) => toHex(pubkeyFromSecret(fromHex(sk))));
      expect(new Set(cosignKeys)).to.deep.equal(rootCosigners);
    });
  });
}

describe("VTXO generation parameters (`vtxo_encoding.generation_parameters`)", () => {
  const p = arkVectors.vtxo_encoding.generation_parameters;
  const byName = (name: string) => decodeVtxo(fromHex(arkVectors.vtxo_encoding.encoding_version_2.vtxos.find((x: any) => x.name === name).hex));

  it("board: expiry, exit delta, funding amount and fee", () => {
    const board = byName("board_vtxo");
    expect(board.expiryHeight).to.equal(p.expiry_height);
    expect(board.exitDelta).to.equal(p.exit_delta);
    expect(chainAmount(board)).to.equal(BigInt(p.board_amount));
    expect(board.genesis[0]!.feeAmount).to.equal(BigInt(p.board_fee));
    expect(board.amount).to.equal(BigInt(p.board_amount - p.board_fee));
  });

  it("HTLC policies commit to sha256 of the listed payment preimages and expiries", () => {
    const a = byName("arkoor_htlc_out_vtxo").policy;
    const r = byName("round2_vtxo").policy;
    if (a.type !== "server-htlc-send-v1" || r.type !== "server-htlc-receive-v1") throw new Error(`unexpected policies ${a.type} ${r.type}`);
    expect(toHex(a.paymentHash)).to.equal(toHex(sha256(utf8(p.arkoor1_payment_hash_preimage_ascii))));
    expect(a.htlcExpiry).to.equal(p.arkoor1_htlc_expiry);
    expect(toHex(r.paymentHash)).to.equal(toHex(sha256(utf8(p.round2_payment_hash_preimage_ascii))));
    expect(r.htlcExpiry).to.equal(p.round2_htlc_expiry);
    expect(r.htlcExpiryDelta).to.equal(p.round2_htlc_expiry_delta);
  });

  it("round leaves are unlocked with the listed preimages", () => {
    for (const [name, pre] of [["round1_vtxo", p.round_unlock_preimages.round1], ["round2_vtxo", p.round_unlock_preimages.round2]] as const) {
      const t = byName(name).genesis.at(-1)!.transition;
      if (t.kind !== "hash-locked-cosigned-v1" || t.unlock.type !== "preimage") throw new Error("expected a hash-locked v1 transition with preimage");
      expect(toHex(t.unlock.preimage)).to.equal(pre);
    }
  });

  it("round tree description: the root output holds the listed leaf amounts", () => {
    const desc: string = p.round_tree;
    const m = /\[round1 \(([\d_]+)\), round2 \(([\d_]+)\), (\d+) x other \(([\d_]+)\)\]/.exec(desc);
    expect(m, desc).to.not.equal(null);
    const n = (s: string) => BigInt(s.replace(/_/g, ""));
    const total = n(m![1]!) + n(m![2]!) + BigInt(m![3]!) * n(m![4]!);
    expect(chainAmount(byName("round1_vtxo"))).to.equal(total);
    expect(BigInt(m![3]!)).to.equal(BigInt(arkVectors.keys.vtxo_vector_round_other_users.length));
    expect(desc).to.match(/radix 4/);
    expect(toXOnly(byName("round1_vtxo").serverPubkey).length).to.equal(32);
  });

  it("outpoint strings parse back to the same outpoint", () => {
    const id = arkVectors.vtxo_encoding.encoding_version_2.vtxos[0].vtxo_id;
    expect(formatOutPoint(parseOutPoint(id))).to.equal(id);
  });
});
