/**
 * The persisted state of one board action (JSON in the kernel's action table). Fields fill in
 * step by step; each is written before the step that needs it talks to the chain or the server.
 * Bytes are hex, amounts are decimal strings of sats.
 */
export interface BoardState {
  /** `amount` boards `requestedSat`; `all` drains the on-chain wallet. */
  readonly mode: "amount" | "all";
  readonly requestedSat?: string;

  // ---- after `fund`: the VTXO key, the expiry and the signed (unbroadcast) funding tx
  userPubkey?: string;
  serverPubkey?: string;
  expiryHeight?: number;
  exitDelta?: number;
  amountSat?: string;
  boardFeeSat?: string;
  fundingTxid?: string;
  fundingTxHex?: string;
  fundingVout?: number;
  onchainFeeSat?: string;
  /** Wallet coins the funding tx spends (`txid:vout`): reserved against other boards. */
  fundingInputs?: string[];

  // ---- after `cosign`: the signed board VTXO
  vtxoHex?: string;
  vtxoId?: string;
  vtxoSat?: string;

  // ---- after `record`: the movement (the VTXO is stored locked)
  movementId?: number;

  // ---- after `register` handed the VTXO to the exits rail: the tip then
  exitStartedAt?: number;

  /** Why the board failed, for logs and the HTTP answer. */
  failure?: string;
}

/** Action kind of a board in the kernel's action table. */
export const BOARD_ACTION_KIND = "boards.board";

/** Step names, in order. */
export const BOARD_STEPS = ["fund", "cosign", "record", "broadcast", "confirming", "register", "exiting"] as const;
export type BoardStepName = (typeof BOARD_STEPS)[number];

/** A field that a previous step must have set (a missing one is a bug or a corrupted row). */
export function need<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`board state is missing ${name}`);
  return value;
}

/**
 * The steps whose state is visible as a pending board (VTXO stored, movement recorded). A board in
 * `exiting` stays one until its VTXO is exited (the board service checks that): from then on the
 * exits rail counts the VTXO (`pending_exit_sat`) until its claim.
 */
export function isPendingBoard(step: string, s: BoardState): boolean {
  return (step === "broadcast" || step === "confirming" || step === "register" || step === "exiting") && s.movementId !== undefined && s.vtxoId !== undefined;
}
