import { expect } from "chai";
import * as grpc from "@grpc/grpc-js";
import { ArkServerNotFoundError, ArkServerRejectedError, type ArkServer } from "@tender/ark-protocol/server";
import { GetVtxoResponse, GetVtxoStatusResponse, VtxoSpendState, grpcArkServerConnectorWith, type GetVtxoRequest, type GetVtxoStatusRequest } from "../src/index.js";
import { FAST_BACKOFF, grpcError, useFakeServers } from "./fake-server.js";

const connector = grpcArkServerConnectorWith({ backoff: FAST_BACKOFF });
const bytes = (...b: number[]) => new Uint8Array(b);

describe("ark-grpc as the Ark server port: GetVtxo and GetVtxoStatus", () => {
  const fx = useFakeServers();
  const open = (url: string): ArkServer => fx.track(connector.open({ url, network: "regtest" }));

  it("getVtxo sends the id and answers the VTXO bytes; getVtxoStatus sends id and attestation", async () => {
    const seen: { get?: GetVtxoRequest; status?: GetVtxoStatusRequest } = {};
    const server = await fx.start({
      ark: {
        getVtxo: (c, cb) => {
          seen.get = c.request;
          cb(null, GetVtxoResponse.create({ vtxo: bytes(7, 8, 9) }));
        },
        getVtxoStatus: (c, cb) => {
          seen.status = c.request;
          cb(null, GetVtxoStatusResponse.create({ spendState: VtxoSpendState.VTXO_SPEND_STATE_SPENT }));
        },
      },
    });
    const ark = open(server.url);
    expect(await ark.getVtxo(bytes(1, 2))).to.deep.equal(bytes(7, 8, 9));
    expect(await ark.getVtxoStatus(bytes(3), bytes(4, 5))).to.equal("spent");
    expect(seen).to.deep.equal({ get: { vtxoId: bytes(1, 2) }, status: { vtxoId: bytes(3), attestation: bytes(4, 5) } });
  });

  it("maps every spend state; the zero value and a code the .proto lacks are unspecified", async () => {
    const codes: [number, string][] = [
      [VtxoSpendState.VTXO_SPEND_STATE_SPENDABLE, "spendable"], [VtxoSpendState.VTXO_SPEND_STATE_SPENT, "spent"],
      [VtxoSpendState.VTXO_SPEND_STATE_UNCLAIMED, "unclaimed"], [VtxoSpendState.VTXO_SPEND_STATE_UNREGISTERED, "unregistered"],
      [VtxoSpendState.VTXO_SPEND_STATE_HTLC_RECV_UNCLAIMED, "htlc-recv-unclaimed"], [VtxoSpendState.VTXO_SPEND_STATE_UNSPECIFIED, "unspecified"], [42, "unspecified"],
    ];
    let next = 0;
    const server = await fx.start({ ark: { getVtxoStatus: (_c, cb) => cb(null, GetVtxoStatusResponse.create({ spendState: codes[next++]![0] })) } });
    const ark = open(server.url);
    const answers: string[] = [];
    for (let i = 0; i < codes.length; i++) answers.push(await ark.getVtxoStatus(bytes(1), bytes(2)));
    expect(answers).to.deep.equal(codes.map(([, s]) => s));
  });

  it("an unknown VTXO is the port's not-found error; a bad attestation its rejection, with the server's text", async () => {
    const server = await fx.start({
      ark: {
        getVtxo: (_c, cb) => cb(grpcError(grpc.status.NOT_FOUND, "not found: vtxo not found")),
        getVtxoStatus: (_c, cb) => cb(grpcError(grpc.status.INVALID_ARGUMENT, "bad user input: invalid VTXO status attestation")),
      },
    });
    const ark = open(server.url);
    const missing = await ark.getVtxo(bytes(1)).catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(ArkServerNotFoundError);
    const refused = await ark.getVtxoStatus(bytes(1), bytes(2)).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(ArkServerRejectedError);
    expect((refused as Error).message).to.contain("invalid VTXO status attestation");
  });
});
