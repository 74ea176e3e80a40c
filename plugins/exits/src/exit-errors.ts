/**
 * barkd's `ExitError` values (kebab-case `type`, snake_case fields) carried by the failures of
 * progress, start, claim and cancel. `message` is bark's display text, which becomes the 500
 * message (after the route's context) where barkd answers one.
 */
import { InternalServerError } from "@tender/core";

/** The JSON of an `ExitError`. */
export type ExitErrorJson = { type: string } & Record<string, unknown>;

/** Amount as rust-bitcoin displays it in bark's texts. */
export const btc = (sat: bigint): string => `${sat / 100_000_000n}.${(sat % 100_000_000n).toString().padStart(8, "0")} BTC`;

/** A failure with its `ExitError` JSON. */
export class ExitFailure extends Error {
  constructor(readonly json: ExitErrorJson, message: string) {
    super(message);
  }
}

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export const exitErrors = {
  dustLimit: (vtxo: string, amount: bigint, dust: bigint) =>
    new ExitFailure({ type: "dust-limit", vtxo, amount: Number(amount), dust: Number(dust) }, `Dust Limit Error: The dust limit for a VTXO is ${btc(dust)} but vtxo ${vtxo} is only ${btc(amount)}`),
  nonStandard: (vtxo: string, error: string) =>
    new ExitFailure({ type: "non-standard-vtxo", vtxo, error }, `Non-Standard VTXO ${vtxo}: exit chain is not relayable: ${error}`),
  tipRetrieval: (e: unknown) =>
    new ExitFailure({ type: "tip-retrieval-failure", error: reason(e) }, `Tip Retrieval Failure: Unable to retrieve the blockchain tip height: ${reason(e)}`),
  blockRetrieval: (height: number, e: unknown) =>
    new ExitFailure({ type: "block-retrieval-failure", height, error: reason(e) }, `Block Retrieval Failure: Unable to retrieve a block at height ${height}: ${reason(e)}`),
  txRetrieval: (txid: string, e: unknown) =>
    new ExitFailure({ type: "transaction-retrieval-failure", txid, error: reason(e) }, `Transaction Retrieval Failure: Unable to check the status of TX ${txid}: ${reason(e)}`),
  packageBroadcast: (txid: string, e: unknown) =>
    new ExitFailure({ type: "exit-package-broadcast-failure", txid, error: reason(e) }, `Exit Package Broadcast Failure: Unable to broadcast exit transaction package ${txid}: ${reason(e)}`),
  insufficientFunds: (needed: bigint, available: bigint) =>
    new ExitFailure({ type: "insufficient-confirmed-funds", needed: Number(needed), available: Number(available) },
      `Insufficient Confirmed Funds: ${btc(needed)} is needed but only ${btc(available)} is available`),
  missingSignableClause: (vtxo: string) =>
    new ExitFailure({ type: "claim-missing-signable-clause", vtxo }, `Claim Missing Signable Clause: Couldn't find a signable clause for VTXO ${vtxo}`),
  claimMissingInputs: () => new ExitFailure({ type: "claim-missing-inputs" }, "Claim Missing Inputs: No inputs given to claim"),
  claimFeeExceedsOutput: (needed: bigint, output: bigint) =>
    new ExitFailure({ type: "claim-fee-exceeds-output", needed: Number(needed), output: Number(output) },
      `Claim Fee Exceeds Output: Cost to claim exits was ${btc(needed)}, but the total output was ${btc(output)}`),
  claimSigning: (e: unknown) => new ExitFailure({ type: "claim-signing-error", error: reason(e) }, `Claim Signing Error: Unable to sign claim: ${reason(e)}`),
  internal: (e: unknown) => new ExitFailure({ type: "internal-error", error: reason(e) }, `Internal Error: An unexpected problem occurred, ${reason(e)}`),
  invalidWalletState: (e: unknown) => new ExitFailure({ type: "invalid-wallet-state", error: reason(e) }, `Invalid Wallet State: ${reason(e)}`),
};

/** The `ExitError` JSON of any failure (an unexpected one is an `internal-error`). */
export function exitErrorJson(e: unknown): ExitErrorJson {
  return e instanceof ExitFailure ? e.json : exitErrors.internal(e).json;
}

/** A 500 whose message is barkd's context followed by the failure's text. */
export function failedTo(context: string, e: unknown): InternalServerError {
  return new InternalServerError(`${context}: ${reason(e)}`);
}
