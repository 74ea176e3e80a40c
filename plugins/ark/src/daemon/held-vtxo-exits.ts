/**
 * Unilateral exits of VTXOs an action holds (a Lightning send's HTLC-send VTXOs whose revocation
 * the server refuses, a receive's HTLC-recv VTXOs whose claim it refuses): the action asks for the
 * exit here, the exits rail carries it out. The Ark rail owns the extension point so the rail that
 * holds VTXOs never depends on the exits rail (and runs without it: then nothing is registered).
 */

/** How far the exit of one held VTXO got. */
export type HeldExitOutcome =
  /** no exit of this VTXO is known */
  | "none"
  /** exit chain going out, or waiting for its timelocks, or claim in flight */
  | "in-progress"
  /** the wallet's claim of the exit output confirmed */
  | "claimed"
  /** the VTXO (or its exit output) was spent by someone else: the other party's clause */
  | "spent-elsewhere"
  /** the user canceled the exit before its final transaction went out */
  | "canceled";

/** What the exits rail offers to actions holding VTXOs. */
export interface HeldVtxoExitHandler {
  /**
   * Starts the exits of `vtxoIds`, held (locked) by `holder`; idempotent: a VTXO with a live exit
   * is skipped. `preimage` is kept with the exits for the hash clause of HTLC-recv VTXOs.
   */
  exitHeld(req: { vtxoIds: readonly string[]; holder: string; preimage?: Uint8Array }): Promise<void>;
  /** Where the exit of `vtxoId` stands. */
  outcome(vtxoId: string): Promise<HeldExitOutcome>;
}

/** Extension point of the Ark plugin (`HeldVtxoExitsService`): one handler, registered by the exits rail. */
export class HeldVtxoExits {
  private registered: { plugin: string; handler: HeldVtxoExitHandler } | undefined;

  /** Sets `plugin`'s handler; a second one is refused. */
  register(plugin: string, handler: HeldVtxoExitHandler): void {
    if (this.registered) throw new Error(`plugin ${this.registered.plugin} already handles exits of held VTXOs`);
    this.registered = { plugin, handler };
  }

  /** The handler, `undefined` when no exits rail is loaded. */
  get handler(): HeldVtxoExitHandler | undefined {
    return this.registered?.handler;
  }
}
