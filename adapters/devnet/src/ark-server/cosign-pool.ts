/**
 * Deterministic MuSig2 co-signing (`musigRespondCosignDeterministic`) on worker threads, so the
 * server's concurrent cosign requests use every core while the main thread decodes, checks and
 * commits the next ones.
 *
 * | Rule | Here |
 * |---|---|
 * | output | byte for byte what the same call gives in this thread (BIP-327 deterministic signing) |
 * | secrets | the secret key travels with each job to a thread of this process; nothing is stored, logged or reused |
 * | a job that throws | signed again in this thread, so the caller sees the original error |
 * | a thread that dies | its jobs are signed in this thread; a new thread starts on the next job |
 * | threads | `min(availableParallelism, 4)` (0 on one core), started when the server starts; an idle thread does not keep the process alive; 0 signs in this thread |
 *
 * One pool serves every server instance of the process ({@link sharedCosignPool}).
 */
import { readlinkSync } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { musigRespondCosignDeterministic, type MusigCosignResponse } from "@tender/ark-protocol";

/** One co-signature to make. */
export interface CosignJob {
  readonly secretKey: Uint8Array;
  readonly pubkey: Uint8Array;
  readonly otherPubkey: Uint8Array;
  readonly otherPubNonce: Uint8Array;
  readonly message: Uint8Array;
  readonly tweak?: Uint8Array;
}

/**
 * Main thread → worker: the jobs packed in one buffer that is transferred, not copied (a request's
 * fields are views into its larger buffers, which a structured clone would copy whole). The
 * worker zeroes it after use (it holds the secret key).
 */
export interface CosignJobMessage {
  readonly id: number;
  readonly packed: ArrayBuffer;
}

/**
 * Worker → main thread: the answers packed ({@link unpackResults}), a failure (signed again in the
 * main thread), or "loaded" with the thread's id in the operating system where known.
 */
export type CosignResultMessage = { readonly id: number; readonly packed: ArrayBuffer } | { readonly id: number; readonly failed: true } | { readonly ready: true; readonly tid?: number };

/**
 * The calling thread's id in the operating system (Linux: `/proc/thread-self` links to
 * `<pid>/task/<tid>`), or undefined elsewhere.
 */
export function osThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").at(-1));
    return Number.isSafeInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

const FIELDS = ["secretKey", "pubkey", "otherPubkey", "otherPubNonce", "message", "tweak"] as const;

/** Jobs as one buffer: per job, each field as a 2-byte length (0xffff: absent) and its bytes. */
export function packJobs(jobs: readonly CosignJob[]): ArrayBuffer {
  let size = 2;
  for (const j of jobs) for (const f of FIELDS) size += 2 + (j[f]?.length ?? 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint16(0, jobs.length);
  let at = 2;
  for (const j of jobs) {
    for (const f of FIELDS) {
      const v = j[f];
      view.setUint16(at, v ? v.length : 0xffff);
      at += 2;
      if (v) {
        out.set(v, at);
        at += v.length;
      }
    }
  }
  return out.buffer;
}

/** The jobs of {@link packJobs} (views into `packed`). */
export function unpackJobs(packed: ArrayBuffer): CosignJob[] {
  const bytes = new Uint8Array(packed);
  const view = new DataView(packed);
  const n = view.getUint16(0);
  let at = 2;
  const jobs: CosignJob[] = [];
  for (let k = 0; k < n; k++) {
    const job: Partial<Record<(typeof FIELDS)[number], Uint8Array>> = {};
    for (const f of FIELDS) {
      const len = view.getUint16(at);
      at += 2;
      if (len === 0xffff) continue;
      job[f] = bytes.subarray(at, at + len);
      at += len;
    }
    jobs.push(job as unknown as CosignJob);
  }
  return jobs;
}

/** Answers as one buffer: 66-byte nonce and 32-byte partial signature each. */
export function packResults(results: readonly MusigCosignResponse[]): ArrayBuffer {
  const out = new Uint8Array(results.length * 98);
  results.forEach((r, i) => {
    out.set(r.pubNonce, i * 98);
    out.set(r.partialSig, i * 98 + 66);
  });
  return out.buffer;
}

/** The answers of {@link packResults}. */
export function unpackResults(packed: ArrayBuffer): MusigCosignResponse[] {
  const bytes = new Uint8Array(packed);
  return Array.from({ length: bytes.length / 98 }, (_, i) => ({ pubNonce: bytes.slice(i * 98, i * 98 + 66), partialSig: bytes.slice(i * 98 + 66, i * 98 + 98) }));
}

interface Pending {
  readonly jobs: readonly CosignJob[];
  readonly resolve: (r: MusigCosignResponse[]) => void;
  readonly reject: (e: unknown) => void;
}

interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  /** Jobs sent and not answered yet. */
  load: number;
  /** Resolves once the thread has loaded its code (or is gone). */
  readonly ready: Promise<void>;
  /** The thread's id in the operating system, once loaded (Linux). */
  tid?: number;
}

/** Fewest jobs in one message to a thread (unless the call has fewer). */
const MIN_JOBS_PER_MESSAGE = 2;

/** Signs in this thread (the fallback, and the error path). */
function signHere(job: CosignJob): MusigCosignResponse {
  return musigRespondCosignDeterministic(job);
}

/** A pool of signing threads. */
export class CosignPool {
  private readonly slots: (Slot | undefined)[];
  private nextId = 1;
  /** Signatures made on the threads (tests read it). */
  readonly stats = { signatures: 0 };

  /** `threads`: how many signing threads at most (0: sign in the calling thread). */
  constructor(readonly threads: number) {
    this.slots = Array.from({ length: Math.max(0, Math.floor(threads)) }, () => undefined);
  }

  /**
   * Co-signs every job; results in job order. The jobs go out in one message per thread, at
   * least {@link MIN_JOBS_PER_MESSAGE} per message (a message costs about as much as a signature
   * to send), to the least busy threads.
   */
  async sign(jobs: readonly CosignJob[]): Promise<MusigCosignResponse[]> {
    if (this.slots.length === 0) return jobs.map(signHere);
    const messages = Math.max(1, Math.min(this.slots.length, Math.floor(jobs.length / MIN_JOBS_PER_MESSAGE)));
    const size = Math.ceil(jobs.length / messages);
    const chunks: CosignJob[][] = [];
    for (let i = 0; i < jobs.length; i += size) chunks.push(jobs.slice(i, i + size));
    return (await Promise.all(chunks.map((c) => this.send(c)))).flat();
  }

  /**
   * The operating system's ids of the threads running now (Linux; empty elsewhere): the bench
   * reads their CPU time from `/proc` (a thread's own `threadCpuUsage` lags behind by up to a
   * scheduler tick, longer than a signature).
   */
  osThreadIds(): number[] {
    return this.slots.flatMap((s) => (s?.tid === undefined ? [] : [s.tid]));
  }

  /** Starts every thread now (each loads its code once); resolves when all are ready. */
  async warm(): Promise<void> {
    await Promise.all(this.slots.map((s, i) => (s ?? this.start(i)).ready));
  }

  /** Stops the threads (jobs in flight are signed in this thread). */
  async close(): Promise<void> {
    const slots = this.slots.filter((s): s is Slot => s !== undefined);
    this.slots.fill(undefined);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private send(jobs: readonly CosignJob[]): Promise<MusigCosignResponse[]> {
    const slot = this.leastBusy();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { jobs, resolve, reject });
      slot.load += jobs.length;
      if (slot.pending.size === 1) slot.worker.ref(); // a job in flight keeps the process alive
      const packed = packJobs(jobs);
      slot.worker.postMessage({ id, packed } satisfies CosignJobMessage, [packed]);
    });
  }

  private leastBusy(): Slot {
    let best = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const s = this.slots[i];
      if (!s) {
        best = i;
        break;
      }
      if (best < 0 || s.load < this.slots[best]!.load) best = i;
    }
    return this.slots[best] ?? this.start(best);
  }

  private start(index: number): Slot {
    const worker = new Worker(new URL("./cosign-worker.js", import.meta.url));
    worker.unref();
    let loaded!: () => void;
    const slot: Slot = { worker, pending: new Map(), load: 0, ready: new Promise((r) => (loaded = r)) };
    this.slots[index] = slot;
    worker.on("message", (m: CosignResultMessage) => {
      if ("ready" in m) {
        slot.tid = m.tid;
        return loaded();
      }
      const p = slot.pending.get(m.id);
      if (!p) return;
      slot.pending.delete(m.id);
      slot.load -= p.jobs.length;
      if (slot.pending.size === 0) slot.worker.unref();
      if ("failed" in m) settleHere(p);
      else {
        this.stats.signatures += p.jobs.length;
        p.resolve(unpackResults(m.packed));
      }
    });
    const lost = () => {
      loaded();
      if (this.slots[index] === slot) this.slots[index] = undefined;
      const left = [...slot.pending.values()];
      slot.pending.clear();
      slot.load = 0;
      for (const p of left) settleHere(p);
    };
    worker.on("error", lost);
    worker.on("exit", lost);
    return slot;
  }
}

function settleHere(p: Pending): void {
  try {
    p.resolve(p.jobs.map(signHere));
  } catch (e) {
    p.reject(e);
  }
}

let shared: CosignPool | undefined;

/** The process-wide pool: `min(availableParallelism, 4)` threads, none on a single core (the messages would only add work there). */
export function sharedCosignPool(): CosignPool {
  const cores = availableParallelism();
  shared ??= new CosignPool(cores > 1 ? Math.min(cores, 4) : 0);
  return shared;
}
