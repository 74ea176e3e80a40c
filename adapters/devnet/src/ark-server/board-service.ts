/**
 * Boards on the server side (as captaind): `RequestBoardCosign` (stateless checks, then the
 * server's half of the board exit-tx MuSig2) and `RegisterBoardVtxo` (funding confirmed and
 * unspent, VTXO valid and a board of this server, stored as spendable).
 */
import {
  BoardError,
  VtxoValidationError,
  boardFee,
  boardFromVtxo,
  buildBoardExit,
  encodeVtxo,
  formatOutPoint,
  musigRespondCosignDeterministic,
  reverseBytes,
  toHex,
  txid as computeTxid,
  validateVtxo,
  vtxoIdString,
  type MusigCosignResponse,
  type Transaction,
} from "@tender/ark-protocol";
import { heightFromNumber, musigNonceFromBytes, outpointFromBytes, pubkeyFromBytes, txFromBytes, vtxoFromBytes } from "./request-decoding.js";
import { BadUserInputError, NotFoundError } from "./server-errors.js";
import { refuseIfListed } from "./refused-calls.js";
import type { ServerContext } from "./server-context.js";
import { MAX_BOARD_FUNDING_INPUTS } from "@tender/ark-protocol";

/** The `BoardCosignRequest` gRPC message as plain data. */
export interface BoardCosignRequest {
  amount: bigint;
  utxo?: Uint8Array;
  expiryHeight?: number;
  userPubkey?: Uint8Array;
  pubNonce?: Uint8Array;
  fundingTx?: Uint8Array;
}

/** Protocol version from which the board funding tx is required. */
export const PVER_BOARD_FUNDING_TX = 4;

const txidText = (internal: Uint8Array) => toHex(reverseBytes(internal));

/** The server's board handling. */
export class BoardService {
  constructor(private readonly ctx: ServerContext) {}

  /** `RequestBoardCosign`: captaind's checks in captaind's order, then nonce + partial signature. */
  async requestBoardCosign(req: BoardCosignRequest, pver: number): Promise<MusigCosignResponse> {
    const { config, keys, chain, store } = this.ctx;
    if (config.requireBoardFundingTx && pver < PVER_BOARD_FUNDING_TX) {
      throw new BadUserInputError("Your client version is too old, you need to update in order to be able to board.");
    }
    const userPubkey = pubkeyFromBytes(req.userPubkey);
    const expiryHeight = heightFromNumber(req.expiryHeight, "expiry_height");
    const outpoint = outpointFromBytes(req.utxo);
    const userNonce = musigNonceFromBytes(req.pubNonce);
    const fundingTx: Transaction | null = config.requireBoardFundingTx || (req.fundingTx && req.fundingTx.length) ? txFromBytes(req.fundingTx) : null;

    const min = config.minBoardAmount > 330n ? config.minBoardAmount : 330n;
    if (req.amount < min) throw new BadUserInputError(`board amount must be at least ${min} sat`);
    if (config.maxVtxoAmount !== undefined && req.amount > config.maxVtxoAmount) throw new BadUserInputError(`board amount exceeds limit of ${config.maxVtxoAmount} sat`);
    const fee = boardFee(config.fees.board, req.amount);
    if (fee >= req.amount) throw new BadUserInputError("Board amount cannot support required fee");
    const tip = await chain.tipHeight();
    if (expiryHeight < tip) throw new BadUserInputError(`VTXO already expired: ${expiryHeight} (tip = ${tip})`);
    const lifetime = (expiryHeight - tip) >>> 0;
    if (lifetime > config.vtxoLifetime + 3) throw new BadUserInputError(`requested VTXO lifetime ${lifetime} is too high (server VTXO lifetime is ${config.vtxoLifetime})`);

    if (fundingTx) {
      if (fundingTx.inputs.length > MAX_BOARD_FUNDING_INPUTS) throw new BadUserInputError(`invalid funding tx: too many inputs (max is ${MAX_BOARD_FUNDING_INPUTS})`);
      if (outpoint.vout >= fundingTx.outputs.length) throw new BadUserInputError("board outpoint does not match funding tx (vout)");
      const fundingTxid = computeTxid(fundingTx);
      if (txidText(fundingTxid) !== txidText(outpoint.txid)) throw new BadUserInputError("board outpoint does not match funding tx (txid)");
      const known = await store.getTx(txidText(fundingTxid));
      if (known && !known.isFunding) throw new BadUserInputError(`invalid funding tx: known as virtual tx: ${known.txid}`);
      for (const input of fundingTx.inputs) {
        const id = formatOutPoint(input.prevout);
        if (await store.getVtxo(id)) throw new BadUserInputError(`invalid funding tx: input is a VTXO: ${id}`);
        const parent = txidText(input.prevout.txid);
        if (!(await chain.getTransaction(parent))) throw new BadUserInputError(`invalid funding tx: unknown input tx ${parent}`);
      }
    }

    let board;
    try {
      board = buildBoardExit({ userPubkey, serverPubkey: keys.serverPubkey, expiryHeight, exitDelta: config.vtxoExitDelta }, outpoint, req.amount, fee);
    } catch (e) {
      if (e instanceof BoardError) throw new BadUserInputError(e.message);
      throw e;
    }
    this.ctx.logger.debug(`board cosign: ${formatOutPoint(outpoint)} amount ${req.amount} fee ${fee} expiry ${expiryHeight}`);
    return musigRespondCosignDeterministic({
      secretKey: keys.serverSecret,
      pubkey: keys.serverPubkey,
      otherPubkey: userPubkey,
      otherPubNonce: userNonce,
      message: board.sighash,
      tweak: board.tweak,
    });
  }

  /** `RegisterBoardVtxo` (idempotent): funding confirmed and unspent, VTXO valid and ours. */
  async registerBoardVtxo(bytes: Uint8Array | undefined): Promise<void> {
    const { config, keys, chain, store } = this.ctx;
    refuseIfListed(config, "RegisterBoardVtxo");
    const vtxo = vtxoFromBytes(bytes);
    const id = vtxoIdString(vtxo);
    const fundingTxid = txidText(vtxo.anchorPoint.txid);
    const info = await chain.getTransaction(fundingTxid);
    if (!info) throw new NotFoundError(`board funding tx ${fundingTxid} not found`, [id]);
    if (!info.status.confirmed || info.status.blockHeight === undefined) throw new BadUserInputError("board funding tx still unconfirmed");
    const confs = (await chain.tipHeight()) - info.status.blockHeight + 1;
    if (confs < config.requiredBoardConfirmations) throw new BadUserInputError(`funding tx has ${confs} confirmations, requires ${config.requiredBoardConfirmations}: ${id}`);
    if (!(await chain.getTxOut(fundingTxid, vtxo.anchorPoint.vout, true))) throw new BadUserInputError("VTXO funding output is already spent, user exit in progress");
    const fundingTx = txFromBytes(info.raw);
    try {
      validateVtxo(vtxo, fundingTx);
    } catch (e) {
      if (e instanceof VtxoValidationError) throw new BadUserInputError(`invalid vtxo: ${e.message}`);
      throw e;
    }
    try {
      boardFromVtxo(vtxo, fundingTx, keys.serverPubkey);
    } catch (e) {
      if (e instanceof BoardError) throw new BadUserInputError(`vtxo is not a board: ${e.message}`);
      throw e;
    }
    await store.insertBoard(
      { id, bytes: encodeVtxo(vtxo), state: "spendable", userPubkey: toHex(vtxo.policy.userPubkey), policyType: vtxo.policy.type },
      { txid: fundingTxid, raw: info.raw, signed: true, isFunding: true },
    );
    this.ctx.logger.debug(`board registered: ${id}`);
  }
}
