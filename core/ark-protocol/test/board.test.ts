/** Boarding (bark's `ark::board`, vector group `board`). */
import { expect } from "chai";
import * as ecc from "tiny-secp256k1";
import { arkVectors, compareVector, expectVector } from "./ark-vectors.js";
import { fromHex, toHex, reverseBytes, formatOutPoint, encodeOutPoint } from "../src/encoding.js";
import { encodeTx, txid, txidHex, type Transaction } from "../src/tx.js";
import { BoardError, checkBoardCosignRequest, boardFromVtxo, boardFundingTaproot, boardVtxo, buildBoardExit, checkBoardAmounts, signedBoardExitTx } from "../src/board.js";
import { decodeTx } from "../src/tx.js";
import { decodeVtxo, encodeVtxo } from "../src/vtxo.js";
import { validateVtxo } from "../src/vtxo-validate.js";
import { musigCompleteCosign, musigNonceGen, musigRespondCosign, musigTweakedKey } from "../src/musig.js";

const B = arkVectors.board;
const K = arkVectors.keys;

describe("board (funding output, exit tx, board VTXO)", () => {
  describe("board builder (lib/src/board.rs test_board_builder)", () => {
    const t = B.board_builder_test;
    const params = { userPubkey: fromHex(t.user_pubkey), serverPubkey: fromHex(t.server_pubkey), expiryHeight: t.expiry_height, exitDelta: t.exit_delta };

    it("funding taproot: internal key, leaf, control block, tweak and output key", () => {
      const tr = boardFundingTaproot(params);
      const v = t.funding_taproot;
      expectVector(toHex(tr.internalKey), v, "internal_key_xonly");
      expect(tr.leaves.length).to.equal(v.leaves.length);
      const leaf = v.leaves[0];
      expectVector(tr.leaves[0]!.depth, leaf, "depth");
      compareVector(leaf, "leaf_version", (version: string) => expect(tr.leaves[0]!.leafVersion).to.equal(Number(version)));
      expectVector(toHex(tr.leaves[0]!.script), leaf, "script_hex");
      expectVector(toHex(tr.leaves[0]!.leafHash), leaf, "leaf_hash");
      expectVector(toHex(tr.leaves[0]!.controlBlock), leaf, "control_block");
      expectVector(toHex(tr.merkleRoot!), v, "merkle_root");
      expectVector(toHex(tr.tweak), v, "tap_tweak");
      expectVector(toHex(tr.outputKey), v, "output_key_xonly");
      expectVector(tr.parity, v, "output_key_parity");
      expectVector(toHex(tr.scriptPubKey), v, "script_pubkey");
    });

    it("funding outpoint of the zero-input funding tx matches the reference", () => {
      const funding: Transaction = { version: 2, locktime: 0, inputs: [], outputs: [{ value: BigInt(t.amount), script: boardFundingTaproot(params).scriptPubKey }] };
      expectVector(toHex(encodeTx(funding)), t, "funding_tx_hex");
      expectVector(`${txidHex(funding)}:0`, t, "expected_funding_outpoint");
    });

    it("the vector's notes hold: the zero-input funding tx looks like a segwit marker, provenance kinds are known", () => {
      const funding: Transaction = { version: 2, locktime: 0, inputs: [], outputs: [{ value: BigInt(t.amount), script: boardFundingTaproot(params).scriptPubKey }] };
      const bytes = encodeTx(funding);
      compareVector(t, "funding_tx_note", (note: string) => {
        expect(note).to.include("zero inputs");
        expect(funding.inputs.length).to.equal(0);
      });
      expect([bytes[4], bytes[5]]).to.deep.equal([0x00, 0x01]);
      let reparsed: Transaction | undefined;
      try {
        reparsed = decodeTx(bytes);
      } catch {
        reparsed = undefined;
      }
      expect(reparsed === undefined || txidHex(reparsed) !== txidHex(funding)).to.equal(true);
      const kinds = Object.keys(arkVectors.meta.provenance);
      compareVector(t, "provenance_expected_funding_outpoint", (kind: string) => expect(kinds).to.include(kind));
      compareVector(t, "provenance_exit", (text: string) => expect(kinds.some((k) => text.startsWith(k))).to.equal(true));
    });

    it("exit tx, its txid, the VTXO id, the sighash and the MuSig2 tweak", () => {
      const funding: Transaction = { version: 2, locktime: 0, inputs: [], outputs: [{ value: BigInt(t.amount), script: boardFundingTaproot(params).scriptPubKey }] };
      const board = buildBoardExit(params, { txid: txid(funding), vout: 0 }, BigInt(t.amount), BigInt(t.fee));
      expectVector(toHex(encodeTx(board.exitTx)), t, "unsigned_exit_tx_hex");
      expectVector(toHex(reverseBytes(board.exitTxid)), t, "exit_txid");
      expectVector(formatOutPoint({ txid: board.exitTxid, vout: 0 }), t, "vtxo_id");
      expectVector(toHex(board.sighash), t, "exit_sighash");
      expectVector(toHex(board.tweak), t, "musig_tweak");
      expectVector(board.vtxoAmount, t, "vtxo_amount");
    });

    it("user and server co-sign the exit tx; the signature verifies under the funding output key", () => {
      const userSk = fromHex(K.policy_test_user_key.secret_key);
      const serverSk = fromHex(K.policy_test_server_key.secret_key);
      expectVector(toHex(ecc.pointFromScalar(userSk, true)!), t, "user_pubkey");
      expectVector(toHex(ecc.pointFromScalar(serverSk, true)!), t, "server_pubkey");
      const funding: Transaction = { version: 2, locktime: 0, inputs: [], outputs: [{ value: BigInt(t.amount), script: boardFundingTaproot(params).scriptPubKey }] };
      const board = buildBoardExit(params, { txid: txid(funding), vout: 0 }, BigInt(t.amount), BigInt(t.fee));
      const outputKey = musigTweakedKey([params.userPubkey, params.serverPubkey], board.tweak);
      expectVector(toHex(outputKey), t.funding_taproot, "output_key_xonly");
      const nonce = musigNonceGen({ pubkey: params.userPubkey, secretKey: userSk, aggregateKey: outputKey, message: board.sighash });
      const response = musigRespondCosign({ secretKey: serverSk, pubkey: params.serverPubkey, otherPubkey: params.userPubkey, otherPubNonce: nonce.pubNonce, message: board.sighash, tweak: board.tweak });
      const sig = musigCompleteCosign({ secretKey: userSk, pubkey: params.userPubkey, nonce, otherPubkey: params.serverPubkey, response, message: board.sighash, tweak: board.tweak });
      expect(ecc.verifySchnorr(board.sighash, outputKey, sig)).to.equal(true);
      const signed = signedBoardExitTx(board, sig);
      expectVector(txidHex(signed), t, "exit_txid");
      expect(encodeTx(signed).length).to.equal(encodeTx(board.exitTx).length + 2 + 66);
    });
  });

  describe("dummy board (lib/src/test_util/dummy.rs)", () => {
    const d = B.dummy_test_vtxo_spec_default;
    const params = { userPubkey: fromHex(K.dummy_user_key.public_key), serverPubkey: fromHex(K.dummy_server_key.public_key), expiryHeight: 10_000, exitDelta: 144 };
    const amount = 110_000_000n;
    const funding: Transaction = {
      version: 3,
      locktime: 0,
      inputs: [{ prevout: { txid: new Uint8Array(32), vout: 0xffffffff }, scriptSig: new Uint8Array(0), sequence: 0, witness: [] }],
      outputs: [{ value: amount, script: boardFundingTaproot(params).scriptPubKey }],
    };

    it("funding tx, txid and script", () => {
      expectVector(toHex(funding.outputs[0]!.script), d, "funding_script_pubkey");
      expectVector(toHex(encodeTx(funding)), d, "funding_tx_hex");
      expectVector(txidHex(funding), d, "funding_txid");
    });

    it("exit tx and VTXO id used by the attestation vectors", () => {
      const board = buildBoardExit(params, { txid: txid(funding), vout: 0 }, amount, 10_000_000n);
      expectVector(toHex(encodeTx(board.exitTx)), d, "exit_tx_unsigned_hex");
      const id = { txid: board.exitTxid, vout: 0 };
      expectVector(formatOutPoint(id), d, "vtxo_id");
      expectVector(toHex(encodeOutPoint(id)), d, "vtxo_id_bytes_hex");
    });
  });

  describe("board VTXO (vtxo_encoding board_vtxo)", () => {
    const V2 = arkVectors.vtxo_encoding.encoding_version_2;
    const G = K.vtxo_vector_generation;
    const ref = (V2.vtxos as { name: string; hex: string }[]).find((v) => v.name === "board_vtxo")!;
    const anchor = decodeTx(fromHex(V2.anchor_tx.hex));
    const refVtxo = decodeVtxo(fromHex(ref.hex));
    const params = { userPubkey: fromHex(G.board_user_key.public_key), serverPubkey: fromHex(G.server_key.public_key), expiryHeight: refVtxo.expiryHeight, exitDelta: refVtxo.exitDelta };

    it("built from the board parameters and the reference signature it encodes byte-exact and validates", () => {
      const fee = refVtxo.genesis[0]!.feeAmount;
      const board = buildBoardExit(params, refVtxo.anchorPoint, refVtxo.amount + fee, fee);
      expect(toHex(board.fundingOutput.script)).to.equal(toHex(anchor.outputs[refVtxo.anchorPoint.vout]!.script));
      const vtxo = boardVtxo(board, refVtxo.genesis[0]!.transition.signature);
      expectVector(toHex(encodeVtxo(vtxo)), ref, "hex");
      expect(() => validateVtxo(vtxo, anchor)).to.not.throw();
    });

    it("a freshly co-signed board validates; the server recognises it as a board of its key", () => {
      const fee = 330n;
      const board = buildBoardExit(params, refVtxo.anchorPoint, 10_330n, fee);
      const userSk = fromHex(G.board_user_key.secret_key);
      const serverSk = fromHex(G.server_key.secret_key);
      const nonce = musigNonceGen({ pubkey: params.userPubkey, secretKey: userSk, message: board.sighash });
      const response = musigRespondCosign({ secretKey: serverSk, pubkey: params.serverPubkey, otherPubkey: params.userPubkey, otherPubNonce: nonce.pubNonce, message: board.sighash, tweak: board.tweak });
      const sig = musigCompleteCosign({ secretKey: userSk, pubkey: params.userPubkey, nonce, otherPubkey: params.serverPubkey, response, message: board.sighash, tweak: board.tweak });
      const vtxo = boardVtxo(board, sig);
      expect(() => validateVtxo(vtxo, anchor)).to.not.throw();
      expect(boardFromVtxo(vtxo, anchor, params.serverPubkey).exitTxid).to.deep.equal(board.exitTxid);
      expect(() => boardFromVtxo(vtxo, anchor, fromHex(K.dummy_server_key.public_key))).to.throw(BoardError, "server pubkey mismatch");
      expect(() => boardFromVtxo({ ...vtxo, amount: vtxo.amount - 1n }, anchor, params.serverPubkey)).to.throw(BoardError, "vtxo id mismatch");
    });
  });

  it("server checks of a board cosign request: amount bounds, expiry window, funding tx", () => {
    const t = B.board_builder_test;
    const params = { userPubkey: fromHex(t.user_pubkey), serverPubkey: fromHex(t.server_pubkey), expiryHeight: t.expiry_height };
    const fundingTx: Transaction = { version: 2, locktime: 0, inputs: [], outputs: [{ value: BigInt(t.amount), script: boardFundingTaproot(params).scriptPubKey }] };
    const ok = { amount: BigInt(t.amount), fee: BigInt(t.fee), expiryHeight: t.expiry_height, fundingOutpoint: { txid: txid(fundingTx), vout: 0 }, fundingTx, userPubkey: params.userPubkey, serverPubkey: params.serverPubkey, tipHeight: t.expiry_height - 4320, vtxoLifetime: 4320, minBoardAmount: 20_000n };
    expect(() => checkBoardCosignRequest(ok)).to.not.throw();
    expect(() => checkBoardCosignRequest({ ...ok, minBoardAmount: 200_000_000n })).to.throw(BoardError, "below the minimum");
    expect(() => checkBoardCosignRequest({ ...ok, maxVtxoAmount: 1_000n })).to.throw(BoardError, "above the maximum");
    expect(() => checkBoardCosignRequest({ ...ok, tipHeight: t.expiry_height - 4324 })).to.throw(BoardError, "window");
    expect(() => checkBoardCosignRequest({ ...ok, tipHeight: t.expiry_height + 1 })).to.throw(BoardError, "window");
    expect(() => checkBoardCosignRequest({ ...ok, amount: BigInt(t.amount) - 1n })).to.throw(BoardError, "funding output");
    expect(() => checkBoardCosignRequest({ ...ok, fundingOutpoint: { txid: new Uint8Array(32), vout: 0 } })).to.throw(BoardError, "outpoint");
  });

  it("refuses a zero amount, a fee above the amount and nothing left after the fee", () => {
    expect(() => checkBoardAmounts(0n, 0n)).to.throw(BoardError, "amount is zero");
    expect(() => checkBoardAmounts(100n, 101n)).to.throw(BoardError, "fee larger than amount");
    expect(() => checkBoardAmounts(100n, 100n)).to.throw(BoardError, "amount after fee is <= 0");
    expect(() => checkBoardAmounts(100n, 99n)).to.not.throw();
  });
});
