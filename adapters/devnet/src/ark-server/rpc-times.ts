/**
 * How long the server held each unary call, by method: from the handler's start to its answer
 * (checks, database commits, signatures; not the transport before or after). Benches read it to
 * tell the reference server's share of a payment's time from the daemons'.
 */
export class RpcTimes {
  private readonly byMethod = new Map<string, { calls: number; ms: number }>();

  record(method: string, ms: number): void {
    const t = this.byMethod.get(method);
    if (t) {
      t.calls++;
      t.ms += ms;
    } else {
      this.byMethod.set(method, { calls: 1, ms });
    }
  }

  /** Calls answered and ms held so far for `method` (answered or refused). */
  of(method: string): { calls: number; ms: number } {
    const t = this.byMethod.get(method);
    return { calls: t?.calls ?? 0, ms: t?.ms ?? 0 };
  }
}
