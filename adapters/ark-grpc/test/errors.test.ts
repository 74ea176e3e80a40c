import { expect } from "chai";
import * as grpc from "@grpc/grpc-js";
import {
  ArkClientError,
  ArkServerClient,
  ArkServerError,
  ArkServerInternalError,
  ArkServerNotFoundError,
  ArkServerRejectedError,
  ArkServerUnavailableError,
  ArkServerUnimplementedError,
  ArkServerUnexpectedError,
  DifferentServerError,
  isVtxoIdText,
  parseServerMessage,
  toArkServerError,
} from "../src/index.js";
import { FakeArkServer, grpcError, useFakeServers } from "./fake-server.js";

const ID1 = `${"aa".repeat(32)}:0`;
const ID2 = `${"bb".repeat(32)}:7`;

describe("ark-grpc error mapping", () => {
  const fx = useFakeServers();
  /** Runs one GetVtxo against a fake that fails it with `err`; returns what the client threw. */
  async function failWith(err: Partial<grpc.StatusObject>): Promise<{ thrown: unknown; client: ArkServerClient; server: FakeArkServer }> {
    const server = await fx.server({ ark: { getVtxo: (_c, cb) => cb(err) } }).start();
    const client = fx.client({ url: server.url, network: "regtest" });
    await client.connect();
    const thrown = await client.ark("getVtxo", { vtxoId: new Uint8Array(36) }).catch((e: unknown) => e);
    return { thrown, client, server };
  }
  async function run(err: Partial<grpc.StatusObject>): Promise<unknown> {
    return (await failWith(err)).thrown;
  }

  it("INVALID_ARGUMENT with `bad user input:` is a rejection carrying the reason", async () => {
    const e = await run(grpcError(grpc.status.INVALID_ARGUMENT, "failed to cosign board: bad user input: board amount below minimum"));
    expect(e).to.be.instanceOf(ArkServerRejectedError);
    const r = e as ArkServerRejectedError;
    expect(r.isRejection).to.equal(true);
    expect(r.isTransient).to.equal(false);
    expect(r.badUserInput).to.equal("board amount below minimum");
    expect(r.method).to.equal("/bark_server.ArkService/GetVtxo");
    expect(r.message).to.equal("Ark server GetVtxo failed (INVALID_ARGUMENT): failed to cosign board: bad user input: board amount below minimum");
    expect(r.httpStatus).to.equal(500);
  });

  it("unusable inputs: the ids in the message and the VTXO ids of the identifiers trailer (junk skipped)", async () => {
    const e = (await run(
      grpcError(grpc.status.INVALID_ARGUMENT, `unusable inputs: [${ID1},${ID2}]: bad user input: input vtxo(s) not spendable`, `${ID1},not-an-id,${ID2}`),
    )) as ArkServerRejectedError;
    expect(e).to.be.instanceOf(ArkServerRejectedError);
    expect(e.unusableInputs).to.deep.equal([ID1, ID2]);
    expect(e.identifiers).to.deep.equal([ID1, "not-an-id", ID2]);
    expect(e.rejectedVtxoIds).to.deep.equal([ID1, ID2]);
    expect(e.badUserInput).to.equal("input vtxo(s) not spendable");
  });

  it("NOT_FOUND is a rejection with the `not found:` reason and the identifiers", async () => {
    const e = (await run(grpcError(grpc.status.NOT_FOUND, `get vtxo: not found: vtxo not found`, ID1))) as ArkServerNotFoundError;
    expect(e).to.be.instanceOf(ArkServerNotFoundError);
    expect(e).to.be.instanceOf(ArkServerRejectedError);
    expect(e.notFound).to.equal("vtxo not found");
    expect(e.rejectedVtxoIds).to.deep.equal([ID1]);
    expect(e.isRejection).to.equal(true);
  });

  it("INTERNAL is transient; an `h2 protocol error` is flagged as a stream reset", async () => {
    const plain = (await run(grpcError(grpc.status.INTERNAL, "internal error"))) as ArkServerInternalError;
    expect(plain).to.be.instanceOf(ArkServerInternalError);
    expect(plain.isTransient).to.equal(true);
    expect(plain.isStreamReset).to.equal(false);
    const reset = (await run(grpcError(grpc.status.INTERNAL, "h2 protocol error: stream no longer needed"))) as ArkServerInternalError;
    expect(reset.isStreamReset).to.equal(true);
  });

  it("UNIMPLEMENTED (removed feature) maps to its own class", async () => {
    const e = await run(grpcError(grpc.status.UNIMPLEMENTED, "offboards in rounds are no longer supported"));
    expect(e).to.be.instanceOf(ArkServerUnimplementedError);
    expect((e as ArkServerError).isRejection).to.equal(false);
  });

  it("UNAVAILABLE asking for an update is flagged and does not drop the connection", async () => {
    const r = await failWith(grpcError(grpc.status.UNAVAILABLE, "YOU NEED TO UPDATE YOUR WALLET VERSION FOR THIS OPERATION"));
    expect(r.thrown).to.be.instanceOf(ArkServerUnavailableError);
    expect((r.thrown as ArkServerUnavailableError).needsClientUpdate).to.equal(true);
    expect(r.client.connected).to.equal(true);
  });

  it("an offboard refusal from the late checks proves the inputs were spendable", async () => {
    const e = (await run(grpcError(grpc.status.INVALID_ARGUMENT, "prepare offboard: bad user input: fee rate is no longer valid"))) as ArkServerRejectedError;
    expect(e.inputsCheckedSpendable).to.equal(true);
    const other = (await run(grpcError(grpc.status.INVALID_ARGUMENT, "prepare offboard: bad user input: input vtxo(s) not spendable"))) as ArkServerRejectedError;
    expect(other.inputsCheckedSpendable).to.equal(false);
  });

  it("maps every other status to a transient unexpected error, and non-gRPC failures to UNKNOWN", () => {
    const e = toArkServerError({ code: grpc.status.RESOURCE_EXHAUSTED, details: "too many" }, "/x/Y");
    expect(e).to.be.instanceOf(ArkServerUnexpectedError);
    expect(e.isTransient).to.equal(true);
    const u = toArkServerError(new Error("boom"), "/x/Y");
    expect(u.code).to.equal(grpc.status.UNKNOWN);
    expect(u.serverMessage).to.equal("boom");
  });

  it("parses the message prefixes without the wire", () => {
    expect(parseServerMessage("a: b")).to.deep.equal({});
    expect(parseServerMessage("ctx: bad user input: x: bad user input: inner")).to.deep.equal({ badUserInput: "inner" });
    expect(parseServerMessage(`unusable inputs: [ ${ID1} , "${ID2}" ]`)).to.deep.equal({ unusableInputs: [ID1, ID2] });
    expect(isVtxoIdText(ID1)).to.equal(true);
    expect(isVtxoIdText(`${"aa".repeat(32)}:4294967296`)).to.equal(false);
    expect(isVtxoIdText(`${"AA".repeat(32)}:1`)).to.equal(false);
  });

  it("the 'different server' error carries bark's text and a 400", () => {
    const e = new DifferentServerError();
    expect(e).to.be.instanceOf(ArkClientError);
    expect(e.message).to.equal("Ark address is for different server");
    expect(e.httpStatus).to.equal(400);
  });
});
