/**
 * The round client on reference vectors: its attestations sign the reference round-attempt and
 * delegated digests, its refresh fee is the reference fee, and the reference round's VTXOs come
 * out of a `finished` event, a delegated status (both hash-lock script versions) and the unlock
 * byte for byte.
 */
import { expect } from "chai";
import { randomBytes } from "@noble/hashes/utils.js";
import { arkVectors, compareVector, expectVector } from "./ark-vectors.js";
import { displayHex, fromHex, parseOutPoint, toHex } from "../src/encoding.js";
import { pubkeyFromSecret, toXOnly } from "../src/keys.js";
import { decodeUserPolicy, type VtxoPolicy } from "../src/policy.js";
import { verifySchnorr } from "../src/schnorr.js";
import { encodeVtxoTreeSpec, type VtxoLeafSpec, type VtxoTreeSpec } from "../src/tree.js";
import { decodeVtxo, encodeVtxo, type Vtxo } from "../src/vtxo.js";
import { unlockHash as unlockHashOf, type GenesisItem } from "../src/vtxo-genesis.js";
import { refreshOutputAmount, type RoundServerParams } from "../src/round-client.js";
import { prepareRoundSubmission, roundOutputVtxos } from "../src/round-interactive.js";
import { checkDelegatedOutputs, prepareDelegatedParticipation } from "../src/round-delegated.js";
import { finalizeRoundVtxo } from "../src/round-swap.js";

const G = arkVectors.keys.vtxo_vector_generation;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const named = (enc: string, name: string): any => (arkVectors.vtxo_encoding[enc].vtxos as { name: string }[]).find((v) => v.name === name);

describe("round client on reference vectors", () => {
  describe("attestations (vector group `attestations`)", () => {
    const a = arkVectors.attestations;
    const sk = fromHex(arkVectors.keys.dummy_user_key.secret_key);
    const pk = pubkeyFromSecret(sk);
    const policy: VtxoPolicy = { type: "pubkey", userPubkey: pk };
    const input = {
      vtxo: { amount: 100_000n, expiryHeight: 1_000, serverPubkey: pk, exitDelta: 144, anchorPoint: parseOutPoint(a.vtxo_id), policy, point: parseOutPoint(a.vtxo_id), genesis: [] } as Vtxo<VtxoPolicy>,
      secretKey: sk,
    };
    const outputs = [{ amount: 100_000n, policy }];
    const caseOf = (name: string) => (a.cases as { name: string }[]).find((c) => c.name === name)!;

    it("a submission whose cosign key is the dummy user key attests the reference round-attempt digest", () => {
      let first = true;
      const rand = (n: number) => (first && n === 32 ? ((first = false), sk) : randomBytes(n));
      const { request } = prepareRoundSubmission({ challenge: new Uint8Array(32).fill(0x42), inputs: [input], outputs, nbRoundNonces: 2, rand });
      expect(request.outputs[0]!.cosignPubkey).to.deep.equal(pk);
      compareVector(caseOf("round_attempt"), "message_digest", (digest: string) => expect(verifySchnorr(request.inputs[0]!.attestation, fromHex(digest), toXOnly(pk))).to.equal(true));
    });

    it("a delegated participation attests the reference delegated digest", () => {
      const req = prepareDelegatedParticipation({ inputs: [input], outputs });
      expect(req.outputs).to.deep.equal([{ amount: 100_000n, policy: Uint8Array.of(0, ...pk) }]);
      compareVector(caseOf("delegated_round_participation"), "message_digest", (digest: string) => expect(verifySchnorr(req.inputs[0]!.attestation, fromHex(digest), toXOnly(pk))).to.equal(true));
    });
  });

  it("refresh fee and output amount on the `fees.refresh` cases", () => {
    const tip = 800_000;
    for (const c of arkVectors.fees.refresh as { base_fee: number; table: [number, number][]; vtxos: [number, number][] }[]) {
      const inputs = c.vtxos.map(([amount, blocks]) => ({ amount: BigInt(amount), expiryHeight: tip + blocks, point: { txid: randomBytes(32), vout: 0 } }) as unknown as Vtxo);
      const fees = { baseFeeSat: BigInt(c.base_fee), ppmExpiryTable: c.table.map(([t, ppm]) => ({ expiryBlocksThreshold: t, ppm: BigInt(ppm) })) };
      const { fee, amount } = refreshOutputAmount(inputs, fees, tip);
      expectVector(fee, c, "expected_fee");
      expect(amount).to.equal(inputs.reduce((s, v) => s + v.amount, 0n) - fee);
    }
  });

  describe("the reference round (`vtxo_encoding`)", () => {
    const V2 = arkVectors.vtxo_encoding.encoding_version_2;
    const serverPubkey = fromHex(G.server_key.public_key);
    const r1 = named("encoding_version_2", "round1_vtxo");
    const server: RoundServerParams = {
      serverPubkey,
      vtxoExitDelta: r1.exit_delta,
      vtxoLifetime: 4320,
      nbRoundNonces: 2,
      refreshFees: { baseFeeSat: 0n, ppmExpiryTable: [] },
    };
    const leafOf = (v: { amount: number; policy: { encoded_hex: string }; genesis: { transition: { unlock_hash: string } }[] }, cosignSk: string): VtxoLeafSpec => ({
      policy: decodeUserPolicy(fromHex(v.policy.encoded_hex)),
      amount: BigInt(v.amount),
      cosignPubkey: pubkeyFromSecret(fromHex(cosignSk)),
      unlockHash: fromHex(v.genesis.at(-1)!.transition.unlock_hash),
    });
    const names = [
      ["round1_vtxo", G.round1_cosign_key.secret_key],
      ["round2_vtxo", G.round2_cosign_key.secret_key],
    ] as const;
    const others = (arkVectors.keys.vtxo_vector_round_other_users as { public_key: string; cosign_secret_key: string; unlock_hash: string }[]).map((o) => ({
      policy: { type: "pubkey" as const, userPubkey: fromHex(o.public_key) },
      amount: 5000n,
      cosignPubkey: pubkeyFromSecret(fromHex(o.cosign_secret_key)),
      unlockHash: fromHex(o.unlock_hash),
    }));
    const spec: VtxoTreeSpec = {
      expiryHeight: r1.expiry_height,
      serverPubkey,
      exitDelta: r1.exit_delta,
      globalCosignPubkeys: [pubkeyFromSecret(fromHex(G.server_cosign_key.secret_key))],
      leaves: [...names.map(([n, k]) => leafOf(named("encoding_version_2", n), k)), ...others],
    };
    const roundTx = fromHex(V2.round_tx.hex);
    const ref = (enc: string, name: string) => decodeVtxo(fromHex(named(enc, name).hex));
    const withoutUnlock = (v: Vtxo): Vtxo => {
      const last = v.genesis.at(-1)!;
      const t = last.transition;
      if (t.kind !== "hash-locked-cosigned" && t.kind !== "hash-locked-cosigned-v1") throw new Error("not a round leaf");
      const hashOnly: GenesisItem = { ...last, transition: { ...t, signature: null, unlock: { type: "hash", hash: unlockHashOf(t.unlock) } } };
      return { ...v, genesis: [...v.genesis.slice(0, -1), hashOnly] };
    };
    const leafParts = (v: Vtxo) => {
      const t = v.genesis.at(-1)!.transition;
      if ((t.kind !== "hash-locked-cosigned" && t.kind !== "hash-locked-cosigned-v1") || t.unlock.type !== "preimage") throw new Error("reference leaf is unlocked");
      return { leafSignature: t.signature!, preimage: t.unlock.preimage };
    };

    it("a finished event with the reference node signatures gives the reference round VTXOs, byte for byte once unlocked", () => {
      for (const [name] of names) {
        const full = ref("encoding_version_2", name);
        const proposal = { kind: "vtxo-proposal" as const, roundSeq: 1n, attemptSeq: 0n, vtxosSpec: encodeVtxoTreeSpec(spec), unsignedRoundTx: roundTx, aggNonces: [] };
        // the reference VTXO's cosigned items run root → leaf's parent; the event lists leaves → root
        const cosignSignatures = full.genesis.slice(0, -1).map((g) => g.transition.signature!).reverse();
        const finished = { kind: "finished" as const, roundSeq: 1n, attemptSeq: 0n, signedRoundTx: roundTx, cosignSignatures };
        const outputs = [{ amount: full.amount, policy: full.policy }];
        const unlockHash = fromHex(named("encoding_version_2", name).genesis.at(-1).transition.unlock_hash);
        const { vtxos, fundingTx } = roundOutputVtxos({ proposal, finished, outputs, unlockHash });
        const done = finalizeRoundVtxo({ vtxo: vtxos[0]!, ...leafParts(full), unlockHash, fundingTx });
        expectVector(toHex(encodeVtxo(done)), named("encoding_version_2", name), "hex");
      }
    });

    for (const enc of ["encoding_version_2", "encoding_version_1"]) {
      it(`a delegated status with the reference round1 VTXO before its unlock is accepted (${enc === "encoding_version_1" ? "v0" : "v1"} hash-lock scripts) and unlocks to it`, () => {
        const full = ref(enc, "round1_vtxo");
        const unlockHash = fromHex(named(enc, "round1_vtxo").genesis.at(-1).transition.unlock_hash);
        const fundingTx = fromHex(arkVectors.vtxo_encoding[enc].round_tx.hex);
        const status = { roundFundingTx: fundingTx, outputVtxos: [encodeVtxo(withoutUnlock(full))] };
        const args = { status, outputs: [{ amount: full.amount, policy: full.policy }], server, inputs: [], scheduledHeight: full.expiryHeight - 1, unlockHash };
        const { vtxos, fundingTxid } = checkDelegatedOutputs(args);
        expect(fundingTxid).to.equal(displayHex(full.anchorPoint.txid));
        const done = finalizeRoundVtxo({ vtxo: vtxos[0]!, ...leafParts(full), unlockHash, fundingTx });
        const expectedKey = enc === "encoding_version_1" ? "reencoded_as_version_2_hex" : "hex";
        expectVector(toHex(encodeVtxo(done)), named(enc, "round1_vtxo"), expectedKey);
      });
    }
  });
});
