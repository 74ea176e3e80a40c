/**
 * What the exits plugin persists, and the store interface over it. An exit is keyed by its VTXO
 * id (a restarted exit replaces the canceled one, moving to the end of the storage order); its
 * state and the states it went through are kept as bark's serde JSON. CPFP children and claim
 * transactions are written before they are broadcast, so a crash never loses one that may be out.
 */
import type { ExitState, ExitTxOrigin } from "@tender/ark-protocol";

/** One exit of one VTXO. */
export interface ExitRecord {
  readonly vtxoId: string;
  /** Storage order: the order the status listings answer in. */
  readonly seq: number;
  readonly amountSat: bigint;
  readonly state: ExitState;
  /** Earlier states, oldest first. */
  readonly history: readonly ExitState[];
  readonly movementId: number | null;
  /** The VTXO lock this exit holds (`exit.<seq>`), `null` when another action held the VTXO at start. */
  readonly lockId: string | null;
  readonly createdAtMs: number;
}

/** `built`: signed and held, maybe broadcast; `broadcast`: accepted; `replaced`/`dropped`: never to confirm. */
export type ChildStatus = "built" | "broadcast" | "replaced" | "dropped";

/** A CPFP child of one exit transaction. */
export interface ExitChildRecord {
  readonly childTxid: string;
  readonly exitTxid: string;
  readonly hex: string;
  /** The child's own fee (the exit tx pays none). */
  readonly feeSat: bigint;
  readonly vsize: number;
  /** Built by this wallet (origin `wallet`), or found on the network (adopted). */
  readonly ours: boolean;
  /** Where it came from and, once known, the block that confirmed it. */
  readonly origin: ExitTxOrigin;
  readonly status: ChildStatus;
  readonly createdAtMs: number;
}

/** A claim (sweep) transaction. */
export interface ExitClaimRecord {
  readonly txid: string;
  readonly hex: string;
  readonly vtxoIds: readonly string[];
  readonly feeSat: bigint;
  /** The destination is the on-chain wallet's: the wallet holds the claim and lists it once broadcast. */
  readonly ownDestination: boolean;
  readonly status: "built" | "broadcast" | "dropped";
  readonly createdAtMs: number;
}

/** Where exits are kept. Every save is an upsert by key. */
export interface ExitStore {
  /** Every exit, in storage order. */
  exits(): Promise<ExitRecord[]>;
  exit(vtxoId: string): Promise<ExitRecord | undefined>;
  saveExit(r: ExitRecord): Promise<void>;
  /** A storage position after every existing one. */
  nextSeq(): Promise<number>;
  /** Children of `exitTxid` (all when omitted), oldest first. */
  children(exitTxid?: string): Promise<ExitChildRecord[]>;
  saveChild(c: ExitChildRecord): Promise<void>;
  claims(): Promise<ExitClaimRecord[]>;
  saveClaim(c: ExitClaimRecord): Promise<void>;
  /** The preimage of `paymentHash` (hex), kept for HTLC-recv claims. */
  preimage(paymentHash: string): Promise<string | undefined>;
  /** Keeps `preimage` (hex) of `paymentHash` (hex); saving it again is a no-op. */
  savePreimage(paymentHash: string, preimage: string): Promise<void>;
}

/** An {@link ExitStore} in memory (unit tests). */
export class MemoryExitStore implements ExitStore {
  readonly exitRows = new Map<string, ExitRecord>();
  readonly childRows = new Map<string, ExitChildRecord>();
  readonly claimRows = new Map<string, ExitClaimRecord>();
  readonly preimageRows = new Map<string, string>();

  async exits(): Promise<ExitRecord[]> {
    return [...this.exitRows.values()].sort((a, b) => a.seq - b.seq);
  }
  async exit(vtxoId: string): Promise<ExitRecord | undefined> {
    return this.exitRows.get(vtxoId);
  }
  async saveExit(r: ExitRecord): Promise<void> {
    this.exitRows.set(r.vtxoId, r);
  }
  async nextSeq(): Promise<number> {
    return Math.max(0, ...[...this.exitRows.values()].map((r) => r.seq)) + 1;
  }
  async children(exitTxid?: string): Promise<ExitChildRecord[]> {
    return [...this.childRows.values()].filter((c) => exitTxid === undefined || c.exitTxid === exitTxid).sort((a, b) => a.createdAtMs - b.createdAtMs);
  }
  async saveChild(c: ExitChildRecord): Promise<void> {
    this.childRows.set(c.childTxid, c);
  }
  async claims(): Promise<ExitClaimRecord[]> {
    return [...this.claimRows.values()].sort((a, b) => a.createdAtMs - b.createdAtMs);
  }
  async saveClaim(c: ExitClaimRecord): Promise<void> {
    this.claimRows.set(c.txid, c);
  }
  async preimage(paymentHash: string): Promise<string | undefined> {
    return this.preimageRows.get(paymentHash);
  }
  async savePreimage(paymentHash: string, preimage: string): Promise<void> {
    this.preimageRows.set(paymentHash, preimage);
  }
}
