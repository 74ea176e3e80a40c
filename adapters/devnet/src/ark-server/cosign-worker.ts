/**
 * A signing thread of {@link CosignPool}: answers each message with the deterministic MuSig2
 * co-signatures of its jobs (the server's nonce and partial signature per message). It keeps
 * nothing between messages: the secret key arrives with each job and no secret nonce outlives
 * the call.
 */
import { parentPort } from "node:worker_threads";
import { musigRespondCosignDeterministic } from "@tender/ark-protocol";
import { packResults, unpackJobs, type CosignJobMessage, type CosignResultMessage } from "./cosign-pool.js";

const port = parentPort;
if (!port) throw new Error("cosign-worker runs only as a worker thread");

port.on("message", (m: CosignJobMessage) => {
  let reply: CosignResultMessage;
  const before = process.threadCpuUsage();
  try {
    const packed = packResults(unpackJobs(m.packed).map((j) => musigRespondCosignDeterministic(j)));
    const cpu = process.threadCpuUsage(before);
    reply = { id: m.id, packed, cpuMs: (cpu.user + cpu.system) / 1000 };
  } catch {
    // the pool signs them again in its own thread to raise the error with its class and text
    reply = { id: m.id, failed: true };
  } finally {
    new Uint8Array(m.packed).fill(0); // it held the secret key
  }
  if ("packed" in reply) port.postMessage(reply, [reply.packed]);
  else port.postMessage(reply);
});

// loaded (the signing code and its WASM are ready): tell the pool
port.postMessage({ ready: true } satisfies CosignResultMessage);
