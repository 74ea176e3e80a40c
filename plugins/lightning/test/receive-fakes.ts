import { randomBytes } from "node:crypto";
import { silentLogger, type ActionDefinition, type ActionEngine, type ActionStatus, type Database } from "@tender/core";
import {
  arkoorPackageVtxos, arkoorPubNonces, arkoorServerCosign, arkoorUserFinish, arkoorUserNonces, boardFundingTaproot, boardVtxo, buildArkoorPackage,
  buildBoardExit, captaindDefaultFeeSchedule, decodeUserPolicy, encodeTx, musigCompleteCosign, musigNonceGen, musigRespondCosign, musigTweakedKey,
  pubkeyFromSecret, toHex, txid, vtxoIdString, type Transaction, type Vtxo, type VtxoPolicy,
} from "@tender/ark-protocol";
import type { ArkoorCosignPart, ArkoorCosignResponse, LightningReceiveStatus } from "@tender/ark-protocol/server";
import { lightning } from "@tender/devnet";
import type { LightningReceiveRail } from "../src/receive-rail.js";

export const secret = () => new Uint8Array(randomBytes(32));
export const SERVER = (() => { const sk = secret(); return { sk, pk: pubkeyFromSecret(sk) }; })();
export const EXIT_DELTA = 12;
export const HTLC_EXPIRY_DELTA = 6;
const PAYEE_NODE = secret();

/** A BOLT11 invoice for `paymentHash`, signed by a fake server node. */
export function invoiceFor(paymentHash: Uint8Array, amountSat: bigint, opts: { expirySecs?: number; timestamp?: number } = {}): string {
  return lightning.encodeBolt11({
    network: "regtest", amountMsat: amountSat * 1000n, timestamp: opts.timestamp ?? Math.floor(Date.now() / 1000), paymentHash,
    paymentSecret: secret(), description: "test", expirySecs: opts.expirySecs ?? 3600, minFinalCltvExpiryDelta: 40,
  }, PAYEE_NODE);
}

/**
 * An HTLC-recv VTXO as the server grants it: a signed board of a server-pool key, spent by an
 * arkoor without checkpoint to `policy`, signed for both roles. Returns it with its anchor tx.
 */
export function grantedVtxo(policy: VtxoPolicy, amount: bigint, expiryHeight = 1_000): { vtxo: Vtxo; anchorHex: string } {
  const pool = secret();
  const poolPk = pubkeyFromSecret(pool);
  const params = { userPubkey: poolPk, serverPubkey: SERVER.pk, expiryHeight, exitDelta: EXIT_DELTA };
  const funding: Transaction = {
    version: 2, locktime: 0,
    inputs: [{ prevout: { txid: new Uint8Array(randomBytes(32)), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }],
    outputs: [{ value: amount, script: boardFundingTaproot(params).scriptPubKey }],
  };
  const exit = buildBoardExit(params, { txid: txid(funding), vout: 0 }, amount, 0n);
  const nonce = musigNonceGen({ pubkey: poolPk, secretKey: pool, aggregateKey: musigTweakedKey([poolPk, SERVER.pk], exit.tweak), message: exit.sighash });
  const response = musigRespondCosign({ secretKey: SERVER.sk, pubkey: SERVER.pk, otherPubkey: poolPk, otherPubNonce: nonce.pubNonce, message: exit.sighash, tweak: exit.tweak });
  const sig = musigCompleteCosign({ secretKey: pool, pubkey: poolPk, nonce, otherPubkey: SERVER.pk, response, message: exit.sighash, tweak: exit.tweak });
  const board = boardVtxo(exit, sig);
  const pkg = buildArkoorPackage([board], [{ amount, policy }], { useCheckpoint: false });
  const keyFor = () => pool;
  const nonces = arkoorUserNonces(pkg, keyFor);
  const responses = arkoorServerCosign(pkg, SERVER.sk, arkoorPubNonces(nonces));
  const vtxos = arkoorPackageVtxos(pkg, arkoorUserFinish(pkg, keyFor, nonces, responses)) as Vtxo[];
  return { vtxo: vtxos[0]!, anchorHex: toHex(encodeTx(funding)) };
}

/** The server's half of a claim: cosigns the package the wallet built over `htlcs`. */
export function cosignClaim(htlcs: readonly Vtxo[], parts: readonly ArkoorCosignPart[]): ArkoorCosignResponse[] {
  const outputs = parts.flatMap((p) => p.outputs.map((o) => ({ amount: o.amount, policy: decodeUserPolicy(o.policy) })));
  const pkg = buildArkoorPackage(htlcs, outputs, { requirePubkeyInputs: false });
  const res = arkoorServerCosign(pkg, SERVER.sk, parts.map((p) => [...p.userPubNonces]));
  return res.map((r) => ({ serverPubNonces: r.map((x) => x.pubNonce), serverPartialSigs: r.map((x) => x.partialSig) }));
}

export const arkInfo = {
  serverPubkey: SERVER.pk, vtxoExitDelta: EXIT_DELTA, htlcExpiryDelta: HTLC_EXPIRY_DELTA, maxUserInvoiceCltvDelta: 400, maxVtxoAmount: undefined as bigint | undefined,
  lnReceiveAntiDosRequired: false, maxVtxoExitDepth: 0, fees: captaindDefaultFeeSchedule(),
};

export const receiveStatus = (state: LightningReceiveStatus["state"], invoice = "", amountSat = 0n): LightningReceiveStatus => ({ invoice, amountSat, state, htlcVtxoIds: [] });

/** What the fake rail saw. */
export interface RailLog { added: [string, string, string | null][]; spent: string[][]; created: Record<string, unknown>[]; updates: [number, Record<string, unknown>][]; warnings: string[] }

export interface StoredFake { id: string; vtxo: Vtxo; amountSat: bigint; state: string; lockedBy: string | null; createdAtMs: number }

/** A receive rail over fakes: `server` is filled in per test; keys derive from a fixed list of secrets. */
export function fakeRail(db: Database, server: Record<string, unknown>, opts: { tip: () => number; anchors: Map<string, string>; keySecrets: Uint8Array[] }) {
  const log: RailLog = { added: [], spent: [], created: [], updates: [], warnings: [] };
  const store = new Map<string, StoredFake>();
  const movements: { id: number; subsystem: { name: string; kind: string }; status: string; metadata: Record<string, unknown> }[] = [];
  const keyOf = (sk: Uint8Array, index: number) => ({ index, publicKey: pubkeyFromSecret(sk), secretKey: sk });
  let next = 0;
  const rail = {
    // the test's own object, so a test may swap a method after the rail exists
    server: Object.assign(server, { connect: async () => ({ arkInfo }) }) as unknown as LightningReceiveRail["server"],
    db, network: "regtest", settings: { vtxo_exit_margin: 12, htlc_recv_claim_delta: 18, vtxo_refresh_expiry_threshold: 12, lightning_receive_claim_retries: 3 },
    logger: { ...silentLogger, warn: (m: string) => log.warnings.push(m) },
    tipHeight: async () => opts.tip(),
    getTxHex: async (id: string) => opts.anchors.get(id),
    keys: {
      nextVtxoKey: async () => keyOf(opts.keySecrets[next]!, next++),
      deriveVtxoKey: (i: number) => keyOf(opts.keySecrets[i]!, i),
      mailboxKey: () => keyOf(opts.keySecrets[opts.keySecrets.length - 1]!, 999),
      keyByPubkey: async (pk: Uint8Array) => opts.keySecrets.map(keyOf).find((k) => toHex(k.publicKey) === toHex(pk)),
      isOwnPubkey: async (pk: Uint8Array) => opts.keySecrets.some((sk) => toHex(pubkeyFromSecret(sk)) === toHex(pk)),
    },
    vtxos: {
      get: async (id: string) => store.get(id),
      add: async (v: Vtxo, state: string, lockedBy: string | null = null) => {
        log.added.push([vtxoIdString(v), state, lockedBy]);
        store.set(vtxoIdString(v), { id: vtxoIdString(v), vtxo: v, amountSat: v.amount, state, lockedBy, createdAtMs: Date.now() });
        return true;
      },
      list: async (states: string[]) => [...store.values()].filter((v) => states.includes(v.state)),
      lockedBy: async (id: string) => [...store.values()].filter((v) => v.state === "locked" && v.lockedBy === id),
      markSpent: async (ids: string[]) => {
        log.spent.push(ids);
        for (const id of ids) { const v = store.get(id); if (v) store.set(id, { ...v, state: "spent", lockedBy: null }); }
      },
    },
    movements: {
      list: async () => movements,
      create: async (m: Record<string, unknown>) => {
        log.created.push(m);
        const row = { id: movements.length + 1, subsystem: m.subsystem as { name: string; kind: string }, status: (m.status as string) ?? "pending", metadata: (m.metadata ?? {}) as Record<string, unknown> };
        movements.push(row);
        return row;
      },
      update: async (id: number, c: Record<string, unknown>) => {
        log.updates.push([id, c]);
        const row = movements.find((m) => m.id === id)!;
        if (c.status) row.status = c.status as string;
        if (c.metadata) row.metadata = { ...row.metadata, ...(c.metadata as object) };
        return row;
      },
    },
    locks: {},
  } as unknown as LightningReceiveRail;
  return { rail, log, store, movements };
}

/**
 * A stand-in for the kernel's ActionEngine holding rows in memory: `start` saves the row (and a
 * copy of it, as it was saved before any step ran) and drives; the steps run for real.
 */
export class MemoryEngine {
  readonly rows = new Map<string, { kind: string; step: string; state: unknown; error?: string; createdAt: number }>();
  /** The state each action had when it was first saved, before its first step. */
  readonly savedBeforeFirstStep = new Map<string, unknown>();
  constructor(private readonly def: ActionDefinition<any>) {}

  async start<S>(kind: string, state: S, id: string): Promise<ActionStatus<S>> {
    if (!this.rows.has(id)) {
      this.rows.set(id, { kind, step: this.def.firstStep, state: structuredClone(state), createdAt: this.rows.size });
      this.savedBeforeFirstStep.set(id, structuredClone(state));
    }
    return (await this.drive(id)) as ActionStatus<S>;
  }

  async drive(id: string): Promise<ActionStatus> {
    for (;;) {
      const r = this.rows.get(id)!;
      if (r.step === "done" || r.step === "failed") return this.snapshot(id);
      const out = await this.def.steps[r.step]!(structuredClone(r.state), { id });
      if ("waitMs" in out) { if (out.state !== undefined) r.state = out.state; return this.snapshot(id); }
      r.state = out.state;
      if ("next" in out) { r.step = out.next; continue; }
      r.step = "done" in out ? "done" : "failed";
      if ("failed" in out) r.error = out.failed;
      await this.def.onEnd?.(id, r.step as "done" | "failed", out.state, r.error);
    }
  }

  async status<S>(id: string): Promise<ActionStatus<S> | undefined> {
    return this.rows.has(id) ? (this.snapshot(id) as ActionStatus<S>) : undefined;
  }

  async unfinished<S>(kind: string): Promise<ActionStatus<S>[]> {
    return [...this.rows.entries()].filter(([, r]) => r.kind === kind && r.step !== "done" && r.step !== "failed").map(([id]) => this.snapshot(id) as ActionStatus<S>);
  }

  private snapshot(id: string): ActionStatus {
    const r = this.rows.get(id)!;
    return { id, kind: r.kind, step: r.step, state: structuredClone(r.state), ...(r.error ? { error: r.error } : {}) };
  }

  asEngine(): ActionEngine {
    return this as unknown as ActionEngine;
  }
}
