/**
 * One hArk round on the reference Ark server with N participants (N = 1, 16, 64, 256 VTXOs, one
 * in-process client per VTXO, each on its own gRPC connection and running the protocol core's
 * round client): the time from the trigger to the `finished` event, the server's tree-signing
 * time (its checks of every cosigner's branch partial signatures and its final signatures), and
 * both as a multiple of N complete MuSig2 sessions measured in the same run.
 *
 * The server runs in a worker thread (its own event loop; its times are taken there); the
 * clients share the main thread. Each N gets a fresh server whose capacity 4^nb_round_nonces
 * equals N, so sign-up closes as soon as the last client joined; N = 1 cannot fill a round (4
 * places at least) and waits out a short sign-up window, shown in its note. Every client's
 * compute time is recorded too: all N of them share one thread, so "all clients done" grows
 * with N × (one client's work), which itself grows with N (each client checks the whole tree).
 */
import { Worker } from "node:worker_threads";
import { GrpcArkServer } from "@tender/ark-grpc";
import { measure, type BenchReport, type BenchRow } from "@tender/core";
import { decodeVtxo, fromHex } from "@tender/ark-protocol";
import { grpcClient } from "../ark-server/grpc-api.js";
import { BenchRoundClient } from "./round-bench-client.js";
import { musigSession } from "./round-timing.js";
import type { ServerReady, ServerRoundTimes, ServerWorkerSetup } from "./round-server-worker.js";

const SIZES = [1, 16, 64, 256];
const BOARD_SAT = 30_000n;
/** Sign-up window of a round that cannot fill up (N = 1); an in-process client joins within milliseconds. */
const SHORT_SIGNUP_MS = 300;

/** One measured round (ms). */
export interface RoundTiming {
  n: number;
  nbRoundNonces: number;
  filled: boolean;
  /** trigger → `finished` published. */
  total: number;
  /** trigger → every client checked the finished round. */
  clientsDone: number;
  /** `attempt` → `vtxo-proposal` published (sign-up, tree, funding tx). */
  signup: number;
  /** `vtxo-proposal` → last branch signatures accepted (clients check and sign, server checks). */
  signing: number;
  /** last branch signatures accepted → `finished` published (final signatures, funding tx, storage, broadcast). */
  finish: number;
  branchChecks: number;
  finalSignatures: number;
  /** Mean compute time of one client over the round. */
  clientCompute: number;
}

/** The smallest nb_round_nonces whose 4^n places hold `n` outputs (at least 1). */
function noncesFor(n: number): number {
  let k = 1;
  while (4 ** k < n) k++;
  return k;
}

/** A worker thread running the server; `next(type)` waits for its next message of that type. */
function serverWorker(setup: ServerWorkerSetup): { worker: Worker; next: <T>(type: string) => Promise<T> } {
  const worker = new Worker(new URL("./round-server-worker.js", import.meta.url), { workerData: setup });
  const waiting = new Map<string, { resolve: (m: unknown) => void; reject: (e: Error) => void }>();
  const failAll = (e: Error) => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  worker.on("message", (m: { type: string; message?: string }) => {
    if (m.type === "error") return failAll(new Error(`round server worker: ${m.message}`));
    waiting.get(m.type)?.resolve(m);
    waiting.delete(m.type);
  });
  worker.on("error", failAll);
  worker.on("exit", (code) => failAll(new Error(`round server worker exited (${code})`)));
  return { worker, next: <T>(type: string) => new Promise<T>((resolve, reject) => waiting.set(type, { resolve: resolve as (m: unknown) => void, reject })) };
}

export async function measureRound(n: number): Promise<RoundTiming> {
  const nbRoundNonces = noncesFor(n);
  const filled = 4 ** nbRoundNonces === n;
  const { worker, next } = serverWorker({
    clients: n,
    boardSat: BOARD_SAT.toString(),
    nbRoundNonces,
    roundSubmitTimeMs: filled ? 60_000 : SHORT_SIGNUP_MS,
    roundSignTimeMs: 60_000,
  });
  const ports: GrpcArkServer[] = [];
  const clients: BenchRoundClient[] = [];
  try {
    const ready = await next<ServerReady>("ready");
    const port = () => {
      const p = new GrpcArkServer(grpcClient(ready.url));
      ports.push(p);
      return p;
    };
    const info = (await port().connect()).arkInfo;
    const server = { serverPubkey: info.serverPubkey, vtxoExitDelta: info.vtxoExitDelta, vtxoLifetime: info.vtxoLifetime, nbRoundNonces: info.nbRoundNonces, refreshFees: info.fees.refresh };
    for (const b of ready.boards) {
      clients.push(new BenchRoundClient(port(), { vtxo: decodeVtxo(fromHex(b.vtxo)), secretKey: fromHex(b.secretKey) }, server, ready.tipHeight).start());
    }
    // every subscription stream is open before the round starts
    await new Promise((r) => setTimeout(r, 300));
    const timings = next<ServerRoundTimes>("timings");
    worker.postMessage({ type: "trigger" });
    const t = await timings;
    await Promise.all(clients.map((c) => c.done));
    if (clients.some((c) => c.vtxos.length !== 1)) throw new Error(`round of ${n}: a client did not get its VTXO`);
    const stopped = next("stopped");
    worker.postMessage({ type: "stop" });
    await stopped;
    return {
      n,
      nbRoundNonces,
      filled,
      total: t.finished - t.triggered,
      clientsDone: Math.max(...clients.map((c) => c.doneAt)) - t.triggered,
      signup: t.proposal - t.attempt,
      signing: t.lastBranchCheckAt - t.proposal,
      finish: t.finished - t.lastBranchCheckAt,
      branchChecks: t.branchChecksMs,
      finalSignatures: t.finalSignaturesMs,
      clientCompute: clients.reduce((s, c) => s + c.computeMs, 0) / n,
    };
  } finally {
    await Promise.all(clients.map((c) => c.stop()));
    for (const p of ports) p.close();
    await worker.terminate();
  }
}

const ms = (x: number) => `${x.toFixed(1)} ms`;

export default async function roundsBench(): Promise<BenchReport> {
  const sessionPerSec = await measure(musigSession(), 1000);
  const sessionMs = 1000 / sessionPerSec;
  const rows: BenchRow[] = [
    { name: "one MuSig2 session (2 signers: tweaked KeyAgg, 2 nonces, 2 partial signs, aggregate)", opsPerSec: sessionPerSec, note: `${(sessionMs * 1000).toFixed(0)} µs; the unit of the ratios below` },
  ];
  for (const n of SIZES) {
    const t = await measureRound(n);
    const unit = n * sessionMs;
    const server = t.branchChecks + t.finalSignatures;
    const signup = t.filled ? "closed when full" : `capacity ${4 ** t.nbRoundNonces}: closed by its ${SHORT_SIGNUP_MS} ms window`;
    rows.push(
      {
        name: `round, N=${n} (in-process clients): trigger → finished`,
        opsPerSec: 1000 / t.total,
        note: `${ms(t.total)} = ${(t.total / unit).toFixed(1)} × N sessions (${ms(unit)}); sign-up ${ms(t.signup)} (${signup}), signing ${ms(t.signing)}, last signature → finished ${ms(t.finish)}; all clients done ${ms(t.clientsDone)}, one client computes ${ms(t.clientCompute)}`,
      },
      {
        name: `round, N=${n}: server tree signing`,
        opsPerSec: 1000 / server,
        note: `${ms(server)} = ${(server / unit).toFixed(2)} × N sessions; branch checks ${ms(t.branchChecks)}, final signatures ${ms(t.finalSignatures)}`,
      },
    );
  }
  return { title: "hArk round on the reference Ark server (adapters/devnet; server in a worker thread, clients in process)", rows };
}
