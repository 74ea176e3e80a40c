/**
 * The wallet's own board amount checks, done before anything is signed so that a refused board
 * changes nothing: at least the server's minimum board amount, at most its largest VTXO, and a
 * VTXO of at least the dust limit once the server's board fee is taken.
 */
import { boardFee } from "@tender/ark-protocol";
import { BoardRefusedError } from "./errors.js";
import type { BoardServerInfo } from "./board-ports.js";

/** Dust limit of the P2TR output that carries a VTXO. */
export const P2TR_DUST_SAT = 330n;

/** The Ark board fee and the VTXO value of a board of `amountSat`. */
export interface BoardSplit {
  readonly amountSat: bigint;
  readonly feeSat: bigint;
  readonly vtxoSat: bigint;
}

/** Splits a board amount into fee and VTXO value, without checking it. */
export function splitBoard(info: Pick<BoardServerInfo, "boardFees">, amountSat: bigint): BoardSplit {
  const feeSat = boardFee(info.boardFees, amountSat);
  return { amountSat, feeSat, vtxoSat: amountSat - feeSat };
}

/**
 * Checks a board amount against the server's rules: at least the server minimum, at most its
 * largest VTXO, and a VTXO of at least dust after the board fee. Throws {@link BoardRefusedError}.
 */
export function checkBoardAmount(info: BoardServerInfo, amountSat: bigint): BoardSplit {
  if (amountSat < info.minBoardAmountSat) {
    throw new BoardRefusedError(`board amount of ${amountSat} sats is less than minimum board amount required by server (${info.minBoardAmountSat} sats)`);
  }
  if (info.maxVtxoAmountSat !== undefined && amountSat > info.maxVtxoAmountSat) {
    throw new BoardRefusedError(`board amount of ${amountSat} sats exceeds the server's maximum VTXO amount (${info.maxVtxoAmountSat} sats)`);
  }
  const split = splitBoard(info, amountSat);
  if (split.vtxoSat < P2TR_DUST_SAT) {
    throw new BoardRefusedError(`board amount of ${amountSat} sats cannot pay the board fee of ${split.feeSat} sats and leave a VTXO of at least ${P2TR_DUST_SAT} sats`);
  }
  return split;
}
