import { expect } from "chai";
import {
  ArkServerClient,
  ArkServerConnectionLostError,
  ArkServerUnavailableError,
  MailboxPubkeyChangedError,
  MAILBOX_PUBKEY_CHANGED_MESSAGE,
  type PinnedServerKeys,
  ServerPubkeyChangedError,
  SERVER_PUBKEY_CHANGED_MESSAGE,
} from "../src/index.js";
import { FakeArkServer, MAILBOX_PUBKEY, SERVER_PUBKEY, sampleArkInfo, until, useFakeServers } from "./fake-server.js";

const OTHER_KEY = new Uint8Array([0x02, ...new Array<number>(32).fill(0x55)]);

describe("ark-grpc server identity pinning", () => {
  const fx = useFakeServers();
  let server: FakeArkServer;
  let client: ArkServerClient | undefined;

  it("pins both server keys on the first connection and hands them over for storage", async () => {
    server = await fx.server().start();
    const stored: PinnedServerKeys[] = [];
    client = fx.client({ url: server.url, network: "regtest", onKeysPinned: (k) => void stored.push(k) });
    await client.connect();
    expect(stored).to.have.length(1);
    expect(Buffer.from(stored[0]!.serverPubkey).toString("hex")).to.equal(Buffer.from(SERVER_PUBKEY).toString("hex"));
    expect(Buffer.from(stored[0]!.mailboxPubkey).toString("hex")).to.equal(Buffer.from(MAILBOX_PUBKEY).toString("hex"));
    expect(client.pinnedKeys).to.deep.equal(stored[0]);
  });

  it("accepts a server that presents the pinned keys again", async () => {
    server = await fx.server().start();
    client = fx.client({ url: server.url, network: "regtest", pinnedKeys: { serverPubkey: SERVER_PUBKEY, mailboxPubkey: MAILBOX_PUBKEY } });
    await client.connect();
    expect(client.connected).to.equal(true);
  });

  it("refuses a server whose key changed with bark's 'exit all your VTXOs' text, and stays refused", async () => {
    server = await fx.server({ ark: { getArkInfo: (_c, cb) => cb(null, sampleArkInfo({ serverPubkey: OTHER_KEY })) } }).start();
    client = fx.client({ url: server.url, network: "regtest", pinnedKeys: { serverPubkey: SERVER_PUBKEY, mailboxPubkey: MAILBOX_PUBKEY } });
    const err = await client.connect().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ServerPubkeyChangedError);
    expect((err as Error).message).to.equal(SERVER_PUBKEY_CHANGED_MESSAGE);
    expect(SERVER_PUBKEY_CHANGED_MESSAGE).to.equal("Server public key has changed. You should exit all your VTXOs!");
    expect((err as ServerPubkeyChangedError).receivedHex).to.equal(Buffer.from(OTHER_KEY).toString("hex"));
    expect(client.connected).to.equal(false);
    // wallet calls never reach the server while it is not the pinned one
    const call = await client.ark("getOffboardFeeRate", {}).catch((e: unknown) => e);
    expect(call).to.be.instanceOf(ServerPubkeyChangedError);
    expect(server.callsTo("GetOffboardFeeRate")).to.have.length(0);
    expect(await client.heartbeat()).to.equal(false);
  });

  it("refuses a server whose mailbox key changed", async () => {
    server = await fx.server({ ark: { getArkInfo: (_c, cb) => cb(null, sampleArkInfo({ mailboxPubkey: OTHER_KEY })) } }).start();
    client = fx.client({ url: server.url, network: "regtest", pinnedKeys: { serverPubkey: SERVER_PUBKEY, mailboxPubkey: MAILBOX_PUBKEY } });
    const err = await client.connect().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(MailboxPubkeyChangedError);
    expect((err as Error).message).to.equal(MAILBOX_PUBKEY_CHANGED_MESSAGE);
  });

  it("checks the identity again when a live channel silently reconnects to a restarted server", async () => {
    server = await fx.server().start();
    client = fx.client({ url: server.url, network: "regtest" });
    await client.connect();
    server.handlers = { ark: { getArkInfo: (_c, cb) => cb(null, sampleArkInfo({ serverPubkey: OTHER_KEY })) } };
    await server.restart(); // no call failed: only the channel noticed
    await until(() => !client!.connected);
    expect(client.lastError).to.be.instanceOf(ArkServerConnectionLostError);
    expect(await client.heartbeat()).to.equal(false);
    expect(client.lastError).to.be.instanceOf(ServerPubkeyChangedError);
    expect(await client.ark("getOffboardFeeRate", {}).catch((e: unknown) => e)).to.be.instanceOf(ServerPubkeyChangedError);
    expect(server.callsTo("GetOffboardFeeRate")).to.have.length(0);
  });

  it("keeps the first pinned key across reconnections: a server replaced by another one is refused", async () => {
    server = await fx.server().start();
    client = fx.client({ url: server.url, network: "regtest", backoff: { initialMs: 10, maxMs: 20 } });
    await client.connect();
    server.stop();
    expect(await client.ark("getOffboardFeeRate", {}).catch((e: unknown) => e)).to.be.instanceOf(ArkServerUnavailableError);
    expect(client.connected).to.equal(false);
    server.handlers = { ark: { getArkInfo: (_c, cb) => cb(null, sampleArkInfo({ serverPubkey: OTHER_KEY })) } };
    await server.start();
    const err = await client.connectWithBackoff({ maxAttempts: 20 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ServerPubkeyChangedError);
  });
});
