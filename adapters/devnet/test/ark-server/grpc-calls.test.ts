/**
 * The unary handler wrapper: a client that cancels a call before it is answered aborts the
 * handler's signal (a long-polling check lets go of its waiter); a call answered first never sees
 * its signal aborted, though grpc-js reports it "cancelled" when its stream closes.
 */
import { expect } from "chai";
import { credentials, makeGenericClientConstructor, Server, ServerCredentials, type ServiceDefinition, type ServerUnaryCall, type sendUnaryData } from "@grpc/grpc-js";
import { silentLogger } from "@tender/core";
import { unary } from "../../src/ark-server/grpc-calls.js";

const bytes = { serialize: (b: Buffer) => b, deserialize: (b: Buffer) => b };
const definition: ServiceDefinition = {
  call: {
    path: "/test.Calls/Call",
    requestStream: false,
    responseStream: false,
    requestSerialize: bytes.serialize,
    requestDeserialize: bytes.deserialize,
    responseSerialize: bytes.serialize,
    responseDeserialize: bytes.deserialize,
  },
};

interface Seen {
  signal?: AbortSignal;
  cancelledEvents: number;
}

async function until(what: string, done: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("ark server gRPC: unary calls and cancellation", () => {
  let server: Server;
  let client: InstanceType<ReturnType<typeof makeGenericClientConstructor>>;
  let handler: (signal: AbortSignal) => Promise<Buffer>;
  let seen: Seen;

  before(async () => {
    server = new Server();
    const wrapped = unary<Buffer, Buffer>("Call", silentLogger, (_req, ctx) => {
      seen.signal = ctx.signal;
      return handler(ctx.signal);
    });
    server.addService(definition, {
      call: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
        call.on("cancelled", () => seen.cancelledEvents++);
        wrapped(call, callback);
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    const Client = makeGenericClientConstructor(definition, "Calls");
    client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  after(() => {
    client.close();
    server.forceShutdown();
  });

  beforeEach(() => {
    seen = { cancelledEvents: 0 };
  });

  it("a call the client cancels before the answer aborts the handler's signal", async () => {
    let aborted = false;
    handler = (signal) =>
      new Promise<Buffer>((resolve) => {
        const timer = setTimeout(() => resolve(Buffer.from("late")), 10_000);
        signal.addEventListener("abort", () => {
          aborted = true;
          clearTimeout(timer);
          resolve(Buffer.from("aborted"));
        });
      });
    const call = (client as unknown as { call(req: Buffer, cb: (e: unknown) => void): { cancel(): void } }).call(Buffer.from("x"), () => undefined);
    await until("the handler to start", () => seen.signal !== undefined);
    call.cancel();
    await until("the handler's signal to abort", () => aborted);
    expect(seen.signal!.aborted).to.equal(true);
    expect(seen.cancelledEvents).to.be.greaterThan(0);
  });

  it("a call answered before its stream closes keeps its signal unaborted, though reported cancelled", async () => {
    handler = async () => Buffer.from("answer");
    const answer = await new Promise<Buffer>((resolve, reject) =>
      (client as unknown as { call(req: Buffer, cb: (e: Error | null, r?: Buffer) => void): unknown }).call(Buffer.from("x"), (e, r) => (e ? reject(e) : resolve(r!))),
    );
    expect(answer.toString()).to.equal("answer");
    // grpc-js reports the closed stream as cancelled: the wrapper must not abort the answered call
    await until("grpc-js to report the closed stream", () => seen.cancelledEvents > 0);
    expect(seen.signal!.aborted).to.equal(false);
  });
});
