/**
 * In-memory fakes of the board action's ports: a server that co-signs with a real MuSig2 key (or
 * refuses), deterministic VTXO keys, a funding wallet that makes a real transaction paying the
 * board script, a scripted chain, and stores that count their writes.
 */
import { ChainSourceRejectedError, type Logger, type OutputSpend, type TxStatus } from "@tender/core";
import {
  boardFee, buildBoardExit, decodeTx, encodeTx, fromHex, musigRespondCosign, pubkeyFromSecret, reverseBytes, toHex, txidHex, vtxoIdString, type Transaction, type Vtxo,
} from "@tender/ark-protocol";
import type { HeldExitOutcome } from "@tender/plugin-ark";
import type { BoardCosignCall, BoardPorts, BoardServerInfo, FundingTx } from "../src/board-ports.js";
import { BoardRefusedError } from "../src/errors.js";

const secret = (n: number) => { const k = new Uint8Array(32); k[31] = n; k[0] = 1; return k; };

export const SERVER_SECRET = secret(7);
export const INFO: BoardServerInfo = {
  serverPubkey: pubkeyFromSecret(SERVER_SECRET), vtxoLifetime: 432, vtxoExitDelta: 12, minBoardAmountSat: 20_000n,
  maxVtxoAmountSat: 10_000_000n, requiredBoardConfirmations: 2, boardFees: { minFeeSat: 0n, baseFeeSat: 100n, ppm: 10_000n },
};

export const silentLogger: Logger = {
  trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined,
  child: () => silentLogger,
} as unknown as Logger;

const COIN_TXID = "11".repeat(32);

/** All fakes, with what they recorded. */
export class FakeWorld {
  tip = 200;
  readonly calls = { cosign: [] as BoardCosignCall[], register: [] as Uint8Array[], broadcast: [] as string[], build: [] as { amount: bigint | "all"; exclude: string[] }[] };
  readonly vtxos = new Map<string, { vtxo: Vtxo; state: string; lockedBy: string | null }>();
  readonly movements = new Map<number, { anchor: string; status: string; fields: Record<string, unknown> }>();
  readonly statuses = new Map<string, TxStatus>();
  readonly outspends = new Map<string, OutputSpend>();
  /** Coins of the wallet, `value` each. */
  walletCoins = [150_000n];
  /** Funding txs the wallet holds, and what it was told. */
  readonly held = new Set<string>();
  readonly noted: string[] = [];
  /** VTXO ids posted to the recovery mailbox. */
  readonly backedUp: string[] = [];
  readonly released: string[] = [];
  cosignBehaviour: "sign" | "refuse" | "bad-signature" = "sign";
  registerFails = false;
  broadcastRefusal: string | undefined;
  /** The exits rail: loaded (with the wallet's refresh threshold), what it was asked, and how far its exits got. */
  exitsLoaded = true;
  exitThreshold = 12;
  exitStartFails = false;
  exitOutcome: HeldExitOutcome = "in-progress";
  readonly exitsStarted: { vtxoId: string; holder: string }[] = [];
  private keyIndex = 0;

  readonly ports: BoardPorts = {
    server: {
      info: async () => INFO,
      requestBoardCosign: async (c) => {
        this.calls.cosign.push(c);
        if (this.cosignBehaviour === "refuse") throw new Error("bad user input: board amount must be at least 20000 sat");
        const funding = decodeTx(c.fundingTx);
        const board = buildBoardExit(
          { userPubkey: c.userPubkey, serverPubkey: INFO.serverPubkey, expiryHeight: c.expiryHeight, exitDelta: INFO.vtxoExitDelta },
          { txid: reverseBytes(fromHex(txidHex(funding))), vout: 0 }, c.amountSat, boardFee(INFO.boardFees, c.amountSat),
        );
        const r = musigRespondCosign({
          secretKey: SERVER_SECRET, pubkey: INFO.serverPubkey, otherPubkey: c.userPubkey, otherPubNonce: c.pubNonce, message: board.sighash, tweak: board.tweak,
        });
        if (this.cosignBehaviour === "bad-signature") r.partialSig[5] = r.partialSig[5]! ^ 1;
        return r;
      },
      backupVtxoId: async (id) => { this.backedUp.push(id); },
      registerBoardVtxo: async (v) => {
        this.calls.register.push(v);
        if (this.registerFails) throw new Error("funding tx has 1 confirmations, requires 2");
      },
    },
    keys: {
      nextVtxoKey: async () => pubkeyFromSecret(secret(100 + this.keyIndex++)),
      secretKeyFor: async (pub) => {
        for (let i = 0; i < this.keyIndex; i++) if (toHex(pubkeyFromSecret(secret(100 + i))) === toHex(pub)) return secret(100 + i);
        throw new Error("unknown key");
      },
    },
    vtxos: {
      storeLocked: async (vtxo, actionId) => {
        const id = vtxoIdString(vtxo);
        if (!this.vtxos.has(id)) this.vtxos.set(id, { vtxo, state: "locked", lockedBy: actionId });
      },
      markSpendable: async (id) => { const v = this.vtxos.get(id); if (v) { v.state = "spendable"; v.lockedBy = null; } },
      isExited: async (id) => this.vtxos.get(id)?.state === "exited",
      markSpent: async (id) => { const v = this.vtxos.get(id); if (v) { v.state = "spent"; v.lockedBy = null; } },
    },
    wallet: {
      buildFunding: async (script, amount, exclude) => {
        this.calls.build.push({ amount, exclude: [...exclude] });
        const free = this.walletCoins.map((value, i) => ({ value, id: `${COIN_TXID}:${i}`, vout: i })).filter((c) => !exclude.has(c.id));
        const fee = 500n;
        // Board-all takes every free coin; an amount takes coins in order until it and the fee are covered.
        const coins = amount === "all" ? free : [];
        if (amount !== "all") {
          for (const c of free) {
            if (coins.reduce((t, x) => t + x.value, 0n) >= amount + fee) break;
            coins.push(c);
          }
        }
        const total = coins.reduce((t, c) => t + c.value, 0n);
        const value = amount === "all" ? total - fee : amount;
        if (coins.length === 0 || value + fee > total) throw new BoardRefusedError(`Insufficient funds: needed ${value + fee} sats`);
        const tx: Transaction = {
          version: 2, locktime: 0,
          inputs: coins.map((c) => ({ prevout: { txid: reverseBytes(fromHex(COIN_TXID)), vout: c.vout }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] })),
          outputs: [{ value, script }, ...(amount === "all" ? [] : [{ value: total - value - fee, script: new Uint8Array([0x51, 0x20, ...new Uint8Array(32)]) }])],
        };
        const funding: FundingTx = {
          txid: txidHex(tx), hex: toHex(encodeTx(tx)), vout: 0, amountSat: value, onchainFeeSat: fee, inputs: coins.map((c) => c.id),
        };
        return funding;
      },
      hold: async (f) => { this.held.add(f.txid); },
      noteBroadcast: async (txid) => { this.noted.push(txid); },
      release: async (txid) => { this.held.delete(txid); this.released.push(txid); },
    },
    chain: {
      tipHeight: async () => this.tip,
      txStatus: async (txid) => this.statuses.get(txid) ?? null,
      outspend: async (txid, vout) => this.outspends.get(`${txid}:${vout}`) ?? { spent: false },
      broadcast: async (hex) => {
        this.calls.broadcast.push(hex);
        if (this.broadcastRefusal) throw new ChainSourceRejectedError("fake", this.broadcastRefusal);
        this.statuses.set(txidHex(decodeTx(fromHex(hex))), { confirmed: false });
      },
    },
    exits: {
      threshold: async () => (this.exitsLoaded ? this.exitThreshold : undefined),
      start: async (vtxoId, holder) => {
        if (!this.exitsLoaded || this.exitStartFails) throw new Error("the exits rail could not read the chain tip");
        if (!this.exitsStarted.some((e) => e.vtxoId === vtxoId)) this.exitsStarted.push({ vtxoId, holder });
      },
      outcome: async (vtxoId) => (this.exitsLoaded && this.exitsStarted.some((e) => e.vtxoId === vtxoId) ? this.exitOutcome : "none"),
    },
    movements: {
      findByAnchor: async (anchor) => [...this.movements].find(([, m]) => m.anchor === anchor)?.[0],
      create: async (m) => {
        const id = this.movements.size + 1;
        this.movements.set(id, { anchor: m.chainAnchor, status: "pending", fields: { ...m } });
        return id;
      },
      finish: async (id, status) => { this.movements.get(id)!.status = status; },
    },
  };

  /** Confirms `txid` at `height`. */
  confirm(txid: string, height: number): void {
    this.statuses.set(txid, { confirmed: true, block: { height, hash: "00".repeat(32) }, blockTime: 0 });
  }

  /** The coin the fake wallet spends first. */
  static readonly COIN_TXID = COIN_TXID;
}

/** What the kernel's engine does when a step ends the action: runs `onEnd` (same transaction there). */
export async function endLikeEngine<S>(def: import("@tender/core").ActionDefinition<S>, id: string, out: import("@tender/core").StepOutcome<S>): Promise<import("@tender/core").StepOutcome<S>> {
  if ("done" in out) await def.onEnd?.(id, "done", out.state);
  else if ("failed" in out) await def.onEnd?.(id, "failed", out.state, out.failed);
  return out;
}
