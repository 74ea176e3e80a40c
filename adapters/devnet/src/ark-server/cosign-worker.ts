/**
 * A signing thread of {@link CosignPool}: answers each message with the deterministic MuSig2
 * co-signatures of its jobs (the server's nonce and partial signature per message). It keeps
 * nothing between messages: the secret key arrives with each job and no secret nonce outlives
 * the call.
 */
import { parentPort } from "node:worker_threads";
import { musigRespondCosignDeterministic } from "@tender/ark-protocol";
import { osThreadId, packResults, unpackJobs, type CosignJobMessage, type CosignResultMessage } from "./cosign-pool.js";

const port = parentPort;
if (!port) throw new Error("cosign-worker runs only as a worker thread");

port.on("message", (m: CosignJobMessage) => {
  let reply: CosignResultMessage;
  try {
    reply = { id: m.id, packed: packResults(unpackJobs(m.packed).map((j) => musigRespondCosignDeterministic(j))) };
  } catch {
    // the pool signs them again in its own thread to raise the error with its class and text
    reply = { id: m.id, failed: true };
  } finally {
    new Uint8Array(m.packed).fill(0); // it held the secret key
  }
  if ("packed" in reply) port.postMessage(reply, [reply.packed]);
  else port.postMessage(reply);
});

// loaded (the signing code and its WASM are ready): tell the pool, with this thread's id in the
// operating system (the bench reads its CPU time there)
port.postMessage({ ready: true, tid: osThreadId() } satisfies CosignResultMessage);
