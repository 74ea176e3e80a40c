import { expect } from "chai";
import { arkVectors, compareVector, expectVector } from "./ark-vectors.js";
import { expectPolicyFields, expectTaproot, policyFromVector } from "./vector-helpers.js";
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
  expectVector(txidHex(tx), v, "txid");
  expectVector(toHex(encodeTx(tx)), v, "hex");
  return tx;
}

function checkTransition(item: GenesisItem, vt: any, ctx: ReturnType<typeof vtxoPolicyContext>): void {
  const t = item.transition;
  expectVector(t.kind, vt, "kind");
  expectVector(toHex(writeTransition(new ByteWriter(), t).finish()), vt, "encoded_hex");
  expectVector(t.signature ? toHex(t.signature) : null, vt, "signature");
  const spent = transitionSpentOutput(t, ctx);
  const it = vt.input_taproot;
  if (t.kind === "cosigned") {
    expectVector(t.pubkeys.map(toHex), vt, "pubkeys");
    expectTaproot(spent.taproot!, it);
  } else if (t.kind === "arkoor") {
    expectVector(t.clientCosigners.map(toHex), vt, "client_cosigners");
    expectVector(toHex(t.tapTweak), vt, "tap_tweak");
    expectVector(toHex(spent.aggregateKey), it, "aggregate_key_xonly_of_cosigners_plus_server");
    expectVector(toHex(spent.tapTweak), it, "tap_tweak");
    expectVector(toHex(spent.signingKey), it, "output_key_xonly");
    expectVector(toHex(spent.scriptPubKey), it, "script_pubkey");
  } else {
    expectVector(toHex(t.userPubkey), vt, "user_pubkey");
    expect(t.unlock.type).to.equal("preimage");
    if (t.unlock.type === "preimage") {
      expectVector(toHex(t.unlock.preimage), vt, "unlock_preimage");
      expectVector(toHex(sha256(t.unlock.preimage)), vt, "unlock_hash");
    }
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

    it("anchor and round txs decode to their txids and re-encode byte for byte", () => {
      checkAnchorTx(g.anchor_tx);
      checkAnchorTx(g.round_tx);
    });

    for (const [idx, vv] of (g.vtxos as any[]).entries()) {
      describe(`vtxo ${idx} (${vv.name})`, () => {
        const vtxo: Vtxo = decodeVtxo(fromHex(vv.hex));
        const ctx = vtxoPolicyContext(vtxo);

        it("decodes every field and reports its id", () => {
          expectVector(peekVtxoVersion(fromHex(vv.hex)), vv, "encoding_version");
          expectVector(vtxoIdString(vtxo), vv, "vtxo_id");
          expectVector(toHex(vtxoId(vtxo)), vv, "vtxo_id_bytes_hex");
          expectVector(vtxo.amount, vv, "amount");
          expectVector(vtxo.expiryHeight, vv, "expiry_height");
          expectVector(toHex(vtxo.serverPubkey), vv, "server_pubkey");
          expect(toHex(vtxo.serverPubkey)).to.equal(serverPubkey);
          expectVector(vtxo.exitDelta, vv, "exit_delta");
          expectVector(formatOutPoint(vtxo.anchorPoint), vv, "chain_anchor");
          expectVector(exitDepth(vtxo), vv, "exit_depth");
        });

        it("re-encodes byte for byte (version 1 input: as version 2, and as version 1 on request)", () => {
          if (vv.encoding_version === 2) {
            expectVector(toHex(encodeVtxo(vtxo)), vv, "hex");
          } else {
            expectVector(toHex(encodeVtxo(vtxo)), vv, "reencoded_as_version_2_hex");
            expectVector(toHex(encodeVtxo(vtxo, 1)), vv, "hex");
            expectVector(vtxoIdString(decodeVtxo(fromHex(vv.reencoded_as_version_2_hex))), vv, "vtxo_id");
          }
          expect(toHex(encodeVtxo(decodeServerVtxo(fromHex(vv.hex))))).to.equal(toHex(encodeVtxo(vtxo)));
        });

        it("bare form: encodes without genesis and decodes from both the bare and the full bytes", () => {
          expectVector(toHex(encodeBareVtxo(vtxo)), vv, "bare_hex");
          const fromBare = decodeBareVtxo(fromHex(vv.bare_hex));
          const fromFull = decodeBareVtxo(fromHex(vv.hex));
          expect(fromBare).to.deep.equal(fromFull);
          expectVector(formatOutPoint(fromBare.point), vv, "vtxo_id");
        });

        it("policy and its taproot output", () => {
          const expected = policyFromVector(vv.policy);
          expect(vtxo.policy).to.deep.equal(expected);
          expectPolicyFields(vtxo.policy, vv.policy);
          expectVector(toHex(encodePolicy(vtxo.policy)), vv.policy, "encoded_hex");
          expectTaproot(policyTaproot(vtxo.policy, ctx), vv.output_taproot);
          expectVector(toHex(policyScriptPubKey(vtxo.policy, ctx)), vv, "output_script_pubkey");
        });

        it("genesis items: transitions, spent-output taproots, outputs and fees", () => {
          expect(vtxo.genesis.length).to.equal(vv.genesis.length);
          vv.genesis.forEach((gi: any, i: number) => {
            const item = vtxo.genesis[i]!;
            checkTransition(item, gi.transition, ctx);
            expectVector(item.outputIdx, gi, "output_idx");
            expectVector(item.otherOutputs.length + 1, gi, "nb_outputs_byte");
            expect(item.otherOutputs.length).to.equal(gi.other_outputs.length);
            item.otherOutputs.forEach((o, j) => {
              expectVector(o.value, gi.other_outputs[j], "value");
              expectVector(toHex(o.script), gi.other_outputs[j], "script_pubkey");
            });
            expectVector(item.feeAmount, gi, "fee_amount");
          });
        });

        it("rebuilds the exit chain: signed and unsigned txs, txids, spent outputs, sighashes; every signature verifies", () => {
          const chain = exitChain(vtxo);
          expect(chain.length).to.equal(vv.exit_transactions.length);
          vv.exit_transactions.forEach((et: any, i: number) => {
            const e = chain[i]!;
            expectVector(i, et, "index");
            expectVector(txidHex(e.tx), et, "txid");
            expectVector(toHex(encodeTx(e.tx)), et, "hex");
            expectVector(toHex(encodeTx(e.tx, false)), et, "unsigned_hex");
            expectVector(e.outputIdx, et, "vtxo_output_index");
            expectVector(formatOutPoint(e.prevout), et.spent_output, "outpoint");
            expectVector(e.spentOutput.value, et.spent_output, "value");
            expectVector(toHex(e.spentOutput.script), et.spent_output, "script_pubkey");
            // The spend path reads "key …" or "script …": its first word names the path taken.
            compareVector(et, "spend_path", (path: string) => expect(e.spent.unlockLeaf ? "script" : "key").to.equal(path.split(" ")[0]));
            expectVector(toHex(e.sighash), et, "sighash_default");
            expectVector(toHex(e.spent.signingKey), et, "signature_verifies_under_xonly");
          });
          expectVector(formatOutPoint({ txid: chain.at(-1)!.txid, vout: chain.at(-1)!.outputIdx }), vv, "vtxo_id");
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
      expectVector(toHex(pubkeyFromSecret(fromHex(g.arkoor3_user_key))), v.policy, "user_pubkey");
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
    expectVector(board.expiryHeight, p, "expiry_height");
    expectVector(board.exitDelta, p, "exit_delta");
    expectVector(chainAmount(board), p, "board_amount");
    expectVector(board.genesis[0]!.feeAmount, p, "board_fee");
    expect(board.amount).to.equal(BigInt(p.board_amount - p.board_fee));
  });

  it("HTLC policies commit to sha256 of the listed payment preimages and expiries", () => {
    const a = byName("arkoor_htlc_out_vtxo").policy;
    const r = byName("round2_vtxo").policy;
    if (a.type !== "server-htlc-send-v1" || r.type !== "server-htlc-receive-v1") throw new Error(`unexpected policies ${a.type} ${r.type}`);
    compareVector(p, "arkoor1_payment_hash_preimage_ascii", (pre: string) => expect(toHex(a.paymentHash)).to.equal(toHex(sha256(utf8(pre)))));
    expectVector(a.htlcExpiry, p, "arkoor1_htlc_expiry");
    compareVector(p, "round2_payment_hash_preimage_ascii", (pre: string) => expect(toHex(r.paymentHash)).to.equal(toHex(sha256(utf8(pre)))));
    expectVector(r.htlcExpiry, p, "round2_htlc_expiry");
    expectVector(r.htlcExpiryDelta, p, "round2_htlc_expiry_delta");
  });

  it("round leaves are unlocked with the listed preimages", () => {
    for (const [name, key] of [["round1_vtxo", "round1"], ["round2_vtxo", "round2"]] as const) {
      const t = byName(name).genesis.at(-1)!.transition;
      if (t.kind !== "hash-locked-cosigned-v1" || t.unlock.type !== "preimage") throw new Error("expected a hash-locked v1 transition with preimage");
      expectVector(toHex(t.unlock.preimage), p.round_unlock_preimages, key);
    }
  });

  it("round tree description: the root output holds the listed leaf amounts", () => {
    compareVector(p, "round_tree", (desc: string) => {
      const m = /\[round1 \(([\d_]+)\), round2 \(([\d_]+)\), (\d+) x other \(([\d_]+)\)\]/.exec(desc);
      expect(m, desc).to.not.equal(null);
      const n = (s: string) => BigInt(s.replace(/_/g, ""));
      const total = n(m![1]!) + n(m![2]!) + BigInt(m![3]!) * n(m![4]!);
      expect(chainAmount(byName("round1_vtxo"))).to.equal(total);
      expect(n(m![1]!)).to.equal(byName("round1_vtxo").amount);
      expect(n(m![2]!)).to.equal(byName("round2_vtxo").amount);
      expect(BigInt(m![3]!)).to.equal(BigInt(arkVectors.keys.vtxo_vector_round_other_users.length));
      expect(desc).to.match(/radix 4/);
    });
    expect(toXOnly(byName("round1_vtxo").serverPubkey).length).to.equal(32);
  });

  it("outpoint strings parse back to the same outpoint", () => {
    const v = arkVectors.vtxo_encoding.encoding_version_2.vtxos[0];
    expectVector(formatOutPoint(parseOutPoint(v.vtxo_id)), v, "vtxo_id");
  });
});
