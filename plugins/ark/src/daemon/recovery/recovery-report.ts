/** How a VTXO id read back from the recovery mailbox ended up. */
export type RecoveryOutcome = "recovered" | "skipped" | "failed" | "foreign" | "exited";

const OUTCOMES: readonly RecoveryOutcome[] = ["recovered", "skipped", "failed", "foreign", "exited"];

/**
 * What one recovery from the seed found, by VTXO id (with its amount in sats when the VTXO was
 * fetched):
 *
 * | outcome | meaning |
 * |---|---|
 * | `recovered` | stored as spendable |
 * | `skipped` | decided not spendable: spent into a newer VTXO of the set, or the server says spent, unclaimed or unregistered |
 * | `exited` | its own transaction is confirmed on chain: stored as exited |
 * | `failed` | not decided because of an error (fetch, validation, status query): funds may be missing, a retry may find them |
 * | `foreign` | no key of the seed within the gap limit owns it: funds may be missing (a key beyond the gap) |
 *
 * A decision replaces an earlier failure of the same id (a retry that succeeded).
 */
export class RecoveryReport {
  private readonly byOutcome = new Map<RecoveryOutcome, Map<string, bigint | undefined>>(OUTCOMES.map((o) => [o, new Map()]));

  /** Records the outcome of `id`; a decided outcome clears an earlier failure, and the first decision stays. */
  record(outcome: RecoveryOutcome, id: string, amountSat?: bigint): void {
    if (outcome !== "failed") this.byOutcome.get("failed")!.delete(id);
    const entries = this.byOutcome.get(outcome)!;
    if (!entries.has(id)) entries.set(id, amountSat);
  }

  /** The ids with `outcome`. */
  ids(outcome: RecoveryOutcome): string[] {
    return [...this.byOutcome.get(outcome)!.keys()];
  }

  /** How many ids have `outcome`. */
  count(outcome: RecoveryOutcome): number {
    return this.byOutcome.get(outcome)!.size;
  }

  /** Sats of the ids with `outcome` whose amount is known. */
  totalSat(outcome: RecoveryOutcome): bigint {
    let t = 0n;
    for (const a of this.byOutcome.get(outcome)!.values()) t += a ?? 0n;
    return t;
  }

  /** Whether every id was decided: nothing failed and nothing was foreign. */
  get complete(): boolean {
    return this.count("failed") === 0 && this.count("foreign") === 0;
  }

  /** One line for the log: the counts and sats of every outcome. */
  summary(): string {
    return OUTCOMES.map((o) => `${this.count(o)} ${o} (${this.totalSat(o)} sat)`).join(", ");
  }
}
