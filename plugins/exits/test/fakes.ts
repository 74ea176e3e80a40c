/**
 * Fakes of the exits' ports: a chain with a mempool and blocks (package submission, outspends,
 * eviction, reorgs), an on-chain wallet that funds children from a list of coins, the VTXO store
 * with locks, keys, movements; and a board VTXO signed by a test user and server.
 */
import { silentLogger, ChainSourceRejectedError, type OutputSpend, type TxStatus } from "@tender/core";
import {
  boardVtxo, buildBoardExit, decodeTx, encodeTx, fromHex, musigCompleteCosign, musigNonceGen, musigRespondCosign, musigTweakedKey,
  pubkeyFromSecret, reverseBytes, toHex, txVsize, txidHex, vtxoIdString, type Transaction, type Vtxo,
} from "@tender/ark-protocol";
import type { ExitPorts, ExitVtxoView } from "../src/exit-ports.js";

const secret = (n: number): Uint8Array => {
  const s = new Uint8Array(32);
  s[31] = n;
  return s;
};
export const USER_SECRET = secret(7);
export const SERVER_SECRET = secret(9);
export const EXIT_DELTA = 12;

/** A board VTXO of `amount` sat on a funding tx the fake chain will confirm (`fundingTxid`). */
export function signedBoardVtxo(amount = 100_000n, salt = 1): { vtxo: Vtxo; fundingTxid: string } {
  const fundingTxid = toHex(new Uint8Array(32).fill(salt));
  const U = pubkeyFromSecret(USER_SECRET);
  const S = pubkeyFromSecret(SERVER_SECRET);
  const board = buildBoardExit({ userPubkey: U, serverPubkey: S, expiryHeight: 5_000, exitDelta: EXIT_DELTA }, { txid: reverseBytes(fromHex(fundingTxid)), vout: 0 }, amount, 0n);
  const nonce = musigNonceGen({ pubkey: U, secretKey: USER_SECRET, aggregateKey: musigTweakedKey([U, S], board.tweak), message: board.sighash });
  const r = musigRespondCosign({ secretKey: SERVER_SECRET, pubkey: S, otherPubkey: U, otherPubNonce: nonce.pubNonce, message: board.sighash, tweak: board.tweak });
  const sig = musigCompleteCosign({ secretKey: USER_SECRET, pubkey: U, nonce, otherPubkey: S, response: r, message: board.sighash, tweak: board.tweak });
  return { vtxo: boardVtxo(board, sig), fundingTxid };
}

interface ChainTx { hex: string; tx: Transaction; block: { height: number; hash: string } | null }

/** A chain: known txs (mempool or mined), a tip, package submission with refusals on demand. */
export class FakeChain {
  readonly txs = new Map<string, ChainTx>();
  height = 200;
  readonly hashes = new Map<number, string>();
  refuseNext: string | undefined;
  readonly submitted: string[][] = [];

  constructor() {
    for (let h = 0; h <= this.height; h++) this.hashes.set(h, this.hashOf(h, 0));
  }
  private hashOf(h: number, fork: number): string {
    return toHex(new Uint8Array(32).fill((h * 7 + fork * 13) % 251)).slice(0, 60) + h.toString(16).padStart(4, "0");
  }
  /** A tx known to be confirmed at the tip (a funding tx). */
  confirmedOutside(txid: string): void {
    this.txs.set(txid, { hex: "", tx: { version: 2, locktime: 0, inputs: [], outputs: [] }, block: { height: this.height, hash: this.hashes.get(this.height)! } });
  }
  mine(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.height++;
      this.hashes.set(this.height, this.hashOf(this.height, 0));
      for (const t of this.txs.values()) if (!t.block) t.block = { height: this.height, hash: this.hashes.get(this.height)! };
    }
  }
  /** The last block is replaced by an empty one: its txs are back in the mempool. */
  reorgLast(): void {
    for (const t of this.txs.values()) if (t.block?.height === this.height) t.block = null;
    this.hashes.set(this.height, this.hashOf(this.height, 1));
  }
  evict(txid: string): void {
    this.txs.delete(txid);
    for (const [id, t] of this.txs) if (!t.block && t.tx.inputs.some((i) => toHex(reverseBytes(i.prevout.txid)) === txid)) this.txs.delete(id);
  }
  private add(hex: string): void {
    const tx = decodeTx(fromHex(hex));
    const txid = txidHex(tx);
    if (this.txs.has(txid)) return;
    // a new spend of an outpoint evicts the earlier unconfirmed spender (replacement)
    for (const i of tx.inputs) {
      const spender = this.spenderOf(toHex(reverseBytes(i.prevout.txid)), i.prevout.vout);
      if (spender && !this.txs.get(spender)!.block) this.evict(spender);
    }
    this.txs.set(txid, { hex, tx, block: null });
  }
  spenderOf(txid: string, vout: number): string | undefined {
    for (const [id, t] of this.txs) if (t.tx.inputs.some((i) => toHex(reverseBytes(i.prevout.txid)) === txid && i.prevout.vout === vout)) return id;
    return undefined;
  }
  status(txid: string): TxStatus | null {
    const t = this.txs.get(txid);
    if (!t) return null;
    return t.block ? { confirmed: true, block: t.block, blockTime: 0 } : { confirmed: false };
  }

  readonly port: ExitPorts["chain"] = {
    tip: async () => ({ height: this.height, hash: this.hashes.get(this.height)! }),
    blockHashAt: async (h) => this.hashes.get(h) ?? null,
    txStatus: async (txid) => this.status(txid),
    txHex: async (txid) => this.txs.get(txid)?.hex || null,
    outspend: async (txid, vout): Promise<OutputSpend> => {
      const s = this.spenderOf(txid, vout);
      return s ? { spent: true, txid: s, vin: 0, status: this.status(s)! } : { spent: false };
    },
    broadcast: async (hex) => {
      if (this.refuseNext) {
        const reason = this.refuseNext;
        this.refuseNext = undefined;
        throw new ChainSourceRejectedError("fake", reason);
      }
      this.add(hex);
    },
    broadcastPackage: async (hexes) => {
      this.submitted.push([...hexes]);
      if (this.refuseNext) {
        const reason = this.refuseNext;
        this.refuseNext = undefined;
        throw new ChainSourceRejectedError("fake", reason);
      }
      for (const h of hexes) this.add(h);
    },
  };
}

/** Everything the exits talk to, faked, with a record of what happened. */
export class FakeExitWorld {
  readonly chain = new FakeChain();
  readonly vtxos = new Map<string, { vtxo: Vtxo; state: ExitVtxoView["state"]; lockedBy: string | null }>();
  /** Wallet coins (values) children may spend, and what the wallet holds / noted. */
  coins: bigint[] = [500_000n];
  readonly held = new Set<string>();
  readonly noted: string[] = [];
  readonly released: string[] = [];
  readonly replaced: string[] = [];
  readonly fundRequests: Parameters<ExitPorts["wallet"]["fundChild"]>[0][] = [];
  readonly movements = new Map<number, string>();
  fastSatPerKvb = 20_000n;
  /** Fresh wallet addresses handed out (for automatic claims). */
  freshScripts = 0;
  private coinSeq = 0;
  /** The coin each child spends (a replacement re-spends its predecessor's; a release returns it). */
  private readonly coinOf = new Map<string, bigint>();

  add(vtxo: Vtxo): string {
    const id = vtxoIdString(vtxo);
    this.vtxos.set(id, { vtxo, state: "spendable", lockedBy: null });
    return id;
  }

  readonly ports: ExitPorts = {
    chain: this.chain.port,
    wallet: {
      sync: async () => undefined,
      feeRates: async () => ({ fastSatPerKvb: this.fastSatPerKvb, regularSatPerKvb: 10_000n }),
      fundChild: async (req) => {
        this.fundRequests.push(req);
        const reused = req.replaces !== undefined ? this.coinOf.get(req.replaces) : undefined;
        const coin = reused ?? this.coins.shift();
        if (coin === undefined) throw Object.assign(new Error("Insufficient funds"), { neededSat: 1_000n, availableSat: 0n });
        const coinTxid = new Uint8Array(32).fill(200 + (this.coinSeq++ % 50));
        const probe: Transaction = {
          version: 3, locktime: 0,
          inputs: [
            { prevout: { txid: reverseBytes(fromHex(req.parentTxid)), vout: req.anchorVout }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [new Uint8Array(0)] },
            { prevout: { txid: coinTxid, vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [new Uint8Array(64)] },
          ],
          outputs: [{ value: 0n, script: fromHex("5120" + "11".repeat(32)) }],
        };
        const vsize = txVsize(probe);
        let fee = (req.satPerKvb * BigInt(vsize + req.parentVsize) + 999n) / 1000n;
        if (req.minFeeSat !== undefined && fee < req.minFeeSat) fee = req.minFeeSat;
        const tx = { ...probe, outputs: [{ value: coin + req.anchorValueSat - fee, script: probe.outputs[0]!.script }] };
        const txid = txidHex(tx);
        this.held.add(txid);
        this.coinOf.set(txid, coin);
        return { txid, hex: toHex(encodeTx(tx)), feeSat: fee, vsize };
      },
      noteBroadcast: async (txid) => {
        this.held.delete(txid);
        this.noted.push(txid);
      },
      release: async (txid) => {
        this.held.delete(txid);
        this.released.push(txid);
        const coin = this.coinOf.get(txid);
        if (coin !== undefined && ![...this.coinOf].some(([other, c]) => other !== txid && c === coin && !this.released.includes(other))) this.coins.push(coin);
      },
      markReplaced: async (txid) => { this.replaced.push(txid); },
      heldChildren: async () => [...this.held],
      confirmedCoins: async () => [...this.coins],
      destinationScript: async () => fromHex("5120" + "22".repeat(32)),
      placeholderScript: async () => fromHex("5120" + "33".repeat(32)),
      ownsScript: async () => false,
      holdClaim: async () => undefined,
      addressOf: async () => "bcrt1ptest",
      freshScript: async () => {
        this.freshScripts++;
        return fromHex("5120" + "66".repeat(32));
      },
    },
    vtxos: {
      get: async (id) => {
        const v = this.vtxos.get(id);
        return v ? { id, ...v } : undefined;
      },
      listUnspent: async () => [...this.vtxos].filter(([, v]) => v.state === "spendable" || v.state === "locked").map(([id, v]) => ({ id, ...v })),
      tryLock: async (id, lockId) => {
        const v = this.vtxos.get(id);
        if (!v || (v.state !== "spendable" && v.lockedBy !== lockId)) return false;
        v.state = "locked";
        v.lockedBy = lockId;
        return true;
      },
      release: async (lockId) => {
        for (const v of this.vtxos.values()) if (v.state === "locked" && v.lockedBy === lockId) Object.assign(v, { state: "spendable", lockedBy: null });
      },
      markExited: async (id) => { Object.assign(this.vtxos.get(id)!, { state: "exited", lockedBy: null }); },
    },
    keys: { secretKeyFor: async (pub) => (toHex(pub) === toHex(pubkeyFromSecret(USER_SECRET)) ? USER_SECRET : undefined) },
    movements: {
      create: async () => {
        const id = this.movements.size + 1;
        this.movements.set(id, "pending");
        return id;
      },
      finish: async (id, status) => { this.movements.set(id, status); },
    },
    atomically: (fn) => fn(),
  };
}

export const logger = silentLogger;
