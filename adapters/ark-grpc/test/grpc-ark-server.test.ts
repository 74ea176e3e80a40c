import { expect } from "chai";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import * as grpc from "@grpc/grpc-js";
import {
  ArkClientClosedError, ArkServerRejectedError, InvalidArkInfoError, UnknownWalletNetworkError, type ArkServer, type MailboxMessage as DomainMailboxMessage,
  type PinnedServerKeys,
} from "@tender/ark-protocol/server";
import {
  ArkoorCosignResponse, ArkoorPackageCosignResponse, BoardCosignResponse, MailboxMessage, MailboxMessages, NextRoundTimeResponse,
  grpcArkServerConnectorWith, type ArkoorPackageCosignRequest, type BoardCosignRequest, type MailboxRequest,
} from "../src/index.js";
import { FAST_BACKOFF, MAILBOX_PUBKEY, SERVER_PUBKEY, grpcError, sampleArkInfo, until, useFakeServers } from "./fake-server.js";

const connector = grpcArkServerConnectorWith({ backoff: FAST_BACKOFF });
const bytes = (...b: number[]) => new Uint8Array(b);

/** A `MailboxMessage` whose kind (field 9) our `.proto` does not have. */
function unknownKind(checkpoint: bigint): Uint8Array {
  return new BinaryWriter().uint32((9 << 3) | 2).bytes(bytes(0xca, 0xfe)).uint32(16).uint64(checkpoint).finish();
}

/** One message of every kind the `.proto` knows, checkpoints 1..5. */
const KNOWN: MailboxMessage[] = [
  MailboxMessage.create({ checkpoint: 1n, message: { $case: "arkoor", value: { vtxos: [bytes(1), bytes(2)] } } }),
  MailboxMessage.create({ checkpoint: 2n, message: { $case: "roundParticipationCompleted", value: { paymentHashes: [], unlockHash: bytes(3) } } }),
  MailboxMessage.create({ checkpoint: 3n, message: { $case: "incomingLightningPayment", value: { paymentHash: bytes(4), amountMsat: 5_000n } } }),
  MailboxMessage.create({ checkpoint: 4n, message: { $case: "recoveryVtxoIds", value: { vtxoIds: [bytes(5)] } } }),
  MailboxMessage.create({ checkpoint: 5n, message: { $case: "lightningSendFinished", value: { paymentHash: bytes(6), preimage: bytes(7) } } }),
];

const EXPECTED: DomainMailboxMessage[] = [
  { kind: "arkoor", checkpoint: 1n, vtxos: [bytes(1), bytes(2)] },
  { kind: "round-participation-completed", checkpoint: 2n, unlockHash: bytes(3) },
  { kind: "incoming-lightning-payment", checkpoint: 3n, paymentHash: bytes(4), amountMsat: 5_000n },
  { kind: "recovery-vtxo-ids", checkpoint: 4n, vtxoIds: [bytes(5)] },
  { kind: "lightning-send-finished", checkpoint: 5n, paymentHash: bytes(6), preimage: bytes(7) },
  { kind: "unknown", checkpoint: 6n, bytes: unknownKind(6n) },
];

/** A `ReadMailbox` page of {@link KNOWN} and one unknown kind, encoded by hand. */
function rawPage(): Uint8Array {
  const w = new BinaryWriter();
  for (const m of KNOWN) w.uint32(10).bytes(MailboxMessage.encode(m).finish());
  w.uint32(10).bytes(unknownKind(6n));
  return w.uint32(16).bool(true).finish();
}

describe("ark-grpc as the Ark server port: generated messages ↔ plain data", () => {
  const fx = useFakeServers();
  const open = (url: string, extra: { network?: string; pinnedKeys?: PinnedServerKeys; onKeysPinned?: (k: PinnedServerKeys) => void } = {}): ArkServer =>
    fx.track(connector.open({ url, network: "regtest", ...extra }));

  it("maps Ark info: bigint amounts, numbers for deltas, the fee schedule, no limit as undefined, vtxo_lifetime falling back to vtxo_expiry_delta", async () => {
    const server = await fx.start({ ark: { getArkInfo: (_c, cb) => cb(null, sampleArkInfo({ vtxoLifetime: 0, vtxoExpiryDelta: 200, maxVtxoAmount: undefined })) } });
    const ark = open(server.url);
    expect(ark.connected).to.equal(false);
    expect(ark.session).to.equal(undefined);
    const session = await ark.connect();
    expect(session.protocolVersion).to.equal(5);
    expect(ark.connected).to.equal(true);
    expect(ark.session).to.equal(session);
    const i = session.arkInfo;
    expect(Buffer.from(i.serverPubkey)).to.deep.equal(Buffer.from(SERVER_PUBKEY));
    expect(Buffer.from(i.mailboxPubkey)).to.deep.equal(Buffer.from(MAILBOX_PUBKEY));
    expect(i.vtxoLifetime).to.equal(200);
    expect(i.maxVtxoAmount).to.equal(undefined);
    expect(i).to.deep.include({
      network: "regtest", roundIntervalSecs: 3600, nbRoundNonces: 3, vtxoExitDelta: 12, htlcSendExpiryDelta: 20, htlcExpiryDelta: 6,
      requiredBoardConfirmations: 2, maxUserInvoiceCltvDelta: 200, minBoardAmount: 20_000n, offboardFeerateSatVkb: 1_000n,
      lnReceiveAntiDosRequired: true, maxVtxoExitDepth: 20, maxOffboardInputs: 100, tosLink: "https://example.invalid/tos",
    });
    expect(i.fees).to.deep.equal({
      board: { minFeeSat: 330n, baseFeeSat: 100n, ppm: 1_000n },
      offboard: { baseFeeSat: 200n, fixedAdditionalVb: 100n, ppmExpiryTable: [{ expiryBlocksThreshold: 10, ppm: 100n }, { expiryBlocksThreshold: 50, ppm: 500n }] },
      refresh: { baseFeeSat: 50n, ppmExpiryTable: [] },
      lightningReceive: { baseFeeSat: 10n, ppm: 2_000n },
      lightningSend: { minFeeSat: 5n, baseFeeSat: 7n, ppmExpiryTable: [{ expiryBlocksThreshold: 0, ppm: 3_000n }] },
    });
  });

  it("opens the connection for the wallet's network and pins through the callback; a wrong or unknown network is refused", async () => {
    const server = await fx.start();
    const pinned: PinnedServerKeys[] = [];
    await open(server.url, { onKeysPinned: (k) => void pinned.push(k) }).connect();
    expect(pinned.map((k) => Buffer.from(k.serverPubkey).toString("hex"))).to.deep.equal([Buffer.from(SERVER_PUBKEY).toString("hex")]);
    const mainnet = await open(server.url, { network: "mainnet" }).connect().catch((e: unknown) => e);
    expect(mainnet).to.be.instanceOf(InvalidArkInfoError);
    expect((mainnet as Error).message).to.equal("network mismatch. Expected: bitcoin, Got: regtest");
    expect(() => open(server.url, { network: "testnet3" })).to.throw(UnknownWalletNetworkError, "unknown wallet network: testnet3");
  });

  it("sends arkoor and board co-sign requests field by field and maps the answers back", async () => {
    let arkoor: ArkoorPackageCosignRequest | undefined;
    let board: BoardCosignRequest | undefined;
    const server = await fx.start({
      ark: {
        requestArkoorCosign: (c, cb) => {
          arkoor = c.request;
          cb(null, ArkoorPackageCosignResponse.create({ parts: [ArkoorCosignResponse.create({ serverPubNonces: [bytes(8)], serverPartialSigs: [bytes(9)] })] }));
        },
        requestBoardCosign: (c, cb) => {
          board = c.request;
          cb(null, BoardCosignResponse.create({ pubNonce: bytes(10), partialSig: bytes(11) }));
        },
        nextRoundTime: (_c, cb) => cb(null, NextRoundTimeResponse.create({ timestamp: 1_900_000_000n })),
      },
    });
    const ark = open(server.url);
    const parts = await ark.requestArkoorCosign([{
      inputVtxoId: bytes(1), outputs: [{ amount: 1_000n, policy: bytes(2) }], isolatedOutputs: [{ amount: 330n, policy: bytes(3) }],
      userPubNonces: [bytes(4), bytes(5)], useCheckpoint: true, attestation: bytes(6),
    }]);
    expect(parts).to.deep.equal([{ serverPubNonces: [bytes(8)], serverPartialSigs: [bytes(9)] }]);
    expect(arkoor!.parts).to.deep.equal([{
      inputVtxoId: bytes(1), outputs: [{ totalAmount: 1_000n, policy: bytes(2) }], isolatedOutputs: [{ totalAmount: 330n, policy: bytes(3) }],
      userPubNonces: [bytes(4), bytes(5)], useCheckpoint: true, attestation: bytes(6),
    }]);
    const signed = await ark.requestBoardCosign({ amount: 50_000n, utxo: bytes(1), expiryHeight: 900, userPubkey: bytes(2), pubNonce: bytes(3), fundingTx: bytes(4) });
    expect(signed).to.deep.equal({ pubNonce: bytes(10), partialSig: bytes(11) });
    expect(board).to.deep.equal({ amount: 50_000n, utxo: bytes(1), expiryHeight: 900, userPubkey: bytes(2), pubNonce: bytes(3), fundingTx: bytes(4) });
    expect(await ark.nextRoundTime()).to.equal(1_900_000_000);
  });

  it("registers VTXOs and posts to mailboxes with the given bytes", async () => {
    const seen: Record<string, unknown> = {};
    const ok = (name: string) => (c: { request: unknown }, cb: grpc.sendUnaryData<object>) => {
      seen[name] = c.request;
      cb(null, {});
    };
    const server = await fx.start({
      ark: { registerVtxoTransactions: ok("register"), registerBoardVtxo: ok("board") },
      mailbox: { postArkoorMessage: ok("arkoor"), postRecoveryVtxoIds: ok("recovery") },
    });
    const ark = open(server.url);
    await ark.registerVtxoTransactions([bytes(1), bytes(2)]);
    await ark.registerBoardVtxo(bytes(3));
    await ark.postArkoorMessage(bytes(4), [bytes(5)]);
    await ark.postRecoveryVtxoIds({ mailboxId: bytes(6), vtxoIds: [bytes(7)], authorization: bytes(8) });
    expect(seen).to.deep.equal({
      register: { vtxos: [bytes(1), bytes(2)] }, board: { boardVtxo: bytes(3) }, arkoor: { blindedId: bytes(4), vtxos: [bytes(5)] },
      recovery: { mailboxId: bytes(6), vtxoIds: [bytes(7)], authorization: bytes(8) },
    });
  });

  it("reads every mailbox message kind as plain data; a kind our .proto lacks keeps its bytes exactly", async () => {
    let request: MailboxRequest | undefined;
    const server = await fx.start({ rawMailbox: { readMailbox: (c, cb) => { request = c.request; cb(null, rawPage()); } } });
    const page = await open(server.url).readMailbox({ mailboxId: bytes(2, 1), authorization: bytes(9), checkpoint: 0n });
    expect(page.haveMore).to.equal(true);
    expect(page.messages).to.deep.equal(EXPECTED);
    expect(request).to.deep.equal({ mailboxId: bytes(2, 1), authorization: bytes(9), checkpoint: 0n });
    // the generated decoder drops what it does not know: the page decodes with the unknown one empty
    expect(MailboxMessages.decode(rawPage()).messages[5]).to.deep.equal({ message: undefined, checkpoint: 6n });
  });

  it("streams the mailbox as plain data (unknown kinds included) and close() ends the subscription and refuses later calls", async () => {
    const server = await fx.start({
      rawMailbox: {
        subscribeMailbox: (call) => {
          for (const m of KNOWN) call.write(MailboxMessage.encode(m).finish());
          call.write(unknownKind(6n));
        },
      },
    });
    const ark = open(server.url);
    const seen: DomainMailboxMessage[] = [];
    const sub = ark.subscribeMailbox({ mailboxId: bytes(2, 1), checkpoint: 0n, authorization: () => bytes(9), onMessage: async (m) => void seen.push(m) });
    await until(() => seen.length === 6);
    expect(seen).to.deep.equal(EXPECTED);
    ark.close();
    expect(await sub.done).to.deep.equal({ reason: "stopped" });
    expect(await ark.nextRoundTime().catch((e: unknown) => e)).to.be.instanceOf(ArkClientClosedError);
  });

  it("throws the port's error classes, so the daemon catches them without knowing gRPC", async () => {
    const server = await fx.start({ ark: { registerBoardVtxo: (_c, cb) => cb(grpcError(grpc.status.INVALID_ARGUMENT, "bad user input: not confirmed")) } });
    const e = await open(server.url).registerBoardVtxo(bytes(1)).catch((x: unknown) => x);
    expect(e).to.be.instanceOf(ArkServerRejectedError);
    expect((e as ArkServerRejectedError).message).to.equal("Ark server RegisterBoardVtxo failed (INVALID_ARGUMENT): bad user input: not confirmed");
  });
});
