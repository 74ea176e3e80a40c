/**
 * The client side of a board (moving on-chain coins onto Ark) as a crash-safe kernel action:
 *
 * | step | talks to | does | next |
 * |---|---|---|---|
 * | `fund` | chain (tip), wallet | checks the amount, derives the VTXO key, builds and signs the funding tx (not broadcast) | `cosign` |
 * | `cosign` | server | MuSig2 on the board exit tx (`RequestBoardCosign`), builds the signed VTXO | `record` |
 * | `record` | database | `bark.board` movement (pending) and the VTXO stored locked | `broadcast` |
 * | `broadcast` | chain | broadcasts the funding tx (a refusal, or an outage before any broadcast could leave, fails the board; any other outage leaves it pending) | `confirming` |
 * | `confirming` | chain | waits for the server's confirmations; re-broadcasts a dropped funding tx; fails on a confirmed double spend or an exited VTXO | `register` |
 * | `register` | server | `RegisterBoardVtxo`; VTXO spendable, its id backed up in the recovery mailbox, movement successful | done |
 * | `exiting` | exits rail | when the server has not registered the board by `vtxo_refresh_expiry_threshold` blocks before its expiry, the board VTXO was handed to the exits rail (its exit tx was co-signed before the funding went out); waits for the exit chain to confirm, then the board ends failed (the exit carries the money on chain); a canceled exit goes back to `register` | failed |
 *
 * Every step can run twice after a crash: keys and funding are re-made only when their step did
 * not finish (nothing was sent yet), the movement is looked up by its anchor before it is
 * created, the VTXO store is idempotent, and a broadcast of a known transaction is skipped.
 */
import { ChainSourceRejectedError, certainlyNotProcessed, faultPoint, type ActionDefinition, type ActionStep, type Logger, type StepOutcome } from "@tender/core";
import {
  boardFundingTaproot, boardVtxo, buildBoardExit, decodeVtxo, encodeOutPoint, encodeVtxo, fromHex, musigCompleteCosign, musigNonceGen,
  musigTweakedKey, reverseBytes, toHex, vtxoIdString,
} from "@tender/ark-protocol";
import { checkBoardAmount, splitBoard } from "./board-amounts.js";
import type { BoardPorts, FundingTx } from "./board-ports.js";
import { BOARD_ACTION_KIND, need, type BoardState } from "./board-state.js";

/** Timing of the background steps. */
export interface BoardTiming {
  /** Pause between checks of an unconfirmed funding tx (and between registration retries). */
  readonly pollMs: number;
}

type Outcome = StepOutcome<BoardState>;

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const EXITED = "the board VTXO was exited";

/** The funding inputs of every other unfinished board, so two boards never pick the same coin. */
export type ReservedCoins = (exceptActionId: string) => Promise<Set<string>>;

/** The funding tx as the state holds it. */
function fundingOf(s: BoardState): FundingTx {
  return {
    txid: need(s.fundingTxid, "fundingTxid"), hex: need(s.fundingTxHex, "fundingTxHex"), vout: need(s.fundingVout, "fundingVout"),
    amountSat: BigInt(need(s.amountSat, "amountSat")), onchainFeeSat: BigInt(need(s.onchainFeeSat, "onchainFeeSat")), inputs: need(s.fundingInputs, "fundingInputs"),
  };
}

/**
 * Boards started by this process whose funding tx it has not tried to broadcast yet. A crash
 * empties it, so a board resumed after one is never taken for one that sent nothing.
 */
export class UnsentBoards {
  private readonly ids = new Set<string>();

  add(id: string): void {
    this.ids.add(id);
  }

  /** Whether board `id` is one, forgetting it: from now on its funding tx may be out. */
  take(id: string): boolean {
    return this.ids.delete(id);
  }
}

/**
 * Builds the board action definition over the given ports. `unsent` names the boards whose
 * funding tx certainly was never handed to the chain source (see {@link UnsentBoards}).
 */
export function boardAction(ports: BoardPorts, reserved: ReservedCoins, logger: Logger, timing: BoardTiming, unsent = new UnsentBoards()): ActionDefinition<BoardState> {
  const { server, keys, vtxos, wallet, chain, movements } = ports;

  /** Ends a board whose VTXO was exited: it will never be registered; the exit owns the VTXO (not marked spent). */
  const exitedBoard = (s: BoardState): Outcome => ({ failed: EXITED, state: { ...s, failure: EXITED } });

  /** Ends board `id` as failed; the log line names it by its action id and its funding tx, if it has one yet. */
  const fail = async (id: string, s: BoardState, reason: string): Promise<Outcome> => {
    if (s.vtxoId !== undefined) await vtxos.markSpent(s.vtxoId);
    logger.warn(`board ${id} (${s.fundingTxid !== undefined ? `funding tx ${s.fundingTxid}` : "no funding tx yet"}) failed: ${reason}`);
    return { failed: reason, state: { ...s, failure: reason } };
  };

  // Coins chosen by boards whose `fund` outcome may not be persisted yet; funds run one at a time,
  // so two concurrent boards never pick the same coin.
  const claimed = new Map<string, readonly string[]>();
  let fundQueue: Promise<unknown> = Promise.resolve();
  const exclusion = async (id: string): Promise<Set<string>> => {
    const coins = await reserved(id);
    for (const [other, inputs] of claimed) if (other !== id) for (const c of inputs) coins.add(c);
    return coins;
  };

  const fund: ActionStep<BoardState> = (s, ctx) => {
    const run = fundQueue.then(async (): Promise<Outcome> => {
      try {
        const out = await fundOnce(s, ctx.id);
        if ("next" in out) claimed.set(ctx.id, out.state.fundingInputs ?? []);
        return out;
      } catch (e) {
        // Nothing was signed by the server nor broadcast: a refusal or an outage ends the board here.
        return fail(ctx.id, s, errorText(e));
      }
    });
    fundQueue = run.catch(() => undefined);
    return run;
  };

  const fundOnce = async (s: BoardState, id: string): Promise<Outcome> => {
    const info = await server.info();
    if (s.mode === "amount") checkBoardAmount(info, BigInt(need(s.requestedSat, "requestedSat")));
    const tip = await chain.tipHeight();
    const userPubkey = await keys.nextVtxoKey();
    const expiryHeight = tip + info.vtxoLifetime;
    const script = boardFundingTaproot({ userPubkey, serverPubkey: info.serverPubkey, expiryHeight }).scriptPubKey;
    const funding = await wallet.buildFunding(script, s.mode === "all" ? "all" : BigInt(s.requestedSat!), await exclusion(id));
    const split = s.mode === "all" ? checkBoardAmount(info, funding.amountSat) : splitBoard(info, funding.amountSat);
    return {
      next: "cosign",
      state: {
        ...s,
        userPubkey: toHex(userPubkey), serverPubkey: toHex(info.serverPubkey), expiryHeight, exitDelta: info.vtxoExitDelta,
        amountSat: String(split.amountSat), boardFeeSat: String(split.feeSat), vtxoSat: String(split.vtxoSat),
        fundingTxid: funding.txid, fundingTxHex: funding.hex, fundingVout: funding.vout, onchainFeeSat: String(funding.onchainFeeSat),
        fundingInputs: [...funding.inputs],
      },
    };
  };

  const cosign: ActionStep<BoardState> = async (s, { id }) => {
    const userPubkey = fromHex(need(s.userPubkey, "userPubkey"));
    const serverPubkey = fromHex(need(s.serverPubkey, "serverPubkey"));
    const outpoint = { txid: reverseBytes(fromHex(need(s.fundingTxid, "fundingTxid"))), vout: need(s.fundingVout, "fundingVout") };
    const amount = BigInt(need(s.amountSat, "amountSat"));
    const board = buildBoardExit(
      { userPubkey, serverPubkey, expiryHeight: need(s.expiryHeight, "expiryHeight"), exitDelta: need(s.exitDelta, "exitDelta") },
      outpoint, amount, BigInt(need(s.boardFeeSat, "boardFeeSat")),
    );
    const secretKey = await keys.secretKeyFor(userPubkey);
    const nonce = musigNonceGen({ pubkey: userPubkey, secretKey, aggregateKey: musigTweakedKey([userPubkey, serverPubkey], board.tweak), message: board.sighash });
    let response;
    try {
      response = await server.requestBoardCosign({
        amountSat: amount, utxo: encodeOutPoint(outpoint), expiryHeight: board.params.expiryHeight, userPubkey,
        pubNonce: nonce.pubNonce, fundingTx: fromHex(need(s.fundingTxHex, "fundingTxHex")),
      });
    } catch (e) {
      // Nothing was broadcast or stored: the board simply did not happen.
      return fail(id, s, `the Ark server refused to cosign the board: ${errorText(e)}`);
    }
    let signature;
    try {
      signature = musigCompleteCosign({ secretKey, pubkey: userPubkey, nonce, otherPubkey: serverPubkey, response, message: board.sighash, tweak: board.tweak });
    } catch (e) {
      return fail(id, s, `the Ark server's board signature is invalid: ${errorText(e)}`);
    }
    const vtxo = boardVtxo(board, signature);
    return { next: "record", state: { ...s, vtxoHex: toHex(encodeVtxo(vtxo)), vtxoId: vtxoIdString(vtxo) } };
  };

  const record: ActionStep<BoardState> = async (s, { id }) => {
    const anchor = `${need(s.fundingTxid, "fundingTxid")}:${need(s.fundingVout, "fundingVout")}`;
    const vtxo = decodeVtxo(fromHex(need(s.vtxoHex, "vtxoHex")));
    await vtxos.storeLocked(vtxo, id);
    const movementId = (await movements.findByAnchor(anchor)) ?? (await movements.create({
      chainAnchor: anchor, onchainFeeSat: BigInt(need(s.onchainFeeSat, "onchainFeeSat")), amountSat: BigInt(need(s.amountSat, "amountSat")),
      vtxoAmountSat: vtxo.amount, boardFeeSat: BigInt(need(s.boardFeeSat, "boardFeeSat")), vtxoId: need(s.vtxoId, "vtxoId"),
    }));
    return { next: "broadcast", state: { ...s, movementId } };
  };

  const broadcast: ActionStep<BoardState> = async (s, { id }) => {
    const txid = need(s.fundingTxid, "fundingTxid");
    // Only the first try of a board this process started is known to have sent nothing before.
    const firstTry = unsent.take(id);
    await wallet.hold(fundingOf(s));
    let tried = false;
    try {
      if ((await chain.txStatus(txid)) === null) {
        tried = true;
        await chain.broadcast(need(s.fundingTxHex, "fundingTxHex"));
      }
    } catch (e) {
      if (e instanceof ChainSourceRejectedError) {
        await wallet.release(txid);
        return fail(id, s, `Failed to broadcast the board funding transaction: ${e.reason}`);
      }
      if (firstTry && (!tried || certainlyNotProcessed(e))) {
        // No node can have it: the board ends here and the coins are free again.
        await wallet.release(txid);
        return fail(id, s, `Failed to broadcast the board funding transaction: ${errorText(e)}; nothing was broadcast`);
      }
      // It may be out: the board is pending, `confirming` re-broadcasts the funding tx until it is mined or double-spent.
      logger.warn(`board ${id}: the broadcast of funding tx ${txid} may not have reached a node (${errorText(e)}); the board stays pending and the funding tx is re-broadcast`);
    }
    await wallet.noteBroadcast(txid).catch((e: unknown) => logger.warn(`on-chain wallet did not take note of board funding ${txid}: ${errorText(e)}`));
    return { next: "confirming", state: s };
  };

  const confirming: ActionStep<BoardState> = async (s, { id }) => {
    const txid = need(s.fundingTxid, "fundingTxid");
    if (await vtxos.isExited(need(s.vtxoId, "vtxoId"))) return exitedBoard(s);
    const status = await chain.txStatus(txid);
    if (status?.confirmed) {
      const info = await server.info();
      const confs = (await chain.tipHeight()) - status.block.height + 1;
      return confs >= info.requiredBoardConfirmations ? { next: "register", state: s } : { waitMs: timing.pollMs };
    }
    if (status) return { waitMs: timing.pollMs };
    // Missing from mempool and chain: double-spent, or dropped.
    let undecided = false;
    for (const input of need(s.fundingInputs, "fundingInputs")) {
      const [prevTxid, vout] = input.split(":");
      const spend = await chain.outspend(prevTxid!, Number(vout));
      if (!spend.spent || spend.txid === txid) continue;
      if (spend.status.confirmed) return fail(id, s, `board funding input ${input} was double-spent by confirmed transaction ${spend.txid}`);
      undecided = true;
    }
    if (undecided) return { waitMs: timing.pollMs };
    try {
      await chain.broadcast(need(s.fundingTxHex, "fundingTxHex"));
      logger.info(`re-broadcast board funding tx ${txid}`);
    } catch (e) {
      logger.warn(`re-broadcast of board funding tx ${txid} failed: ${errorText(e)}`);
    }
    return { waitMs: timing.pollMs };
  };

  /** The tip when an unregistered board must be exited rather than registration retried, else `undefined`. */
  const exitDueAt = async (s: BoardState): Promise<number | undefined> => {
    const threshold = await ports.exits?.threshold();
    if (threshold === undefined) return undefined;
    const tip = await chain.tipHeight();
    return tip + threshold >= need(s.expiryHeight, "expiryHeight") ? tip : undefined;
  };

  const register: ActionStep<BoardState> = async (s, { id }) => {
    if (await vtxos.isExited(need(s.vtxoId, "vtxoId"))) return exitedBoard(s);
    const status = await chain.txStatus(need(s.fundingTxid, "fundingTxid"));
    if (!status?.confirmed) return { next: "confirming", state: s };
    try {
      await server.registerBoardVtxo(fromHex(need(s.vtxoHex, "vtxoHex")));
    } catch (e) {
      // The funds are on-chain in the board output: never give up. Near the expiry, the server's
      // expiry clause could take the output: the board's own exit goes out instead.
      const dueAt = await exitDueAt(s).catch(() => undefined);
      if (dueAt !== undefined && ports.exits) {
        try {
          await ports.exits.start(need(s.vtxoId, "vtxoId"), id);
        } catch (startError) {
          logger.warn(`board ${s.vtxoId}: the server has not registered it and its expiry at height ${s.expiryHeight} is near, but its exit could not start, will retry: ${errorText(startError)}`);
          return { waitMs: timing.pollMs };
        }
        logger.warn(`board ${s.vtxoId}: the server has not registered it (${errorText(e)}) and it expires at height ${s.expiryHeight} (tip ${dueAt}): exiting it on chain`);
        return { next: "exiting", state: { ...s, exitStartedAt: dueAt } };
      }
      logger.warn(`board ${s.vtxoId} registration failed, will retry: ${errorText(e)}`);
      return { waitMs: timing.pollMs };
    }
    await vtxos.markSpendable(need(s.vtxoId, "vtxoId"));
    await server.backupVtxoId(s.vtxoId!).catch((e: unknown) => logger.warn(`board ${s.vtxoId}: recovery mailbox backup failed: ${errorText(e)}`));
    return { done: true, state: s };
  };

  const exiting: ActionStep<BoardState> = async (s, { id }) => {
    const vtxoId = need(s.vtxoId, "vtxoId");
    if (await vtxos.isExited(vtxoId)) return exitedBoard(s);
    const outcome = ports.exits ? await ports.exits.outcome(vtxoId) : "none";
    switch (outcome) {
      case "claimed":
        return exitedBoard(s);
      case "spent-elsewhere":
        return fail(id, s, "the board output was spent by the Ark server's expiry clause before the board's exit confirmed");
      case "canceled":
      case "none":
        // the user canceled the exit (or no exits rail is loaded any more): ask the server again
        logger.warn(`board ${vtxoId}: ${outcome === "canceled" ? "its exit was canceled" : "no exit of it is known (no exits rail loaded)"}; asking the Ark server to register it again`);
        return { next: "register", state: { ...s, exitStartedAt: undefined } };
      default:
        return { waitMs: timing.pollMs };
    }
  };

  const steps = { fund, cosign, record, broadcast, confirming, register, exiting };
  return {
    kind: BOARD_ACTION_KIND,
    firstStep: "fund",
    // The movement's final status is written with the action's end, in one transaction, so the
    // pending list and the history never disagree.
    onEnd: async (id, outcome, s) => {
      claimed.delete(id);
      if (s.movementId !== undefined) await movements.finish(s.movementId, outcome === "done" ? "successful" : "failed");
    },
    steps: Object.fromEntries(Object.entries(steps).map(([name, step]) => [name, withFaultPoints(name, step)])),
  };
}

/**
 * Crash testing: `TENDER_FAULT_INJECT=board-<step>:before` kills the daemon as the step starts,
 * `board-<step>:after` once its side effects are done but before its outcome is persisted.
 */
function withFaultPoints(name: string, step: ActionStep<BoardState>): ActionStep<BoardState> {
  return async (s, ctx) => {
    faultPoint(`board-${name}:before`);
    const outcome = await step(s, ctx);
    faultPoint(`board-${name}:after`);
    return outcome;
  };
}
