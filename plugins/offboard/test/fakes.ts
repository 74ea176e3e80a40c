/**
 * In-memory fakes of the offboard ports: a wallet key, board VTXOs co-signed by a test server key,
 * a server that builds offboard txs the way the reference server lays them out and answers
 * finishes from a script, a chain, VTXO store with locks, and movements.
 */
import { randomBytes } from "node:crypto";
import { ArkServerRejectedError } from "@tender/ark-protocol/server";
import {
  CONNECTOR_VALUE, boardFundingTaproot, boardVtxo, buildBoardExit, bytesEqual, connectorScript, decodeTx, encodeTx, musigCompleteCosign, musigNonceGen,
  musigRespondCosign, musigTweakedKey, pubkeyFromSecret, txid, txidHex, vtxoIdString, type Transaction, type Vtxo,
} from "@tender/ark-protocol";
import type { TxStatus } from "@tender/core";
import type { MovementChanges, NewMovement } from "@tender/plugin-history";
import type { OffboardPorts, OffboardVtxo } from "../src/offboard-ports.js";

export function randomKey(): { sk: Uint8Array; pk: Uint8Array } {
  const sk = new Uint8Array(randomBytes(32));
  return { sk, pk: pubkeyFromSecret(sk) };
}

export const USER = randomKey();
export const SERVER = randomKey();

/** A board VTXO of `amount` to {@link USER}, co-signed by {@link SERVER} (a complete exit chain). */
export function boardOf(amount: bigint, expiryHeight = 1_000): Vtxo {
  const params = { userPubkey: USER.pk, serverPubkey: SERVER.pk, expiryHeight, exitDelta: 12 };
  const funding: Transaction = {
    version: 2, locktime: 0,
    inputs: [{ prevout: { txid: new Uint8Array(randomBytes(32)), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }],
    outputs: [{ value: amount, script: boardFundingTaproot(params).scriptPubKey }],
  };
  const exit = buildBoardExit(params, { txid: txid(funding), vout: 0 }, amount, 0n);
  const nonce = musigNonceGen({ pubkey: USER.pk, secretKey: USER.sk, aggregateKey: musigTweakedKey([USER.pk, SERVER.pk], exit.tweak), message: exit.sighash });
  const response = musigRespondCosign({ secretKey: SERVER.sk, pubkey: SERVER.pk, otherPubkey: USER.pk, otherPubNonce: nonce.pubNonce, message: exit.sighash, tweak: exit.tweak });
  return boardVtxo(exit, musigCompleteCosign({ secretKey: USER.sk, pubkey: USER.pk, nonce, otherPubkey: SERVER.pk, response, message: exit.sighash, tweak: exit.tweak }));
}

/** A rejection as the gRPC client reports it (`INVALID_ARGUMENT`). */
export function rejection(message: string): ArkServerRejectedError {
  return new ArkServerRejectedError({ method: "/bark_server.ArkService/X", code: 3, status: "INVALID_ARGUMENT", serverMessage: message, identifiers: [] }, {});
}

/** What a fake finish answers: the signed tx, the tx without witnesses, or an error. */
export type FinishAnswer = "signed" | "unsigned" | Error;

export class FakeWorld {
  readonly vtxos = new Map<string, OffboardVtxo>();
  readonly movements = new Map<number, NewMovement & MovementChanges & { id: number }>();
  readonly chainTxs = new Map<string, { hex: string; status: TxStatus }>();
  readonly broadcasts: string[] = [];
  readonly prepares: Uint8Array[] = [];
  prepareAnswers: (Error | "ok")[] = [];
  finishAnswers: FinishAnswer[] = [];
  finishes = 0;
  now = 1_000_000;
  private lastPrepared: Transaction | undefined;

  add(v: Vtxo): string {
    const id = vtxoIdString(v);
    this.vtxos.set(id, { id, vtxo: v, amountSat: v.amount, state: "spendable", lockedBy: null });
    return id;
  }

  /** The signed tx the server would hand out for the last prepared one. */
  signedTx(): Transaction {
    const tx = this.lastPrepared!;
    return { ...tx, inputs: tx.inputs.map((i) => ({ ...i, witness: [new Uint8Array(64).fill(7)] })) };
  }

  ports(): OffboardPorts {
    const w = this;
    const set = (id: string, change: Partial<OffboardVtxo>) => w.vtxos.set(id, { ...w.vtxos.get(id)!, ...change });
    return {
      server: {
        info: async () => ({ serverPubkey: SERVER.pk, maxOffboardInputs: 10, maxVtxoExitDepth: 0, fees: { baseFeeSat: 100n, fixedAdditionalVb: 100n, ppmExpiryTable: [] } }),
        feeRateSatPerKwu: async () => 250n,
        async prepare(req) {
          w.prepares.push(encodeRequest(req.offboard.netAmountSat, req.offboard.script, req.inputVtxoIds));
          const answer = w.prepareAnswers.shift() ?? "ok";
          if (answer !== "ok") throw answer;
          const n = req.inputVtxoIds.length;
          const tx: Transaction = {
            version: 2, locktime: 0,
            inputs: [{ prevout: { txid: new Uint8Array(randomBytes(32)), vout: 1 }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }],
            outputs: [
              { value: req.offboard.netAmountSat, script: req.offboard.script },
              { value: CONNECTOR_VALUE * BigInt(n), script: connectorScript(randomKey().pk) },
              { value: 50_000n, script: connectorScript(SERVER.pk) },
            ],
          };
          w.lastPrepared = tx;
          return { offboardTx: encodeTx(tx), forfeitCosignNonces: Array.from({ length: n }, () => musigNonceGen({ pubkey: SERVER.pk, secretKey: SERVER.sk }).pubNonce) };
        },
        async finish(req) {
          w.finishes++;
          const answer = w.finishAnswers.shift() ?? "signed";
          if (answer instanceof Error) throw answer;
          if (!w.lastPrepared || !bytesEqual(req.offboardTxid, txid(w.lastPrepared))) throw rejection("unknown offboard txid");
          if (BigInt(req.partialSignatures.length) !== w.lastPrepared.outputs[1]!.value / CONNECTOR_VALUE) throw rejection("incorrect number of partial signatures");
          return encodeTx(answer === "signed" ? w.signedTx() : w.lastPrepared);
        },
        registerVtxos: async () => undefined,
        arkoorCosign: async () => { throw new Error("no arkoor in these tests"); },
        backupVtxoIds: async () => undefined,
      },
      keys: {
        next: async () => ({ index: 0, publicKey: USER.pk }),
        publicKeyAt: () => USER.pk,
        secretFor: async (pk) => {
          if (!bytesEqual(pk, USER.pk)) throw new Error("not our key");
          return USER.sk;
        },
      },
      vtxos: {
        get: async (id) => w.vtxos.get(id),
        select: async (choose) => choose([...w.vtxos.values()].filter((v) => v.state === "spendable")),
        async lock(ids, holder) {
          for (const id of ids) {
            const v = w.vtxos.get(id);
            if (!v || (v.state !== "spendable" && v.lockedBy !== holder)) throw new Error(`VTXO ${id} is not spendable`);
          }
          for (const id of ids) set(id, { state: "locked", lockedBy: holder });
        },
        async release(holder) {
          for (const v of w.vtxos.values()) if (v.state === "locked" && v.lockedBy === holder) set(v.id, { state: "spendable", lockedBy: null });
        },
        async holdNew(vtxo, holder) {
          const id = vtxoIdString(vtxo);
          if (!w.vtxos.has(id)) w.vtxos.set(id, { id, vtxo, amountSat: vtxo.amount, state: "locked", lockedBy: holder });
        },
        async markSpent(ids) {
          for (const id of ids) set(id, { state: "spent", lockedBy: null });
        },
      },
      chain: {
        tipHeight: async () => 500,
        txStatus: async (id) => w.chainTxs.get(id)?.status ?? null,
        txHex: async (id) => w.chainTxs.get(id)?.hex ?? null,
        async broadcast(hex) {
          w.broadcasts.push(hex);
          w.chainTxs.set(txidHex(decodeTx(Buffer.from(hex, "hex"))), { hex, status: { confirmed: false } });
        },
      },
      movements: {
        findPending: async (kind, ids) => [...w.movements.values()].find((m) => m.subsystem.kind === kind && (m.status ?? "pending") === "pending" && m.inputVtxos?.join() === ids.join())?.id,
        async create(m) {
          const id = w.movements.size + 1;
          w.movements.set(id, { ...m, id });
          return id;
        },
        async update(id, c) {
          const m = w.movements.get(id)!;
          w.movements.set(id, { ...m, ...c, metadata: { ...m.metadata, ...c.metadata } });
        },
      },
      settings: { requiredConfirmations: async () => 0, lostTxGraceSecs: async () => 3600, changeSplitFactor: async () => 2 },
      transaction: (fn) => fn(),
      now: () => w.now,
    };
  }
}

function encodeRequest(net: bigint, script: Uint8Array, ids: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat([Buffer.from(net.toString(16).padStart(16, "0"), "hex"), script, ...ids]);
}
