import { expect } from "chai";
import { encodeOutPoint, encodeTx, encodeVtxo, exitTransactions, formatOutPoint, fromHex, reverseBytes } from "@tender/ark-protocol";
import { BadUserInputError, NotFoundError, RequestConversionError } from "../../src/ark-server/server-errors.js";
import { newKey, pubkeyPolicy, WalletKit } from "./wallet-kit.js";
import { rejection, serverFixture, type ServerFixture } from "./fixture.js";

describe("ark server: boards (captaind's board cosign and registration checks)", function () {
  this.timeout(30_000);
  let f: ServerFixture;
  let w: WalletKit;
  beforeEach(async () => {
    f = await serverFixture();
    w = new WalletKit(f.api, f.node);
  });
  afterEach(() => f.close());

  it("cosigns a board, registers it once confirmed, and reports it spendable", async () => {
    const vtxo = await w.board(100_000n);
    expect(vtxo.amount).to.equal(100_000n);
    const stored = await f.server.getVtxo(encodeOutPoint(vtxo.point));
    expect(stored).to.deep.equal(encodeVtxo(vtxo));
    const row = await f.server.ctx.store.getVtxo(`${Buffer.from(reverseBytes(vtxo.point.txid)).toString("hex")}:0`);
    expect(row?.state).to.equal("spendable");
  });

  it("re-registering the same board changes nothing", async () => {
    const vtxo = await w.board(50_000n);
    await f.server.registerBoardVtxo(encodeVtxo(vtxo));
    expect((await f.server.ctx.store.getVtxo(`${Buffer.from(reverseBytes(vtxo.point.txid)).toString("hex")}:0`))?.state).to.equal("spendable");
  });

  it("refuses to register an unconfirmed board", async () => {
    const vtxo = await w.cosignBoard(await w.prepareBoard(40_000n));
    const err = await rejection(f.server.registerBoardVtxo(encodeVtxo(vtxo)));
    expect(err).to.be.instanceOf(BadUserInputError);
    expect(err.message).to.equal("bad user input: board funding tx still unconfirmed");
  });

  it("refuses a board with too few confirmations", async () => {
    const g = await serverFixture({ overrides: { requiredBoardConfirmations: 3 } });
    try {
      const wk = new WalletKit(g.api, g.node);
      const vtxo = await wk.cosignBoard(await wk.prepareBoard(40_000n));
      g.node.mine(2);
      const err = await rejection(g.server.registerBoardVtxo(encodeVtxo(vtxo)));
      expect(err.message).to.match(/^bad user input: funding tx has 2 confirmations, requires 3: [0-9a-f]{64}:0$/);
      g.node.mine(1);
      await g.server.registerBoardVtxo(encodeVtxo(vtxo));
    } finally {
      await g.close();
    }
  });

  it("refuses to register a board VTXO made for another server key", async () => {
    const foreign = newKey();
    const api = { ...f.api, arkInfo: async () => ({ ...(await f.api.arkInfo()), serverPubkey: foreign.pk }) };
    const other = new WalletKit(api, f.node);
    const b = await other.prepareBoard(30_000n);
    // complete the MuSig2 with the foreign key standing in for the server
    const { musigRespondCosign } = await import("@tender/ark-protocol");
    const resp = musigRespondCosign({ secretKey: foreign.sk, pubkey: foreign.pk, otherPubkey: b.key.pk, otherPubNonce: b.nonce.pubNonce, message: b.exit.sighash, tweak: b.exit.tweak });
    const vtxo = await new WalletKit({ ...api, requestBoardCosign: async () => resp }, f.node).cosignBoard(b);
    f.node.mine(1);
    const err = await rejection(f.server.registerBoardVtxo(encodeVtxo(vtxo)));
    expect(err.message).to.match(/^bad user input: vtxo is not a board/);
  });

  it("refuses amounts below the minimum and above the maximum, and fees that eat the amount", async () => {
    const b = await w.prepareBoard(19_999n);
    expect((await rejection(f.server.requestBoardCosign(b.request, 5))).message).to.equal("bad user input: board amount must be at least 20000 sat");
    const g = await serverFixture({ overrides: { maxVtxoAmount: 50_000n, minBoardAmount: 100n, fees: { ...f.server.config.fees, board: { minFeeSat: 400n, baseFeeSat: 0n, ppm: 0n } } } });
    try {
      const wk = new WalletKit(g.api, g.node);
      expect((await rejection(g.server.requestBoardCosign((await wk.prepareBoard(50_001n)).request, 5))).message).to.equal("bad user input: board amount exceeds limit of 50000 sat");
      expect((await rejection(g.server.requestBoardCosign({ ...(await wk.prepareBoard(1_000n)).request, amount: 329n }, 5))).message).to.equal("bad user input: board amount must be at least 330 sat");
      expect((await rejection(g.server.requestBoardCosign({ ...(await wk.prepareBoard(1_000n)).request, amount: 400n }, 5))).message).to.equal("bad user input: Board amount cannot support required fee");
    } finally {
      await g.close();
    }
  });

  it("refuses expired and overlong expiry heights", async () => {
    const tip = f.node.tipHeight();
    const expired = await w.prepareBoard(30_000n, { expiryHeight: tip - 1 });
    expect((await rejection(f.server.requestBoardCosign(expired.request, 5))).message).to.equal(`bad user input: VTXO already expired: ${tip - 1} (tip = ${tip})`);
    const long = await w.prepareBoard(30_000n, { expiryHeight: tip + 432 + 4 });
    expect((await rejection(f.server.requestBoardCosign(long.request, 5))).message).to.equal("bad user input: requested VTXO lifetime 436 is too high (server VTXO lifetime is 432)");
    const edge = await w.prepareBoard(30_000n, { expiryHeight: tip + 432 + 3 });
    await f.server.requestBoardCosign(edge.request, 5);
  });

  it("refuses an outpoint that is not in the funding tx, and old clients", async () => {
    const b = await w.prepareBoard(30_000n);
    const badVout = { ...b.request, utxo: encodeOutPoint({ txid: reverseBytes(fromHex(b.fundingTxid)), vout: 9 }) };
    expect((await rejection(f.server.requestBoardCosign(badVout, 5))).message).to.equal("bad user input: board outpoint does not match funding tx (vout)");
    const badTxid = { ...b.request, utxo: encodeOutPoint({ txid: new Uint8Array(32).fill(7), vout: b.vout }) };
    expect((await rejection(f.server.requestBoardCosign(badTxid, 5))).message).to.equal("bad user input: board outpoint does not match funding tx (txid)");
    expect((await rejection(f.server.requestBoardCosign(b.request, 3))).message).to.equal("bad user input: Your client version is too old, you need to update in order to be able to board.");
  });

  it("refuses undecodable request fields before any rule", async () => {
    const b = await w.prepareBoard(30_000n);
    const cases: [Partial<typeof b.request>, string][] = [
      [{ userPubkey: new Uint8Array(33) }, "invalid public key"],
      [{ utxo: new Uint8Array(35) }, "invalid outpoint"],
      [{ pubNonce: new Uint8Array(66) }, "invalid public musig nonce"],
      [{ fundingTx: new Uint8Array(0) }, "invalid bitcoin transaction"],
    ];
    for (const [patch, text] of cases) {
      const err = await rejection(f.server.requestBoardCosign({ ...b.request, ...patch }, 5));
      expect(err, text).to.be.instanceOf(RequestConversionError);
      expect(err.message).to.equal(text);
    }
  });

  it("refuses funding txs whose inputs are unknown to the chain", async () => {
    const b = await w.prepareBoard(30_000n);
    const raw = new Uint8Array(b.fundingRaw);
    // the first input's prevout txid starts after version(4) + marker/flag(2) + count(1)
    raw[7] = raw[7]! ^ 0xff;
    const { decodeTx, txid, encodeOutPoint: enc } = await import("@tender/ark-protocol");
    const tx = decodeTx(raw);
    const req = { ...b.request, fundingTx: raw, utxo: enc({ txid: txid(tx), vout: b.vout }) };
    const err = await rejection(f.server.requestBoardCosign(req, 5));
    expect(err.message).to.match(/^bad user input: invalid funding tx: unknown input tx [0-9a-f]{64}$/);
  });

  it("accepts a funding tx whose input's parent is only in the mempool", async () => {
    const parentTxid = f.node.faucet(f.node.faucetAddress(), 50_000n);
    expect(f.node.getTxStatus(parentTxid)?.confirmed).to.equal(false);
    const b = await w.prepareUnsignedBoard(40_000n, [{ txid: reverseBytes(fromHex(parentTxid)), vout: 0 }]);
    const resp = await f.server.requestBoardCosign(b.request, 5);
    expect(resp.partialSig).to.have.length(32);
  });

  it("refuses a funding tx spending a VTXO, and one that is a known virtual tx", async () => {
    const coin = await w.board(30_000n);
    const b = await w.prepareUnsignedBoard(30_000n, [coin.point]);
    expect((await rejection(f.server.requestBoardCosign(b.request, 5))).message).to.equal(`bad user input: invalid funding tx: input is a VTXO: ${formatOutPoint(coin.point)}`);
    // a virtual tx the server stored (the checkpoint tx of an arkoor), passed off as a board funding tx
    const { parts } = w.prepareArkoor([coin], [{ amount: 30_000n, policy: pubkeyPolicy(newKey().pk) }]);
    await f.server.requestArkoorCosign(parts);
    const row = await f.server.ctx.store.getVtxo(formatOutPoint(coin.point));
    const virtual = (await f.server.ctx.store.getTx(row!.oorSpentTxid!))!;
    const vb = await w.prepareBoard(30_000n);
    const req = { ...vb.request, fundingTx: virtual.raw, utxo: encodeOutPoint({ txid: reverseBytes(fromHex(virtual.txid)), vout: 0 }) };
    expect((await rejection(f.server.requestBoardCosign(req, 5))).message).to.equal(`bad user input: invalid funding tx: known as virtual tx: ${virtual.txid}`);
  });

  it("refuses registration once the board's exit tx spent the funding output", async () => {
    const vtxo = await w.cosignBoard(await w.prepareBoard(40_000n));
    f.node.mine(1);
    f.node.mineTransactions(exitTransactions(vtxo).map((t) => encodeTx(t)));
    const err = await rejection(f.server.registerBoardVtxo(encodeVtxo(vtxo)));
    expect(err.message).to.equal("bad user input: VTXO funding output is already spent, user exit in progress");
  });

  it("an unregistered board cannot be spent (NOT_FOUND naming it)", async () => {
    const vtxo = await w.cosignBoard(await w.prepareBoard(40_000n));
    f.node.mine(1);
    const { parts } = w.prepareArkoor([vtxo], [{ amount: 40_000n, policy: pubkeyPolicy(newKey().pk) }]);
    const err = await rejection(f.server.requestArkoorCosign(parts));
    expect(err).to.be.instanceOf(NotFoundError);
    expect((err as NotFoundError).identifiers).to.deep.equal([formatOutPoint(vtxo.point)]);
  });

  it("answers NOT_FOUND for registering a board whose funding tx the chain never saw", async () => {
    const b = await w.prepareBoard(30_000n);
    const vtxo = await w.cosignBoard(b);
    f.node.evict(b.fundingTxid);
    const err = await rejection(f.server.registerBoardVtxo(encodeVtxo(vtxo)));
    expect(err).to.be.instanceOf(NotFoundError);
  });
});
