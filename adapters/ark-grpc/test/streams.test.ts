import { expect } from "chai";
import * as grpc from "@grpc/grpc-js";
import {
  ArkoorMessage,
  ArkServerClient,
  MailboxMessage,
  type MailboxRequest,
  RoundAttempt,
  RoundEvent,
  RoundFinished,
  VtxoProposal,
  roundEventKey,
} from "../src/index.js";
import { FAST_BACKOFF, FakeArkServer, grpcError, until, useFakeServers } from "./fake-server.js";

const MAILBOX_ID = new Uint8Array([0x02, ...new Array<number>(32).fill(7)]);

function arkoor(checkpoint: bigint): MailboxMessage {
  return MailboxMessage.create({ checkpoint, message: { $case: "arkoor", value: ArkoorMessage.create({ vtxos: [new Uint8Array([Number(checkpoint)])] }) } });
}

/** Scripted mailbox: each subscription runs the next script with the request it received. */
function mailboxServer(scripts: ((call: grpc.ServerWritableStream<MailboxRequest, MailboxMessage>) => void)[]) {
  const requests: MailboxRequest[] = [];
  const server = new FakeArkServer({
    mailbox: {
      subscribeMailbox: (call) => {
        requests.push(call.request);
        const script = scripts[requests.length - 1];
        if (script) script(call);
        else call.emit("error", grpcError(grpc.status.UNAVAILABLE, "no more scripts"));
      },
    },
  });
  return { server, requests };
}

describe("ark-grpc resumable streams", () => {
  const fx = useFakeServers();
  let server: FakeArkServer;
  let client: ArkServerClient | undefined;

  it("resubscribes to the mailbox from the last processed checkpoint after a drop, with a fresh authorization", async () => {
    const m = mailboxServer([
      (call) => {
        call.write(arkoor(10n));
        call.write(arkoor(20n));
        setTimeout(() => call.emit("error", grpcError(grpc.status.INTERNAL, "h2 protocol error: connection reset")), 30);
      },
      (call) => {
        call.write(arkoor(20n)); // a replay the client must not process twice
        call.write(arkoor(30n));
      },
    ]);
    server = await m.server.start();
    client = fx.client({ url: server.url, network: "regtest", backoff: FAST_BACKOFF });
    const seen: bigint[] = [];
    let auths = 0;
    const sub = client.subscribeMailbox({
      mailboxId: MAILBOX_ID,
      checkpoint: 5n,
      authorization: () => new Uint8Array([++auths]),
      onMessage: async (msg) => void seen.push(msg.checkpoint),
    });
    await until(() => seen.length === 3);
    expect(seen).to.deep.equal([10n, 20n, 30n]);
    expect(m.requests.map((r) => r.checkpoint)).to.deep.equal([5n, 20n]);
    expect(m.requests.map((r) => Array.from(r.authorization ?? []))).to.deep.equal([[1], [2]]);
    expect(Buffer.from(m.requests[0]!.mailboxId)).to.deep.equal(Buffer.from(MAILBOX_ID));
    expect(sub.checkpoint).to.equal(30n);
    expect(server.callsTo("SubscribeMailbox").every((c) => c.pver === "5")).to.equal(true);
    expect(server.callsTo("SubscribeMailbox")[0]!.deadlineInMs).to.be.within(3_600_000 - 5_000, 3_600_000);
    expect(await sub.stop()).to.deep.equal({ reason: "stopped" });
  });

  it("does not advance past a message the consumer failed to process: it is delivered again after resubscribing", async () => {
    const m = mailboxServer([
      (call) => {
        call.write(arkoor(10n));
        call.write(arkoor(20n));
      },
      (call) => {
        call.write(arkoor(20n));
      },
    ]);
    server = await m.server.start();
    client = fx.client({ url: server.url, network: "regtest", backoff: FAST_BACKOFF });
    const attempts: bigint[] = [];
    const sub = client.subscribeMailbox({
      mailboxId: MAILBOX_ID,
      checkpoint: 0n,
      authorization: () => new Uint8Array(105),
      onMessage: async (msg) => {
        attempts.push(msg.checkpoint);
        return !(msg.checkpoint === 20n && attempts.filter((c) => c === 20n).length === 1);
      },
    });
    await until(() => sub.checkpoint === 20n);
    expect(attempts).to.deep.equal([10n, 20n, 20n]);
    expect(m.requests.map((r) => r.checkpoint)).to.deep.equal([0n, 10n]);
    await sub.stop();
  });

  it("a consumer that throws is treated like one that failed: same message again, checkpoint kept", async () => {
    const m = mailboxServer([(call) => call.write(arkoor(40n)), (call) => call.write(arkoor(40n))]);
    server = await m.server.start();
    client = fx.client({ url: server.url, network: "regtest", backoff: FAST_BACKOFF });
    let calls = 0;
    const drops: string[] = [];
    const sub = client.subscribeMailbox({
      mailboxId: MAILBOX_ID,
      checkpoint: 39n,
      authorization: () => new Uint8Array(105),
      onMessage: async () => {
        if (++calls === 1) throw new Error("database busy");
      },
      onDrop: (err) => drops.push(err?.message ?? "ended"),
    });
    await until(() => sub.checkpoint === 40n);
    expect(calls).to.equal(2);
    expect(drops[0]).to.equal("database busy");
    expect(m.requests.map((r) => r.checkpoint)).to.deep.equal([39n, 39n]);
    await sub.stop();
  });

  it("gives up after 5 reconnects without a delivered message and marks the client disconnected", async () => {
    const fail = (call: grpc.ServerWritableStream<MailboxRequest, MailboxMessage>) => call.emit("error", grpcError(grpc.status.INVALID_ARGUMENT, "bad user input: mailbox authorization expired"));
    const m = mailboxServer([fail, fail, fail, fail, fail, fail, fail]);
    server = await m.server.start();
    client = fx.client({ url: server.url, network: "regtest", backoff: FAST_BACKOFF });
    await client.connect();
    const drops: string[] = [];
    const sub = client.subscribeMailbox({
      mailboxId: MAILBOX_ID,
      checkpoint: 0n,
      authorization: () => new Uint8Array(105),
      onMessage: async () => undefined,
      onDrop: (err) => drops.push(err?.message ?? "ended"),
    });
    const end = await sub.done;
    expect(end.reason).to.equal("gave-up");
    expect(m.requests).to.have.length(5);
    expect(drops).to.have.length(4);
    expect(drops[0]).to.contain("mailbox authorization expired");
    expect(client.connected).to.equal(false);
  });

  it("resumes the mailbox stream after the whole server restarted", async () => {
    const m = mailboxServer([
      (call) => call.write(arkoor(10n)),
      (call) => call.write(arkoor(11n)),
    ]);
    server = await m.server.start();
    client = fx.client({ url: server.url, network: "regtest", backoff: FAST_BACKOFF });
    const seen: bigint[] = [];
    const sub = client.subscribeMailbox({ mailboxId: MAILBOX_ID, checkpoint: 0n, authorization: () => new Uint8Array(105), onMessage: async (x) => void seen.push(x.checkpoint) });
    await until(() => seen.length === 1);
    await server.restart();
    await until(() => seen.length === 2);
    expect(seen).to.deep.equal([10n, 11n]);
    expect(m.requests.map((r) => r.checkpoint)).to.deep.equal([0n, 10n]);
    await sub.stop();
  });

  it("round events: after a drop the replayed last event is skipped and later events arrive once", async () => {
    const attempt = RoundEvent.create({ event: { $case: "attempt", value: RoundAttempt.create({ roundSeq: 9n, attemptSeq: 0n, roundAttemptChallenge: new Uint8Array(32) }) } });
    const proposal = RoundEvent.create({ event: { $case: "vtxoProposal", value: VtxoProposal.create({ roundSeq: 9n, attemptSeq: 0n }) } });
    const finished = RoundEvent.create({ event: { $case: "finished", value: RoundFinished.create({ roundSeq: 9n, attemptSeq: 0n }) } });
    let subs = 0;
    server = await fx.server({
      ark: {
        subscribeRounds: (call) => {
          subs++;
          if (subs === 1) {
            call.write(attempt);
            call.write(proposal);
            setTimeout(() => call.emit("error", grpcError(grpc.status.UNAVAILABLE, "restarting")), 30);
          } else {
            call.write(proposal); // a new subscriber first gets the last broadcast event
            call.write(finished);
          }
        },
      },
    }).start();
    client = fx.client({ url: server.url, network: "regtest", backoff: FAST_BACKOFF });
    const seen: string[] = [];
    const sub = client.subscribeRounds({ onEvent: async (ev) => void seen.push(roundEventKey(ev)!) });
    await until(() => seen.length === 3);
    expect(seen).to.deep.equal(["attempt:9:0", "vtxoProposal:9:0", "finished:9:0"]);
    expect(sub.subscriptions).to.equal(2);
    expect(server.callsTo("SubscribeRounds").map((c) => c.pver)).to.deep.equal(["5", "5"]);
    await sub.stop();
  });

  it("stop() ends an idle subscription promptly", async () => {
    server = await fx.server({ ark: { subscribeRounds: () => undefined } }).start();
    client = fx.client({ url: server.url, network: "regtest", backoff: FAST_BACKOFF });
    const sub = client.subscribeRounds({ onEvent: async () => undefined });
    await until(() => sub.subscriptions === 1);
    const started = Date.now();
    expect(await sub.stop()).to.deep.equal({ reason: "stopped" });
    expect(Date.now() - started).to.be.lessThan(500);
  });
});
