import { ActionEngine, ChainSourceService, WalletSession, definePlugin } from "@tender/core";
import { ArkConnectionService, ArkKeysService, HeldVtxoExitsService, VtxoLocksService, VtxoStoreService } from "@tender/plugin-ark";
import { FeeEstimatorsService } from "@tender/plugin-fees";
import { BalanceContributorsService, WalletSettingsService } from "@tender/plugin-wallet";
import { MovementStoreToken } from "@tender/plugin-history";
import { OnchainWalletService } from "@tender/plugin-onchain";
import type { InjectionToken } from "tsyringe";
import { UnsentBoards, boardAction } from "./board-action.js";
import type { BoardPorts } from "./board-ports.js";
import { splitBoard } from "./board-amounts.js";
import { boardRoutes } from "./board-routes.js";
import { BoardService } from "./board-service.js";
import { arkBoardKeys, arkBoardServer, arkBoardVtxos, heldBoardExits } from "./wiring/ark-services.js";
import { sourceBoardChain } from "./wiring/chain.js";
import { onchainBoardFunding } from "./wiring/board-funding.js";
import { historyBoardMovements } from "./wiring/movements.js";

/** DI token of the wallet's boards: pending boards, `pending_board_sat`, and a sync hook. */
export const BoardServiceToken: InjectionToken<BoardService> = Symbol.for("tender.boards.BoardService");

/** Settings under `pluginConfig.boards`. */
interface BoardsPluginConfig {
  /** Pause between checks of an unconfirmed board and between registration retries. Default 2 s. */
  pollMs?: number;
}

/**
 * The boards plugin: moving on-chain coins onto Ark (the wallet funds a board output, the server
 * co-signs its exit, and registers the VTXO once the funding transaction confirmed). Contributes barkd's
 * `POST /api/v1/boards/board-amount`, `POST /api/v1/boards/board-all`, `GET /api/v1/boards/pending`
 * and `GET /api/v1/fees/board`; the crash-safe `boards.board` action (kernel ActionEngine); and
 * {@link BoardServiceToken}.
 */
export const boardsPlugin = definePlugin({
  name: "boards",
  version: "0.1.0",
  dependencies: ["wallet", "history", "ark"],
  consumes: [BalanceContributorsService, ChainSourceService, OnchainWalletService, ArkConnectionService, ArkKeysService, VtxoStoreService, VtxoLocksService, HeldVtxoExitsService, WalletSettingsService],
  optional: [FeeEstimatorsService],
  register(ctx) {
    const settings = ctx.pluginConfig as BoardsPluginConfig;
    const pollMs = settings.pollMs ?? 2_000;
    const c = ctx.container;
    const connection = ctx.walletService(ArkConnectionService);
    const arkKeys = ctx.walletService(ArkKeysService);
    const ports: BoardPorts = {
      server: arkBoardServer(connection, arkKeys),
      keys: arkBoardKeys(arkKeys),
      vtxos: arkBoardVtxos(ctx.get(VtxoStoreService), ctx.get(VtxoLocksService)),
      wallet: onchainBoardFunding(ctx.walletService(OnchainWalletService)),
      chain: sourceBoardChain(ctx.walletService(ChainSourceService)),
      movements: historyBoardMovements(c.resolve(MovementStoreToken)),
      exits: heldBoardExits(ctx.get(HeldVtxoExitsService), ctx.walletService(WalletSettingsService)),
    };
    const engine = c.resolve(ActionEngine);
    const unsent = new UnsentBoards();
    const service = new BoardService(engine, ports.server, unsent, ports.vtxos);
    engine.define(boardAction(ports, (id) => service.reservedCoins(id), ctx.logger, { pollMs }, unsent));
    c.registerInstance(BoardServiceToken, service);
    ctx.get(BalanceContributorsService).contribute("pending_board_sat", ctx.name, () => service.pendingBoardSat());
    ctx.find(FeeEstimatorsService)?.addAmountEstimate({
      path: "board", operationId: "board_fee", summary: "Estimate board fee",
      estimate: async (amountSat) => {
        const split = splitBoard(await ports.server.info(), amountSat);
        return { grossSat: split.amountSat, feeSat: split.feeSat, netSat: split.vtxoSat, vtxosSpent: [] };
      },
    });
    const wallet = c.resolve(WalletSession);
    // Pending boards are checked on every poll (barkd checks them on every sync); not in daemon_manual_sync mode.
    ctx.task({
      name: "boards.sync",
      intervalMs: pollMs,
      run: async () => {
        if (wallet.isLoaded && !wallet.current?.manualSync) await service.syncPending((id, e) => ctx.logger.warn(`board ${id}: ${e instanceof Error ? e.message : String(e)}`));
      },
    });
    for (const r of boardRoutes(() => service)) ctx.route(r);
  },
});

export default boardsPlugin;
