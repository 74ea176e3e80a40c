/**
 * Server-wallet coins that operations hold beyond what the chain shows: an offboard session's
 * coins between prepare and finish, and the inputs of stored offboard txs until they confirm.
 * Round funding leaves every held coin alone, so a round never spends a coin an offboard uses.
 */
export class WalletCoinHolds {
  private readonly sources: (() => Promise<Set<string>>)[] = [];

  /** Adds a source of held coins (`txid:vout`). */
  add(source: () => Promise<Set<string>>): void {
    this.sources.push(source);
  }

  /** Every coin held now. */
  async all(): Promise<Set<string>> {
    const out = new Set<string>();
    for (const s of this.sources) for (const c of await s()) out.add(c);
    return out;
  }
}
