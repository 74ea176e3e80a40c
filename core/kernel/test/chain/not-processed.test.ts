import { expect } from "chai";
import { createServer, type Server, type Socket } from "node:net";
import {
  certainlyNotProcessed,
  ChainSourceInvalidRequestError,
  ChainSourceRejectedError,
  ChainSourceUnavailableError,
  httpRequest,
  retryTransient,
} from "../../src/chain/index.js";

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return (server.address() as { port: number }).port;
}

const failureOf = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e: unknown) => e);

/**
 * Whether a chain source certainly did not act on a request decides what a broadcast's caller is
 * told: a transaction that never reached a node can be dropped, any other must be kept.
 */
describe("chain source errors: whether the backend certainly did not act on the request", () => {
  it("counts a refused connection as not processed", async () => {
    const server = createServer();
    const port = await listen(server);
    await new Promise<void>((r) => server.close(() => r()));
    const e = await failureOf(httpRequest("src", `http://127.0.0.1:${port}/tx`, { method: "POST", body: "00" }, 2_000));
    expect(e).to.be.instanceOf(ChainSourceUnavailableError);
    expect((e as ChainSourceUnavailableError).kind).to.equal("connection");
    expect(certainlyNotProcessed(e)).to.equal(true);
  });

  it("does not count a connection closed after the request was sent, nor a timeout", async () => {
    const closing = createServer((socket) => socket.once("data", () => socket.destroy()));
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    try {
      const reset = await failureOf(httpRequest("src", `http://127.0.0.1:${await listen(closing)}/tx`, { method: "POST", body: "00" }, 2_000));
      expect(reset).to.be.instanceOf(ChainSourceUnavailableError);
      expect(certainlyNotProcessed(reset)).to.equal(false);
      const timeout = await failureOf(httpRequest("src", `http://127.0.0.1:${await listen(silent)}/tx`, { method: "POST", body: "00" }, 200));
      expect((timeout as ChainSourceUnavailableError).kind).to.equal("timeout");
      expect(certainlyNotProcessed(timeout)).to.equal(false);
    } finally {
      closing.close();
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });

  it("after retries, counts as not processed only when no attempt can have been carried out", async () => {
    const refused = () => new ChainSourceUnavailableError("src", "connection", "ECONNREFUSED", 1, { notProcessed: true });
    const timedOut = () => new ChainSourceUnavailableError("src", "timeout", "no answer");
    const run = async (errors: Array<() => ChainSourceUnavailableError>) => {
      let n = 0;
      return failureOf(retryTransient(async () => { throw errors[n++]!(); }, { policy: { attempts: errors.length, initialDelayMs: 0, maxDelayMs: 0, factor: 1 }, sleep: async () => undefined }));
    };
    const allRefused = await run([refused, refused, refused]);
    expect((allRefused as ChainSourceUnavailableError).attempts).to.equal(3);
    expect(certainlyNotProcessed(allRefused)).to.equal(true);
    // an earlier timeout may have delivered the request, though the last attempt was refused
    expect(certainlyNotProcessed(await run([timedOut, refused, refused]))).to.equal(false);
    expect(certainlyNotProcessed(await run([refused, refused, timedOut]))).to.equal(false);
  });

  it("counts a malformed request as not processed, and a refusal as processed", () => {
    expect(certainlyNotProcessed(new ChainSourceInvalidRequestError("src", "txid must be 64 hex digits"))).to.equal(true);
    expect(certainlyNotProcessed(new ChainSourceRejectedError("src", "min relay fee not met"))).to.equal(false);
    expect(certainlyNotProcessed(new Error("anything else"))).to.equal(false);
  });
});
