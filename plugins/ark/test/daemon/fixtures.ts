import { randomBytes } from "node:crypto";
import { Database, silentLogger } from "@tender/core";
import { BIP32Factory, type BIP32Interface } from "bip32";
import * as ecc from "tiny-secp256k1";
import { boardVtxo, buildBoardExit, mnemonicToSeed, pubkeyFromSecret, type Vtxo } from "../../src/protocol/index.js";
import { ARK_ENTITIES, arkInitMigration } from "../../src/daemon/persistence/entities.js";

/** A wallet database in memory with the Ark plugin's tables. */
export async function memoryDb(): Promise<Database> {
  const db = new Database({ entities: ARK_ENTITIES, migrations: [arkInitMigration] }, silentLogger);
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
