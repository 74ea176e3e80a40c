import { expect } from "chai";
import * as grpc from "@grpc/grpc-js";
import { ArkServerNotFoundError, ArkServerRejectedError, type ArkServer } from "@tender/ark-protocol/server";
import {
  ArkoorPackageCosignResponse, FetchBolt12InvoiceResponse, LightningPaymentStatus, grpcArkServerConnectorWith,
  type ArkoorPackageCosignRequest, type CheckLightningPaymentRequest, type FetchBolt12InvoiceRequest, type InitiateLightningPaymentRequest,
  type LightningPayHtlcCosignRequest,
} from "../src/index.js";
import { FAST_BACKOFF, grpcError, useFakeServers } from "./fake-server.js";

const connector = grpcArkServerConnectorWith({ backoff: FAST_BACKOFF });
const bytes = (...b: number[]) => new Uint8Array(b);
const part = {
  inputVtxoId: bytes(1), outputs: [{ amount: 5_000n, policy: bytes(9, 1) }], isolatedOutputs: [{ amount: 100n, policy: bytes(0, 2) }],
  userPubNonces: [bytes(3), bytes(4)], useCheckpoint: true, attestation: bytes(5),
};
const wirePart = {
  inputVtxoId: bytes(1), outputs: [{ totalAmount: 5_000n, policy: bytes(9, 1) }], isolatedOutputs: [{ totalAmount: 100n, policy: bytes(0, 2) }],
  userPubNonces: [bytes(3), bytes(4)], useCheckpoint: true, attestation: bytes(5),
};
const answer = ArkoorPackageCosignResponse.create({ parts: [{ serverPubNonces: [bytes(6)], serverPartialSigs: [bytes(7)] }] });

describe("ark-grpc as the Ark server port: Lightning send RPCs", () => {
  const fx = useFakeServers();
  const open = (url: string): ArkServer => fx.track(connector.open({ url, network: "regtest" }));

  it("HTLC cosign and revocation send every part field and map the server's nonces and partial signatures", async () => {
    const seen: { cosign?: LightningPayHtlcCosignRequest; revoke?: ArkoorPackageCosignRequest } = {};
    const server = await fx.start({
      ark: {
        requestLightningPayHtlcCosign: (c, cb) => { seen.cosign = c.request; cb(null, answer); },
        requestLightningPayHtlcRevocation: (c, cb) => { seen.revoke = c.request; cb(null, answer); },
      },
    });
    const ark = open(server.url);
    const expected = [{ serverPubNonces: [bytes(6)], serverPartialSigs: [bytes(7)] }];
    expect(await ark.requestLightningPayHtlcCosign([part])).to.deep.equal(expected);
    expect(await ark.requestLightningPayHtlcRevocation([part])).to.deep.equal(expected);
    expect(seen.cosign).to.deep.equal({ parts: [wirePart] });
    expect(seen.revoke).to.deep.equal({ parts: [wirePart] });
  });

  it("initiateLightningPayment sends the invoice, sorted ids, amount and mailbox; checkLightningPayment maps pending, success and failed", async () => {
    const seen: { init?: InitiateLightningPaymentRequest; checks: CheckLightningPaymentRequest[] } = { checks: [] };
    const statuses = [
      LightningPaymentStatus.create({ paymentStatus: { $case: "pending", value: {} } }),
      LightningPaymentStatus.create({ paymentStatus: { $case: "success", value: { preimage: bytes(8, 8) } } }),
      LightningPaymentStatus.create({ paymentStatus: { $case: "failed", value: {} } }),
    ];
    const server = await fx.start({
      ark: {
        initiateLightningPayment: (c, cb) => { seen.init = c.request; cb(null, {}); },
        checkLightningPayment: (c, cb) => { seen.checks.push(c.request); cb(null, statuses[seen.checks.length - 1]!); },
      },
    });
    const ark = open(server.url);
    await ark.initiateLightningPayment({ invoice: "lnbcrt1…", htlcVtxoIds: [bytes(1), bytes(2)], paymentAmountSat: 21_000n, mailboxId: bytes(3) });
    expect(seen.init).to.deep.equal({ invoice: "lnbcrt1…", htlcVtxoIds: [bytes(1), bytes(2)], paymentAmountSat: 21_000n, mailboxId: bytes(3) });
    expect(await ark.checkLightningPayment(bytes(4), false)).to.deep.equal({ status: "pending" });
    expect(await ark.checkLightningPayment(bytes(4), true)).to.deep.equal({ status: "success", preimage: bytes(8, 8) });
    expect(await ark.checkLightningPayment(bytes(4), false)).to.deep.equal({ status: "failed" });
    expect(seen.checks).to.deep.equal([{ hash: bytes(4), wait: false }, { hash: bytes(4), wait: true }, { hash: bytes(4), wait: false }]);
  });

  it("fetchBolt12Invoice sends the offer and the optional amount and answers the invoice bytes; refusals keep their kind and text", async () => {
    const seen: FetchBolt12InvoiceRequest[] = [];
    const server = await fx.start({
      ark: {
        fetchBolt12Invoice: (c, cb) => { seen.push(c.request); cb(null, FetchBolt12InvoiceResponse.create({ invoice: bytes(0xaa) })); },
        checkLightningPayment: (_c, cb) => cb(grpcError(grpc.status.NOT_FOUND, "not found: payment attempt not found")),
        initiateLightningPayment: (_c, cb) => cb(grpcError(grpc.status.INVALID_ARGUMENT, "bad user input: requested payment amount too low for invoice")),
      },
    });
    const ark = open(server.url);
    expect(await ark.fetchBolt12Invoice({ offer: bytes(1, 2), amountSat: 700n })).to.deep.equal(bytes(0xaa));
    expect(await ark.fetchBolt12Invoice({ offer: bytes(1, 2) })).to.deep.equal(bytes(0xaa));
    expect(seen).to.deep.equal([{ offer: bytes(1, 2), amountSat: 700n }, { offer: bytes(1, 2), amountSat: undefined }]);
    const missing = await ark.checkLightningPayment(bytes(1), false).catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(ArkServerNotFoundError);
    expect((missing as Error).message).to.contain("payment attempt not found");
    const low = await ark.initiateLightningPayment({ invoice: "x", htlcVtxoIds: [], paymentAmountSat: 1n }).catch((e: unknown) => e);
    expect(low).to.be.instanceOf(ArkServerRejectedError);
    expect((low as Error).message).to.contain("requested payment amount too low for invoice");
  });
});
