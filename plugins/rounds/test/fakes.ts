/**
 * Fakes of the rounds rail's ports for the driver tests: the wallet's VTXOs and locks in memory
 * (real board VTXOs, so ids and the refresh decision are real), recorded movements, a scripted
 * server, a protocol whose pricing is simply "sum − 100", and the participation store on an
 * in-memory SQLite database.
 */
import { Database, silentLogger } from "@tender/core";
import { vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import {
  ArkServerNotFoundError, ArkServerRejectedError, type RoundEvent, type RoundParticipationStatus, type SubmitPaymentRequest,
} from "@tender/ark-protocol/server";
import { VtxoNotSpendableError } from "@tender/plugin-ark";
import { ParticipationStore } from "../src/participation-store.js";
import { ROUNDS_ENTITIES, ROUNDS_MIGRATIONS } from "../src/participation-row.js";
import { RoundsService } from "../src/rounds-service.js";
import type { RoundPorts, RoundVtxos, RoundWalletVtxo } from "../src/round-ports.js";
import { randomKey, SERVER, signedBoard } from "./fixtures.js";

export const FEE = 100n;
export const TIP = 200;
const USER = randomKey();

/** The wallet's VTXOs with the shared locks' rules (all or none; a VTXO held by another owner or not spendable refuses). */
export class FakeVtxos implements RoundVtxos {
  readonly rows = new Map<string, { id: string; vtxo: Vtxo; state: RoundWalletVtxo["state"]; lockedBy: string | null }>();

  /** Adds a real board VTXO of `amount` expiring at `expiry`; returns its id. */
  add(amount: bigint, expiry = TIP + 400): string {
    const vtxo = signedBoard(USER, amount, expiry);
    const id = vtxoIdString(vtxo);
    this.rows.set(id, { id, vtxo, state: "spendable", lockedBy: null });
    return id;
  }
  state(id: string): string {
    const r = this.rows.get(id)!;
    return r.state === "locked" ? `locked by ${r.lockedBy}` : r.state;
  }
  async get(id: string) { return this.rows.get(id); }
  async spendable() { return [...this.rows.values()].filter((r) => r.state === "spendable"); }
  async lock(ids: readonly string[], owner: string) {
    for (const id of ids) {
      const r = this.rows.get(id);
      if (!r) throw new VtxoNotSpendableError(id, "unknown");
      if (r.state === "locked" && r.lockedBy === owner) continue;
      if (r.state !== "spendable") throw new VtxoNotSpendableError(id, r.state);
    }
    for (const id of ids) Object.assign(this.rows.get(id)!, { state: "locked", lockedBy: owner });
  }
  async release(owner: string) {
    for (const r of this.rows.values()) if (r.state === "locked" && r.lockedBy === owner) Object.assign(r, { state: "spendable", lockedBy: null });
  }
  async storeSpendable(vtxos: readonly Vtxo[]) {
    for (const vtxo of vtxos) this.rows.set(vtxoIdString(vtxo), { id: vtxoIdString(vtxo), vtxo, state: "spendable", lockedBy: null });
  }
  async markSpent(ids: readonly string[]) {
    for (const id of ids) Object.assign(this.rows.get(id)!, { state: "spent", lockedBy: null });
  }
}

/** A movement as the fake records it. */
export interface FakeMovement { inputs: readonly string[]; feeSat: bigint; status: string; fundingTxid?: string }

/** Everything a driver test scripts and inspects. */
export interface Rig {
  db: Database;
  store: ParticipationStore;
  vtxos: FakeVtxos;
  movements: Map<number, FakeMovement>;
  /** Answers `SubmitPayment` (default: an unlock hash of 0x11 bytes). */
  submit: (req: SubmitPaymentRequest) => Promise<Uint8Array>;
  submitted: SubmitPaymentRequest[];
  signatures: number;
  /** Answers `RoundParticipationStatus` (default: NOT_FOUND). */
  status: () => Promise<RoundParticipationStatus>;
  statusCalls: number;
  tracked: number[];
  ports: RoundPorts;
  /** A new service over the same store and ports, as after a restart (no memory of joined attempts). */
  service(): RoundsService;
}

/** A server refusal naming `ids`. */
export function rejection(ids: readonly string[]): ArkServerRejectedError {
  return new ArkServerRejectedError({ method: "/bark_server.ArkService/SubmitPayment", code: 3, status: "INVALID_ARGUMENT", serverMessage: "input vtxo(s) not spendable", identifiers: [...ids] }, {});
}

export function notFound(): ArkServerNotFoundError {
  return new ArkServerNotFoundError({ method: "/bark_server.ArkService/RoundParticipationStatus", code: 5, status: "NOT_FOUND", serverMessage: "round participation not found", identifiers: [] }, {});
}

/** An issued status (the fake protocol does not look into it). */
export const ISSUED: RoundParticipationStatus = { status: "issued", inputVtxoIds: [], roundFundingTx: new Uint8Array([2, 0]), outputVtxos: [] };
export const FUNDING_TXID = "ff".repeat(32);

export async function rig(): Promise<Rig> {
  const db = new Database({ entities: [...ROUNDS_ENTITIES], migrations: [...ROUNDS_MIGRATIONS] }, silentLogger);
  await db.open({ dialect: "sqlite", path: ":memory:" });
  const store = new ParticipationStore(db);
  const vtxos = new FakeVtxos();
  const movements = new Map<number, FakeMovement>();
  let keyIndex = 0;
  const r: Rig = {
    db, store, vtxos, movements, submitted: [], signatures: 0, statusCalls: 0, tracked: [],
    submit: async () => new Uint8Array(32).fill(0x11),
    status: async () => { throw notFound(); },
    ports: undefined as unknown as RoundPorts,
    service: () => new RoundsService(store, r.ports, silentLogger, { track: async (id) => { r.tracked.push(id); } }),
  };
  const refreshFees = { baseFeeSat: FEE, ppmExpiryTable: [] };
  r.ports = {
    server: {
      info: async () => ({ serverPubkey: SERVER.pk, vtxoExitDelta: 12, vtxoLifetime: 432, nbRoundNonces: 2, maxVtxoExitDepth: 50, refreshFees }),
      registerVtxos: async () => undefined,
      backupVtxoIds: async () => undefined,
      submitPayment: async (req) => { r.submitted.push(req); return r.submit(req); },
      provideVtxoSignatures: async () => { r.signatures++; },
      roundParticipationStatus: async () => { r.statusCalls++; return r.status(); },
      submitRoundParticipation: async () => new Uint8Array(32).fill(0x22),
      requestLeafVtxoCosign: async () => { throw new Error("not in these tests"); },
      requestForfeitNonces: async () => { throw new Error("not in these tests"); },
      forfeitVtxos: async () => { throw new Error("not in these tests"); },
      lastRoundEvent: async () => undefined,
    },
    keys: {
      nextVtxoKey: async () => ({ index: keyIndex++, publicKey: USER.pk, secretKey: USER.sk }),
      keyAt: async (index) => ({ index, publicKey: USER.pk, secretKey: USER.sk }),
      secretKeyFor: async () => USER.sk,
      isOwn: async () => true,
      mailboxId: async () => new Uint8Array(33).fill(2),
    },
    vtxos,
    chain: { tipHeight: async () => TIP, txStatus: async () => null, broadcast: async () => undefined, fastFeeRateSatPerKwu: async () => 250n },
    movements: {
      create: async (m) => { const id = movements.size + 1; movements.set(id, { inputs: m.inputs, feeSat: m.feeSat, status: "pending" }); return id; },
      updateInputs: async (id, m) => { Object.assign(movements.get(id)!, { inputs: m.inputs, feeSat: m.feeSat }); },
      noteFunding: async (id, fundingTxid) => { Object.assign(movements.get(id)!, { fundingTxid }); },
      finish: async (id, status) => { Object.assign(movements.get(id)!, { status }); },
    },
    settings: { requiredConfirmations: async () => 1, refreshExpiryThreshold: async () => 12 },
    protocol: {
      refreshOutputAmount: (inputs) => ({ fee: FEE, amount: inputs.reduce((t, v) => t + v.amount, 0n) - FEE }),
      prepareRoundSubmission: (p) => ({ request: { inputVtxos: p.inputs.map((i) => vtxoIdString(i.vtxo)) } as unknown as SubmitPaymentRequest, secrets: {} }),
      signVtxoProposal: () => [{} as never],
      roundOutputVtxos: () => ({ fundingTx: new Uint8Array([2, 0]), fundingTxid: FUNDING_TXID, vtxos: [] }),
      prepareDelegatedParticipation: () => ({}) as never,
      checkDelegatedOutputs: () => ({ fundingTxid: FUNDING_TXID, vtxos: [] }),
      leafCosignNonce: () => { throw new Error("not in these tests"); },
      completeLeafSignature: () => { throw new Error("not in these tests"); },
      forfeitBundles: () => { throw new Error("not in these tests"); },
      finalizeRoundVtxo: () => { throw new Error("not in these tests"); },
    },
    transaction: (fn) => db.transaction(fn),
  };
  return r;
}

/** Round events of round `r`, attempt `a`. */
export const ev = {
  attempt: (r: number, a = 0): RoundEvent => ({ kind: "attempt", roundSeq: BigInt(r), attemptSeq: BigInt(a), challenge: new Uint8Array(32) }),
  proposal: (r: number, a = 0): RoundEvent => ({ kind: "vtxo-proposal", roundSeq: BigInt(r), attemptSeq: BigInt(a), vtxosSpec: new Uint8Array(0), unsignedRoundTx: new Uint8Array(0), aggNonces: [] }),
  finished: (r: number, a = 0): RoundEvent => ({ kind: "finished", roundSeq: BigInt(r), attemptSeq: BigInt(a), signedRoundTx: new Uint8Array(0), cosignSignatures: [] }),
  failed: (r: number): RoundEvent => ({ kind: "failed", roundSeq: BigInt(r) }),
};
