/**
 * A transaction or package refused by mempool policy or by consensus on entry. `reason` is
 * bitcoind's reject string (`min relay fee not met`, `dust`, `bad-txns-inputs-missingorspent`,
 * `txn-mempool-conflict`, `insufficient fee`, `TRUC-violation`,
 * `mempool-script-verify-flag-failed (…)`, …); `debug` is bitcoind's detail text; `message`
 * is what `sendrawtransaction` would print: `reason, debug`.
 */
export class PolicyError extends Error {
  constructor(
    readonly reason: string,
    readonly debug?: string,
    /** The transaction refused, when known. */
    readonly txid?: string,
  ) {
    super(debug ? `${reason}, ${debug}` : reason);
    this.name = "PolicyError";
  }
}
