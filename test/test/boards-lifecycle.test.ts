import { expect } from "chai";
import { Transaction } from "bitcoinjs-lib";
import { displayHex, encodeOutPoint, parseOutPoint, toHex } from "@tender/ark-protocol";
import { generateMnemonic, masterKey } from "@tender/plugin-wallet";
import WebSocket from "ws";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  BOARD_DAEMON_CONFIG, MIN_BOARD_SAT, REQUIRED_CONFIRMATIONS, boardFeeOf, fundedWallet, movement, ok, startBoardDevnet, until,
  type DevnetWithArk, type Movement, type PendingBoardInfo,
} from "./boards-harness.js";

interface OnchainBalance { total_sat: number; confirmed_sat: number; trusted_pending_sat: number }
interface ArkBalance { spendable_sat: number; pending_board_sat: number }
interface VtxoInfo { id: string; amount_sat: number; chain_anchor: string; state: { type: string } }
interface WaitResponse { notifications: { type: string; movement?: Movement }[]; last_pushed_at: string | null }

describe("boards over HTTP on the devnet with the reference Ark server (board routes, board fee estimate)", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let d: Daemon;

  before(async () => { devnet = await startBoardDevnet("boards-e2e"); });
  after(async () => { await devnet.stop(); });
  beforeEach(async () => { d = await startDaemon({ config: BOARD_DAEMON_CONFIG }); });
  afterEach(async () => { await d.stop(); cleanup(d.datadir); });

  const serverVtxoState = async (id: string) => (await devnet.ark.server.ctx.store.getVtxo(id))?.state;

  it("boards an amount: pending until the server's confirmations, then registered, with its movement and notifications", async () => {
    const mnemonic = generateMnemonic();
    await fundedWallet(d, devnet, [300_000n], mnemonic);
    const fee = await ok<{ gross_amount_sat: number; fee_sat: number; net_amount_sat: number; vtxos_spent: string[] }>(d, "GET", "/api/v1/fees/board?amount_sat=200000");
    expect(fee).to.deep.equal({ gross_amount_sat: 200_000, fee_sat: boardFeeOf(200_000), net_amount_sat: 200_000 - boardFeeOf(200_000), vtxos_spent: [] });
    const since = (await ok<WaitResponse>(d, "GET", "/api/v1/notifications/wait")).last_pushed_at;
    const ticket = await ok<string>(d, "GET", "/api/v1/notifications/ws/ticket");
    const ws = new WebSocket(`ws://127.0.0.1:${d.port}/api/v1/notifications/ws?ticket=${ticket}`);
    const frames: { type: string; movement?: Movement }[] = [];
    ws.on("message", (data) => frames.push(JSON.parse(String(data)) as { type: string; movement?: Movement }));
    await new Promise<void>((resolve, reject) => { ws.once("open", () => resolve()); ws.once("error", reject); });

    const board = await ok<PendingBoardInfo>(d, "POST", "/api/v1/boards/board-amount", { amount_sat: 200_000 });
    expect(board.amount_sat).to.equal(fee.net_amount_sat);
    expect(board.vtxos).to.have.length(1);
    const tx = Transaction.fromHex(board.funding_tx.tx);
    expect(tx.getId()).to.equal(board.funding_tx.txid);
    expect(tx.outs[0]!.value).to.equal(200_000n);
    expect(devnet.node.getTransaction(board.funding_tx.txid)?.status.confirmed, "funding tx broadcast").to.equal(false);
    expect(await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).to.deep.equal([board]);
    expect(await ok<ArkBalance>(d, "GET", "/api/v1/wallet/balance")).to.deep.include({ spendable_sat: 0, pending_board_sat: board.amount_sat });
    const locked = (await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos")).find((v) => v.id === board.vtxos[0]);
    expect(locked).to.deep.include({ amount_sat: board.amount_sat, chain_anchor: `${board.funding_tx.txid}:0` });
    expect(locked!.state.type).to.equal("locked");

    const pending = (await movement(d, board.movement_id))!;
    const onchainFee = Number(tx.ins.length) > 0 ? pending.metadata?.onchain_fee_sat : undefined;
    expect(pending).to.deep.include({
      status: "pending", subsystem: { name: "bark.board", kind: "board" },
      intended_balance_sat: 200_000, effective_balance_sat: board.amount_sat, offchain_fee_sat: boardFeeOf(200_000),
      output_vtxos: board.vtxos, input_vtxos: [], sent_to: [], received_on: [], exited_vtxos: [],
    });
    expect(pending.metadata).to.deep.equal({ chain_anchor: `${board.funding_tx.txid}:0`, onchain_fee_sat: onchainFee });
    expect(onchainFee).to.be.a("number").and.above(0);
    expect(pending.time.completed_at).to.equal(undefined);
    // The on-chain wallet spent the coin: 300 000 − 200 000 − fee is left as change.
    await ok(d, "POST", "/api/v1/onchain/sync");
    expect((await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance")).total_sat).to.equal(100_000 - (onchainFee as number));

    // One confirmation is not enough for the server (it requires two).
    devnet.node.mine(1);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).to.have.length(1);
    expect(await serverVtxoState(board.vtxos[0]!)).to.equal(undefined);

    devnet.node.mine(REQUIRED_CONFIRMATIONS - 1);
    const done = await until("the board to be registered", async () => {
      const m = await movement(d, board.movement_id);
      return m?.status === "successful" ? m : undefined;
    });
    expect(done.time.completed_at).to.be.a("string");
    expect(await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).to.deep.equal([]);
    expect(await serverVtxoState(board.vtxos[0]!)).to.equal("spendable");
    expect(await ok<ArkBalance>(d, "GET", "/api/v1/wallet/balance")).to.deep.include({ spendable_sat: board.amount_sat, pending_board_sat: 0 });
    const spendable = (await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos")).find((v) => v.id === board.vtxos[0]);
    expect(spendable!.state).to.deep.equal({ type: "spendable" });
    // Its id is backed up in the wallet's recovery mailbox (m/350'/2').
    const recoveryId = toHex(masterKey(mnemonic).derivePath("m/350'/2'").publicKey);
    const backups = await devnet.ark.server.ctx.store.readMailbox(recoveryId, 0n, 100);
    const outpoint = toHex(encodeOutPoint(parseOutPoint(board.vtxos[0]!)));
    expect(backups.filter((b) => b.kind === "recovery").map((b) => toHex(b.payload))).to.include(outpoint);

    const notes = (await ok<WaitResponse>(d, "GET", `/api/v1/notifications/wait${since ? `?since=${encodeURIComponent(since)}` : ""}`)).notifications
      .filter((n) => n.movement?.id === board.movement_id);
    expect(notes.map((n) => [n.type, n.movement!.status])).to.deep.equal([["movement-created", "pending"], ["movement-updated", "successful"]]);
    const pushed = await until("both websocket frames", async () => {
      const mine = frames.filter((f) => f.movement?.id === board.movement_id);
      return mine.length >= 2 ? mine : undefined;
    }, 5_000);
    ws.close();
    expect(pushed.map((n) => [n.type, n.movement!.status, n.movement!.subsystem.name])).to.deep.equal([
      ["movement-created", "pending", "bark.board"], ["movement-updated", "successful", "bark.board"],
    ]);
  });

  it("boards everything with board-all: amount = balance − on-chain fee − board fee, one input per coin", async () => {
    await fundedWallet(d, devnet, [60_000n, 45_000n]);
    const board = await ok<PendingBoardInfo>(d, "POST", "/api/v1/boards/board-all");
    const tx = Transaction.fromHex(board.funding_tx.tx);
    expect(tx.ins).to.have.length(2);
    expect(tx.outs).to.have.length(1);
    const gross = Number(tx.outs[0]!.value);
    const onchainFee = 105_000 - gross;
    expect(onchainFee).to.be.above(0).and.below(2_000);
    expect(board.amount_sat).to.equal(gross - boardFeeOf(gross));
    await ok(d, "POST", "/api/v1/onchain/sync");
    expect((await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance")).total_sat).to.equal(0);
    expect((await movement(d, board.movement_id))!.metadata).to.deep.equal({ chain_anchor: `${board.funding_tx.txid}:0`, onchain_fee_sat: onchainFee });
    devnet.node.mine(REQUIRED_CONFIRMATIONS);
    await until("board-all registration", async () => ((await movement(d, board.movement_id))?.status === "successful" ? true : undefined));
    expect(await serverVtxoState(board.vtxos[0]!)).to.equal("spendable");
  });

  it("runs two boards requested at the same time on different coins, both registered", async () => {
    await fundedWallet(d, devnet, [120_000n, 120_000n]);
    const [a, b] = await Promise.all([
      ok<PendingBoardInfo>(d, "POST", "/api/v1/boards/board-amount", { amount_sat: 100_000 }),
      ok<PendingBoardInfo>(d, "POST", "/api/v1/boards/board-amount", { amount_sat: 100_000 }),
    ]);
    const inputs = (x: PendingBoardInfo) => Transaction.fromHex(x.funding_tx.tx).ins.map((i) => `${displayHex(i.hash)}:${i.index}`);
    expect(inputs(a)).to.have.length(1);
    expect(inputs(b)).to.have.length(1);
    expect(inputs(a)[0]).to.not.equal(inputs(b)[0]);
    expect((await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).map((p) => p.movement_id).sort()).to.deep.equal([a.movement_id, b.movement_id].sort());
    devnet.node.mine(REQUIRED_CONFIRMATIONS);
    await until("both boards registered", async () => ((await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).length === 0 ? true : undefined));
    for (const x of [a, b]) expect((await movement(d, x.movement_id))!.status).to.equal("successful");
    expect((await ok<ArkBalance>(d, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(a.amount_sat + b.amount_sat);
  });

  it("lists the board operations in the served OpenAPI document with barkd's paths and operationIds", async () => {
    const doc = await ok<{ paths: Record<string, Record<string, { operationId: string }>> }>(d, "GET", "/api-docs/openapi.json");
    expect(doc.paths["/api/v1/boards/board-amount"]?.post?.operationId).to.equal("board_amount");
    expect(doc.paths["/api/v1/boards/board-all"]?.post?.operationId).to.equal("board_all");
    expect(doc.paths["/api/v1/boards/pending"]?.get?.operationId).to.equal("get_pending_boards");
    expect(doc.paths["/api/v1/fees/board"]?.get?.operationId).to.equal("board_fee");
  });

  it("refuses bad amounts with barkd's 500 and changes nothing (below the minimum, above the balance, zero)", async () => {
    await fundedWallet(d, devnet, [50_000n]);
    const before = { balance: await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance"), history: await ok<Movement[]>(d, "GET", "/api/v1/history") };
    const mempool = devnet.node.getRawMempool().length;
    const cases: [number, RegExp][] = [
      [MIN_BOARD_SAT - 1, /less than minimum board amount required by server \(20000 sats\)/],
      [0, /less than minimum board amount/],
      [80_000, /^Failed to board|Insufficient funds/],
    ];
    for (const [amount, message] of cases) {
      const r = await d.api("POST", "/api/v1/boards/board-amount", { body: { amount_sat: amount } });
      expect(r.status, `${amount}: ${r.text}`).to.equal(500);
      expect((r.json as { message: string }).message).to.match(message);
    }
    const bad = await d.api("POST", "/api/v1/boards/board-amount", { body: { amount_sat: -5 } });
    expect(bad.status).to.be.oneOf([400, 422]);
    expect(await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).to.deep.equal([]);
    expect(await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance")).to.deep.equal(before.balance);
    expect(await ok<Movement[]>(d, "GET", "/api/v1/history")).to.deep.equal(before.history);
    expect(devnet.node.getRawMempool().length).to.equal(mempool);
  });

  it("answers 422 No wallet set on every board route without a wallet", async () => {
    for (const [m, p] of [["POST", "/api/v1/boards/board-amount"], ["POST", "/api/v1/boards/board-all"], ["GET", "/api/v1/boards/pending"], ["GET", "/api/v1/fees/board?amount_sat=1000"]] as const) {
      const r = await d.api(m, p, m === "POST" ? { body: { amount_sat: 30_000 } } : {});
      expect(r.status, p).to.equal(422);
      expect(r.json).to.deep.equal({ message: "No wallet set" });
    }
  });
});
