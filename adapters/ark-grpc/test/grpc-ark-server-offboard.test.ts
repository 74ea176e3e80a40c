import { expect } from "chai";
import * as grpc from "@grpc/grpc-js";
import { ArkServerNotFoundError, ArkServerRejectedError, type ArkServer } from "@tender/ark-protocol/server";
import {
  FinishOffboardResponse, OffboardFeeRateResponse, PrepareOffboardResponse, grpcArkServerConnectorWith, type FinishOffboardRequest, type PrepareOffboardRequest,
} from "../src/index.js";
import { FAST_BACKOFF, grpcError, useFakeServers } from "./fake-server.js";

const connector = grpcArkServerConnectorWith({ backoff: FAST_BACKOFF });
const bytes = (...b: number[]) => new Uint8Array(b);

describe("ark-grpc as the Ark server port: offboard RPCs", () => {
  const fx = useFakeServers();
  const open = (url: string): ArkServer => fx.track(connector.open({ url, network: "regtest" }));

  it("offboardFeeRateSatPerKvb answers GetOffboardFeeRate's sat/kvB", async () => {
    const server = await fx.start({ ark: { getOffboardFeeRate: (_c, cb) => cb(null, OffboardFeeRateResponse.create({ satVkb: 7_000n })) } });
    expect(await open(server.url).offboardFeeRateSatPerKvb()).to.equal(7_000n);
    expect(server.callsTo("GetOffboardFeeRate")).to.have.length(1);
  });

  it("prepareOffboard and finishOffboard send every field and map the answers", async () => {
    const seen: { prepare?: PrepareOffboardRequest; finish?: FinishOffboardRequest } = {};
    const server = await fx.start({
      ark: {
        prepareOffboard: (c, cb) => {
          seen.prepare = c.request;
          cb(null, PrepareOffboardResponse.create({ offboardTx: bytes(9, 9), forfeitCosignNonces: [bytes(10), bytes(11)] }));
        },
        finishOffboard: (c, cb) => {
          seen.finish = c.request;
          cb(null, FinishOffboardResponse.create({ signedOffboardTx: bytes(12) }));
        },
      },
    });
    const ark = open(server.url);
    const prepared = await ark.prepareOffboard({
      offboard: { netAmountSat: 40_000n, script: bytes(0x51, 0x20), deductFeesFromGrossAmount: true, feeRateSatPerKwu: 1_750n },
      inputVtxoIds: [bytes(1), bytes(2)],
      attestations: [bytes(3), bytes(4)],
    });
    expect(prepared).to.deep.equal({ offboardTx: bytes(9, 9), forfeitCosignNonces: [bytes(10), bytes(11)] });
    expect(await ark.finishOffboard({ offboardTxid: bytes(5), userNonces: [bytes(6), bytes(7)], partialSignatures: [bytes(8), bytes(13)] })).to.deep.equal(bytes(12));
    expect(seen).to.deep.equal({
      prepare: {
        offboard: { netAmountSat: 40_000n, offboardSpk: bytes(0x51, 0x20), deductFeesFromGrossAmount: true, feeRateKwu: 1_750n },
        inputVtxoIds: [bytes(1), bytes(2)],
        attestation: [bytes(3), bytes(4)],
      },
      finish: { offboardTxid: bytes(5), userNonces: [bytes(6), bytes(7)], partialSignatures: [bytes(8), bytes(13)] },
    });
  });

  it("refusals keep the server's text: a stale fee rate proves the inputs were checked spendable; an unknown session is not found", async () => {
    const server = await fx.start({
      ark: {
        prepareOffboard: (_c, cb) => cb(grpcError(grpc.status.INVALID_ARGUMENT, "bad user input: fee rate is no longer valid: provided = 2000, expected = 1750")),
        finishOffboard: (_c, cb) => cb(grpcError(grpc.status.NOT_FOUND, "not found: unknown offboard txid")),
      },
    });
    const ark = open(server.url);
    const stale = await ark.prepareOffboard({
      offboard: { netAmountSat: 1n, script: bytes(), deductFeesFromGrossAmount: false, feeRateSatPerKwu: 2_000n }, inputVtxoIds: [], attestations: [],
    }).catch((e: unknown) => e);
    expect(stale).to.be.instanceOf(ArkServerRejectedError);
    expect((stale as ArkServerRejectedError).inputsCheckedSpendable).to.equal(true);
    const gone = await ark.finishOffboard({ offboardTxid: bytes(1), userNonces: [], partialSignatures: [] }).catch((e: unknown) => e);
    expect(gone).to.be.instanceOf(ArkServerNotFoundError);
    expect((gone as Error).message).to.contain("unknown offboard txid");
  });
});
