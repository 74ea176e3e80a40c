import { expect } from "chai";
import { silentLogger, type ChainSource, type Database } from "@tender/core";
import { arkoorServerCosign, buildArkoorPackage, encodeVtxo, toHex, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import type { ArkServer } from "@tender/ark-protocol/server";
import type { MovementStore } from "@tender/plugin-history";
import type { ArkRail } from "../../src/daemon/ark-rail.js";
import { cosignArkoor, type ArkoorOutput } from "../../src/daemon/arkoor/arkoor-cosign-completion.js";
import { arkoorSendAction, type ArkoorSendState } from "../../src/daemon/arkoor/arkoor-send-action.js";
import { ArkKeys } from "../../src/daemon/keys/ark-keys.js";
import { VtxoLocks } from "../../src/daemon/vtxos/vtxo-locks.js";
import { VtxoStore } from "../../src/daemon/vtxos/vtxo-store.js";
import { MNEMONIC, SERVER, masterOf, memoryDb, randomKey, signedBoard } from "./fixtures.js";

describe("arkoor send action: a payment resumed in a fresh process delivers the VTXOs it was cosigned", () => {
  let db: Database;
  let rail: ArkRail;
  let calls: { posted: string[][]; registered: string[][] };
  let state: ArkoorSendState;
  let signed: Vtxo[];
  let signatures: (Uint8Array | null)[][];

  beforeEach(async () => {
    db = await memoryDb();
    const keys = await ArkKeys.load(db, masterOf(MNEMONIC));
    const vtxos = new VtxoStore(db);
    calls = { posted: [], registered: [] };
    const server = {
      postArkoorMessage: async (_blinded: Uint8Array, list: readonly Uint8Array[]) => void calls.posted.push(list.map(toHex)),
      postRecoveryVtxoIds: async () => undefined,
      registerVtxoTransactions: async (list: readonly Uint8Array[]) => void calls.registered.push(list.map(toHex)),
    };
    rail = {
      server: server as unknown as ArkServer, keys, vtxos, locks: new VtxoLocks(vtxos), chain: {} as ChainSource, movements: {} as MovementStore, db,
      logger: silentLogger, settings: () => ({ network: "regtest", changeSplitFactor: 2, deliveryRetryMs: 1_000 }),
    };
    // a board of the wallet's key 0, paid out to a stranger with the change on keys 1 and 2
    const owner = keys.deriveVtxoKey(0);
    const { vtxo: input } = signedBoard({ sk: owner.secretKey, pk: owner.publicKey }, 100_000n, 1_000);
    await vtxos.add(input);
    const payee = randomKey().pk;
    const outputs: ArkoorOutput[] = [
      { amount: 30_000n, policy: { type: "pubkey", userPubkey: payee } },
      { amount: 35_000n, policy: { type: "pubkey", userPubkey: keys.deriveVtxoKey(1).publicKey } },
      { amount: 35_000n, policy: { type: "pubkey", userPubkey: keys.deriveVtxoKey(2).publicKey } },
    ];
    const cosigned = await cosignArkoor(() => owner.secretKey, [input], outputs, {}, async (parts) =>
      arkoorServerCosign(buildArkoorPackage([input], outputs), SERVER.sk, parts.map((p) => [...p.userPubNonces]))
        .map((part) => ({ serverPubNonces: part.map((r) => r.pubNonce), serverPartialSigs: part.map((r) => r.partialSig) })));
    ({ vtxos: signed, signatures } = cosigned);
    state = {
      address: "tark1…", amountSat: "30000", recipientPubkey: toHex(payee), blindedIds: [toHex(randomKey().pk)], inputIds: [vtxoIdString(input)],
      changeKeyIndexes: [1, 2], changeAmounts: ["35000", "35000"], movementId: null, signed: null, delivered: false,
    };
  });
  afterEach(() => db.close());

  /** The deliver step of an action definition made afresh (as after a restart: nothing of the payment in memory). */
  const deliverAfterRestart = (s: ArkoorSendState) =>
    arkoorSendAction(async () => rail, rail).steps.deliver!(s, { id: "payment-1" });
  const hex = (vs: readonly Vtxo[]) => vs.map((v) => toHex(encodeVtxo(v)));

  it("from the saved signatures: rebuilds the signed VTXOs, posts the payee's to the mailbox and registers all three", async () => {
    const saved = { ...state, signatures: signatures.map((part) => part.map((sig) => (sig === null ? null : toHex(sig)))) };
    expect(await deliverAfterRestart(saved)).to.deep.include({ next: "finalize" });
    expect(calls.posted).to.deep.equal([hex([signed[0]!])]);
    expect(calls.registered).to.deep.equal([hex(signed)]);
  });

  it("from the signed VTXOs an earlier version saved instead: the same requests", async () => {
    expect(await deliverAfterRestart({ ...state, signed: hex(signed) })).to.deep.include({ next: "finalize" });
    expect(calls.posted).to.deep.equal([hex([signed[0]!])]);
    expect(calls.registered).to.deep.equal([hex(signed)]);
  });
});
