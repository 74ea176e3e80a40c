import { randomBytes } from "node:crypto";
import {
  boardFundingTaproot, boardVtxo, buildBoardExit, musigCompleteCosign, musigNonceGen, musigRespondCosign, musigTweakedKey, pubkeyFromSecret, txid,
  type Transaction, type Vtxo,
} from "@tender/ark-protocol";

/** A random key pair. */
export function randomKey(): { sk: Uint8Array; pk: Uint8Array } {
  const sk = new Uint8Array(randomBytes(32));
  return { sk, pk: pubkeyFromSecret(sk) };
}

export const SERVER = randomKey();

/** A board VTXO of `amount` to `user` expiring at `expiryHeight`, cosigned by the test server (a complete exit chain). */
export function signedBoard(user: { sk: Uint8Array; pk: Uint8Array }, amount: bigint, expiryHeight: number): Vtxo {
  const params = { userPubkey: user.pk, serverPubkey: SERVER.pk, expiryHeight, exitDelta: 12 };
  const funding: Transaction = {
    version: 2, locktime: 0,
    inputs: [{ prevout: { txid: new Uint8Array(randomBytes(32)), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }],
    outputs: [{ value: amount, script: boardFundingTaproot(params).scriptPubKey }],
  };
  const exit = buildBoardExit(params, { txid: txid(funding), vout: 0 }, amount, 0n);
  const nonce = musigNonceGen({ pubkey: user.pk, secretKey: user.sk, aggregateKey: musigTweakedKey([user.pk, SERVER.pk], exit.tweak), message: exit.sighash });
  const response = musigRespondCosign({ secretKey: SERVER.sk, pubkey: SERVER.pk, otherPubkey: user.pk, otherPubNonce: nonce.pubNonce, message: exit.sighash, tweak: exit.tweak });
  const sig = musigCompleteCosign({ secretKey: user.sk, pubkey: user.pk, nonce, otherPubkey: SERVER.pk, response, message: exit.sighash, tweak: exit.tweak });
  return boardVtxo(exit, sig);
}
