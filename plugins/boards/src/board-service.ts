/**
 * Starting boards and listing the pending ones: what the routes and other plugins (balance,
 * sync) call. Wraps the kernel's {@link ActionEngine} for the `boards.board` action.
 */
import { randomUUID } from "node:crypto";
import type { ActionEngine, ActionStatus } from "@tender/core";
import { UnsentBoards } from "./board-action.js";
import { checkBoardAmount } from "./board-amounts.js";
import type { BoardServer, BoardVtxoStore } from "./board-ports.js";
import { BOARD_ACTION_KIND, isPendingBoard, need, type BoardState } from "./board-state.js";
import { BoardRefusedError } from "./errors.js";

/** barkd's `PendingBoardInfo`: the answer of the board routes and the items of `GET /boards/pending`. */
export interface PendingBoardInfo {
  funding_tx: { txid: string; tx: string };
  vtxos: string[];
  amount_sat: number;
  movement_id: number;
}

/** The wallet's boards. */
export class BoardService {
  constructor(
    private readonly engine: ActionEngine,
    private readonly server: BoardServer,
    private readonly unsent = new UnsentBoards(),
    private readonly vtxos?: Pick<BoardVtxoStore, "isExited">,
  ) {}

  /**
   * Boards `amountSat` of the on-chain wallet (or everything with `"all"`): runs the board action
   * until its funding tx is broadcast. Throws {@link BoardRefusedError} (500) when refused, with
   * nothing broadcast; answers the pending board whenever its funding tx may be out, even when the
   * chain source failed meanwhile (it is re-broadcast until mined or double-spent).
   */
  async board(amountSat: bigint | "all"): Promise<PendingBoardInfo> {
    if (amountSat !== "all") checkBoardAmount(await this.server.info(), amountSat);
    const state: BoardState = amountSat === "all" ? { mode: "all" } : { mode: "amount", requestedSat: String(amountSat) };
    const id = randomUUID();
    this.unsent.add(id);
    let status: ActionStatus<BoardState>;
    try {
      status = await this.engine.start<BoardState>(BOARD_ACTION_KIND, state, id);
    } catch (e) {
      // A step after the broadcast failed (e.g. the chain source went away while confirming): the
      // funding tx may be out, so the board is pending and goes on in the background.
      const now = await this.engine.status<BoardState>(id);
      if (!now || now.step === "broadcast" || !isPendingBoard(now.step, now.state)) throw e;
      status = now;
    } finally {
      this.unsent.take(id);
    }
    if (status.step === "failed") throw new BoardRefusedError(status.error ?? status.state.failure ?? "board failed");
    return pendingInfo(status.state);
  }

  /** Boards not yet registered with the server, oldest first (by movement id, which follows creation). */
  async pending(): Promise<PendingBoardInfo[]> {
    return (await this.pendingBoards()).map((a) => pendingInfo(a.state)).sort((a, b) => a.movement_id - b.movement_id);
  }

  /** Sum of the pending boards' VTXO values (`pending_board_sat` of the balance). */
  async pendingBoardSat(): Promise<bigint> {
    return (await this.pendingBoards()).reduce((t, a) => t + BigInt(need(a.state.vtxoSat, "vtxoSat")), 0n);
  }

  /** Drives every unfinished board once now (the wallet's sync); one board's error does not stop the others. */
  async syncPending(onError: (id: string, e: unknown) => void = () => undefined): Promise<void> {
    for (const a of await this.unfinished()) await this.engine.drive(a.id).catch((e: unknown) => onError(a.id, e));
  }

  /** Coins spent by the funding txs of unfinished boards other than `exceptId`. */
  async reservedCoins(exceptId: string): Promise<Set<string>> {
    const coins = new Set<string>();
    for (const a of await this.unfinished()) if (a.id !== exceptId) for (const c of a.state.fundingInputs ?? []) coins.add(c);
    return coins;
  }

  /** Unfinished boards that are pending: an exiting one only until its VTXO is exited (the exits rail counts it then, once). */
  private async pendingBoards(): Promise<ActionStatus<BoardState>[]> {
    const out: ActionStatus<BoardState>[] = [];
    for (const a of await this.unfinished()) {
      if (!isPendingBoard(a.step, a.state)) continue;
      if (a.step === "exiting" && this.vtxos && (await this.vtxos.isExited(need(a.state.vtxoId, "vtxoId")))) continue;
      out.push(a);
    }
    return out;
  }

  private unfinished(): Promise<ActionStatus<BoardState>[]> {
    return this.engine.unfinished<BoardState>(BOARD_ACTION_KIND);
  }
}

function pendingInfo(s: BoardState): PendingBoardInfo {
  return {
    funding_tx: { txid: need(s.fundingTxid, "fundingTxid"), tx: need(s.fundingTxHex, "fundingTxHex") },
    vtxos: [need(s.vtxoId, "vtxoId")],
    amount_sat: Number(need(s.vtxoSat, "vtxoSat")),
    movement_id: need(s.movementId, "movementId"),
  };
}
