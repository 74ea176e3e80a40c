/**
 * The clients of the server cosign benchmark, in their own thread (as a server's clients are
 * other processes: their gRPC encoding and decoding is not the server's work and does not run
 * in its event loop). `clients` gRPC clients send the prepared requests, each client its share
 * one after another, once the main thread says `go`.
 *
 * | Message (main → worker) | Answer |
 * |---|---|
 * | (start, `workerData`: {@link ClientsSetup}) | `{ type: "ready", tid }` once the clients are connected (`tid`: this thread's id in the operating system, where known) |
 * | `go` | {@link ClientsDone} after the last answer |
 *
 * Any failure answers `{ type: "error", message }`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { osThreadId } from "../../src/ark-server/cosign-pool.js";
import { grpcClient } from "../ark-server/grpc-api.js";
import type { ArkoorPartReq } from "../ark-server/wallet-kit.js";

/** What the worker is given. */
export interface ClientsSetup {
  url: string;
  clients: number;
  requests: ArkoorPartReq[][];
}

/** The burst is over. */
export interface ClientsDone {
  type: "done";
  /** From `go` to the last answer. */
  seconds: number;
  /** Partial signatures received. */
  partialSigs: number;
  /** CPU of this (the clients') thread during the burst, by its own count (lags by up to a scheduler tick; the bench prefers `/proc`). */
  cpuMs: number;
}

const port = parentPort!;
const setup = workerData as ClientsSetup;
const clients = Array.from({ length: setup.clients }, () => grpcClient(setup.url));

async function run(): Promise<ClientsDone> {
  let next = 0;
  let partialSigs = 0;
  const start = process.hrtime.bigint();
  const cpu0 = process.threadCpuUsage();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = next++; i < setup.requests.length; i = next++) {
        const r = await c.ark("requestArkoorCosign", { parts: setup.requests[i]! });
        partialSigs += r.parts.reduce((s, p) => s + p.serverPartialSigs.length, 0);
      }
    }),
  );
  const cpu = process.threadCpuUsage(cpu0);
  return { type: "done", seconds: Number(process.hrtime.bigint() - start) / 1e9, partialSigs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

// a first call per client connects it (and warms its code paths) before the burst
Promise.all(clients.map((c) => c.arkInfo()))
  .then(() => port.postMessage({ type: "ready", tid: osThreadId() }))
  .catch((e: unknown) => port.postMessage({ type: "error", message: String(e) }));

port.on("message", (m: string) => {
  if (m !== "go") return;
  run()
    .then((done) => port.postMessage(done))
    .catch((e: unknown) => port.postMessage({ type: "error", message: String(e) }))
    .finally(() => {
      for (const c of clients) c.close();
    });
});
