import { randomBytes } from "node:crypto";
import { Database, silentLogger } from "@tender/core";
import { BIP32Factory, type BIP32Interface } from "bip32";
import * as ecc from "tiny-secp256k1";
import {
  boardFundingTaproot, boardVtxo, buildBoardExit, mnemonicToSeed, musigCompleteCosign, musigNonceGen, musigRespondCosign, musigTweakedKey,
  pubkeyFromSecret, txid, type Transaction, type Vtxo,
} from "@tender/ark-protocol";
import { ARK_ENTITIES, ARK_MIGRATIONS } from "../../src/daemon/persistence/entities.js";

/** A wallet database in memory with the Ark plugin's tables. */
export async function memoryDb(): Promise<Database> {
  const db = new Database({ entities: ARK_ENTITIES, migrations: ARK_MIGRATIONS }, silentLogger);
  await db.open({ dialect: "sqlite", path: ":memory:" });
  return db;
}

/** A random key pair. */
export function randomKey(): { sk: Uint8Array; pk: Uint8Array } {
  const sk = new Uint8Array(randomBytes(32));
  return { sk, pk: pubkeyFromSecret(sk) };
}

export const SERVER = randomKey();

/** An (unsigned) board VTXO of `amount` for `userPubkey`, on a random funding outpoint. */
export function boardOf(amount: bigint, userPubkey: Uint8Array = randomKey().pk, expiryHeight = 1_000): Vtxo {
  const exit = buildBoardExit({ userPubkey, serverPubkey: SERVER.pk, expiryHeight, exitDelta: 12 }, { txid: new Uint8Array(randomBytes(32)), vout: 0 }, amount, 0n);
  return boardVtxo(exit, null);
}

/** The BIP-32 master of a mnemonic, as the wallet plugin hands it to the Ark plugin. */
export function masterOf(mnemonic: string): BIP32Interface {
  return BIP32Factory(ecc).fromSeed(mnemonicToSeed(mnemonic));
}

export const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

/** Exit delta of the test server. */
export const EXIT_DELTA = 12;

/** A board of `amount` to `user`, its funding tx, and the VTXO cosigned by the test server (or unsigned). */
export function signedBoard(user: { sk: Uint8Array; pk: Uint8Array }, amount: bigint, expiryHeight: number, signed = true): { vtxo: Vtxo; funding: Transaction } {
  const params = { userPubkey: user.pk, serverPubkey: SERVER.pk, expiryHeight, exitDelta: EXIT_DELTA };
  const funding: Transaction = {
    version: 2, locktime: 0,
    inputs: [{ prevout: { txid: new Uint8Array(randomBytes(32)), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }],
    outputs: [{ value: amount, script: boardFundingTaproot(params).scriptPubKey }],
  };
  const exit = buildBoardExit(params, { txid: txid(funding), vout: 0 }, amount, 0n);
  if (!signed) return { vtxo: boardVtxo(exit, null), funding };
  const nonce = musigNonceGen({ pubkey: user.pk, secretKey: user.sk, aggregateKey: musigTweakedKey([user.pk, SERVER.pk], exit.tweak), message: exit.sighash });
  const response = musigRespondCosign({ secretKey: SERVER.sk, pubkey: SERVER.pk, otherPubkey: user.pk, otherPubNonce: nonce.pubNonce, message: exit.sighash, tweak: exit.tweak });
  const sig = musigCompleteCosign({ secretKey: user.sk, pubkey: user.pk, nonce, otherPubkey: SERVER.pk, response, message: exit.sighash, tweak: exit.tweak });
  return { vtxo: boardVtxo(exit, sig), funding };
}
