import { expect } from "chai";
import * as grpc from "@grpc/grpc-js";
import { ArkServerNotFoundError, ArkServerRejectedError, InvalidServerResponseError, type ArkServer } from "@tender/ark-protocol/server";
import {
  ArkoorPackageCosignResponse, LightningReceiveStatus, grpcArkServerConnectorWith,
  type CancelLightningReceiveRequest, type CheckLightningReceiveRequest, type CheckLightningReceiveResponse, type ClaimLightningReceiveRequest,
  type PrepareLightningReceiveClaimRequest, type StartLightningReceiveRequest,
} from "../src/index.js";
import { lightningReceiveStatusOf } from "../src/domain-mapping.js";
import { FAST_BACKOFF, grpcError, useFakeServers } from "./fake-server.js";

const connector = grpcArkServerConnectorWith({ backoff: FAST_BACKOFF });
const bytes = (...b: number[]) => new Uint8Array(b);
const wire = (status: LightningReceiveStatus, ids: Uint8Array[] = []): CheckLightningReceiveResponse => ({ invoice: "lnbcrt1…", amountSat: 21_000n, status, htlcVtxos: ids });

describe("ark-grpc as the Ark server port: Lightning receive RPCs", () => {
  const fx = useFakeServers();
  const open = (url: string): ArkServer => fx.track(connector.open({ url, network: "regtest" }));

  it("lightningReceiveStatusOf maps every receive status and the granted ids, and refuses an unknown status", () => {
    const cases: [LightningReceiveStatus, string][] = [
      [LightningReceiveStatus.CREATED, "created"], [LightningReceiveStatus.ACCEPTED, "accepted"], [LightningReceiveStatus.HTLCS_READY, "htlcs-ready"],
      [LightningReceiveStatus.SETTLED, "settled"], [LightningReceiveStatus.CANCELED, "canceled"],
    ];
    for (const [code, state] of cases) {
      expect(lightningReceiveStatusOf(wire(code, [bytes(1, 2)]))).to.deep.equal({ invoice: "lnbcrt1…", amountSat: 21_000n, state, htlcVtxoIds: [bytes(1, 2)] });
    }
    expect(() => lightningReceiveStatusOf(wire(LightningReceiveStatus.UNRECOGNIZED))).to.throw(InvalidServerResponseError, /unknown lightning receive status/);
    expect(() => lightningReceiveStatusOf(wire(77 as LightningReceiveStatus))).to.throw(InvalidServerResponseError);
  });

  it("startLightningReceive sends hash, amount, CLTV delta and the optional mailbox and memo, and answers the BOLT11", async () => {
    const seen: StartLightningReceiveRequest[] = [];
    const server = await fx.start({ ark: { startLightningReceive: (c, cb) => { seen.push(c.request); cb(null, { bolt11: "lnbcrt210u1…" }); } } });
    const ark = open(server.url);
    expect(await ark.startLightningReceive({ paymentHash: bytes(1), amountSat: 21_000n, minCltvDelta: 90, mailboxId: bytes(2), description: "tea" })).to.equal("lnbcrt210u1…");
    expect(await ark.startLightningReceive({ paymentHash: bytes(1), amountSat: 5n, minCltvDelta: 90 })).to.equal("lnbcrt210u1…");
    expect(seen[0]).to.deep.include({ paymentHash: bytes(1), amountSat: 21_000n, minCltvDelta: 90, mailboxId: bytes(2), description: "tea" });
    expect(seen[1]).to.deep.include({ paymentHash: bytes(1), amountSat: 5n, minCltvDelta: 90 });
    expect(seen[1]!.mailboxId ?? undefined).to.equal(undefined);
    expect(seen[1]!.description ?? undefined).to.equal(undefined);
  });

  it("checkLightningReceive sends hash and wait and maps the answer; an unknown receive is NOT_FOUND", async () => {
    const seen: CheckLightningReceiveRequest[] = [];
    const server = await fx.start({
      ark: {
        checkLightningReceive: (c, cb) => {
          seen.push(c.request);
          if (c.request.hash[0] === 9) return cb(grpcError(grpc.status.NOT_FOUND, "not found: invoice not found"));
          cb(null, wire(LightningReceiveStatus.HTLCS_READY, [bytes(5)]));
        },
      },
    });
    const ark = open(server.url);
    expect(await ark.checkLightningReceive(bytes(4), true)).to.deep.equal({ invoice: "lnbcrt1…", amountSat: 21_000n, state: "htlcs-ready", htlcVtxoIds: [bytes(5)] });
    expect(seen[0]).to.deep.equal({ hash: bytes(4), wait: true });
    const missing = await ark.checkLightningReceive(bytes(9), false).catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(ArkServerNotFoundError);
    expect((missing as Error).message).to.contain("invoice not found");
  });

  it("prepareLightningReceiveClaim sends the VTXO proof, the token or no proof, and maps the receive and the full HTLC VTXOs", async () => {
    const seen: PrepareLightningReceiveClaimRequest[] = [];
    const server = await fx.start({
      ark: {
        prepareLightningReceiveClaim: (c, cb) => {
          seen.push(c.request);
          cb(null, { receive: wire(LightningReceiveStatus.HTLCS_READY, [bytes(7)]), htlcVtxos: [bytes(8, 8)] });
        },
      },
    });
    const ark = open(server.url);
    const base = { paymentHash: bytes(1), userPubkey: bytes(2), htlcRecvExpiry: 700 };
    const res = await ark.prepareLightningReceiveClaim({ ...base, antiDos: { kind: "vtxo", vtxoId: bytes(3), attestation: bytes(4) } });
    expect(res).to.deep.equal({ receive: { invoice: "lnbcrt1…", amountSat: 21_000n, state: "htlcs-ready", htlcVtxoIds: [bytes(7)] }, htlcVtxos: [bytes(8, 8)] });
    await ark.prepareLightningReceiveClaim({ ...base, antiDos: { kind: "token", token: "tok" } });
    await ark.prepareLightningReceiveClaim(base);
    expect(seen[0]).to.deep.include({ ...base, lightningReceiveAntiDos: { $case: "inputVtxo", value: { vtxoId: bytes(3), attestation: bytes(4) } } });
    expect(seen[1]).to.deep.include({ ...base, lightningReceiveAntiDos: { $case: "token", value: "tok" } });
    expect(seen[2]!.lightningReceiveAntiDos).to.equal(undefined);
  });

  it("prepareLightningReceiveClaim without the receive in the answer is an invalid server response", async () => {
    const server = await fx.start({ ark: { prepareLightningReceiveClaim: (_c, cb) => cb(null, { receive: undefined, htlcVtxos: [] }) } });
    const err = await open(server.url).prepareLightningReceiveClaim({ paymentHash: bytes(1), userPubkey: bytes(2), htlcRecvExpiry: 1 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(InvalidServerResponseError);
  });

  it("claimLightningReceive sends the preimage and every cosign part and maps the server's nonces and partial signatures; refusals keep their text", async () => {
    const seen: ClaimLightningReceiveRequest[] = [];
    const server = await fx.start({
      ark: {
        claimLightningReceive: (c, cb) => {
          seen.push(c.request);
          if (c.request.paymentPreimage[0] === 0) return cb(grpcError(grpc.status.INVALID_ARGUMENT, "bad user input: preimage doesn't match payment hash"));
          cb(null, ArkoorPackageCosignResponse.create({ parts: [{ serverPubNonces: [bytes(6)], serverPartialSigs: [bytes(7)] }] }));
        },
      },
    });
    const ark = open(server.url);
    const part = {
      inputVtxoId: bytes(1), outputs: [{ amount: 5_000n, policy: bytes(9, 1) }], isolatedOutputs: [], userPubNonces: [bytes(3)], useCheckpoint: true, attestation: bytes(5),
    };
    expect(await ark.claimLightningReceive({ paymentHash: bytes(1), preimage: bytes(2), parts: [part] })).to.deep.equal([{ serverPubNonces: [bytes(6)], serverPartialSigs: [bytes(7)] }]);
    expect(seen[0]).to.deep.equal({
      paymentHash: bytes(1), paymentPreimage: bytes(2),
      cosignRequest: { parts: [{ ...part, outputs: [{ totalAmount: 5_000n, policy: bytes(9, 1) }] }] },
    });
    const bad = await ark.claimLightningReceive({ paymentHash: bytes(1), preimage: bytes(0), parts: [part] }).catch((e: unknown) => e);
    expect(bad).to.be.instanceOf(ArkServerRejectedError);
    expect((bad as Error).message).to.contain("preimage doesn't match payment hash");
  });

  it("cancelLightningReceive sends the payment hash; the server's refusal keeps its text", async () => {
    const seen: CancelLightningReceiveRequest[] = [];
    const server = await fx.start({
      ark: {
        cancelLightningReceive: (c, cb) => {
          seen.push(c.request);
          if (c.request.paymentHash[0] === 2) return cb(grpcError(grpc.status.INVALID_ARGUMENT, "bad user input: cannot cancel: HTLC-recv vtxos have already been granted"));
          cb(null, {});
        },
      },
    });
    const ark = open(server.url);
    await ark.cancelLightningReceive(bytes(1));
    expect(seen[0]).to.deep.equal({ paymentHash: bytes(1) });
    const refused = await ark.cancelLightningReceive(bytes(2)).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(ArkServerRejectedError);
    expect((refused as Error).message).to.contain("cannot cancel: HTLC-recv vtxos have already been granted");
  });
});
