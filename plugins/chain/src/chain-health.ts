import type { ChainSource, Metrics, Readiness, WalletService, WalletSession } from "@tender/core";

/** Default oldest acceptable tip block, except on regtest (where blocks are mined on demand). */
const DEFAULT_MAX_TIP_AGE_SECS = 2 * 3600;

/**
 * The chain source's readiness check (`chain`: the tip answers and is fresh) and gauges (tip
 * height, tip age as chain lag). `maxTipAgeSecs` 0 turns the age check off; unset, it is 2 h except
 * on regtest.
 */
export function registerChainHealth(readiness: Readiness, metrics: Metrics, session: WalletSession, source: WalletService<ChainSource>, maxTipAgeSecs: number | undefined): void {
  const tipAge = async (s: ChainSource) => {
    const tip = await s.getTip();
    const header = await s.getBlockHeader(tip.hash);
    return { height: tip.height, ageSecs: header ? Math.max(0, Math.floor(Date.now() / 1000) - header.time) : undefined };
  };
  readiness.add("chain", async () => {
    if (!session.isLoaded) return { ok: true, detail: "no wallet loaded" };
    const s = source.current;
    if (!s) return { ok: false, detail: "no chain source (wallet locked or not attached)" };
    const { height, ageSecs } = await tipAge(s);
    const limit = maxTipAgeSecs ?? (session.current?.network === "regtest" ? 0 : DEFAULT_MAX_TIP_AGE_SECS);
    if (limit > 0 && (ageSecs === undefined || ageSecs > limit)) return { ok: false, detail: `tip at height ${height} is ${ageSecs ?? "?"} s old (limit ${limit} s)` };
    return { ok: true, detail: `tip at height ${height}` };
  });
  metrics.gauge({
    name: "tender_chain_tip_height", help: "Height of the chain source's tip",
    collect: async () => (source.current ? [{ value: (await source.current.getTip()).height }] : []),
  });
  metrics.gauge({
    name: "tender_chain_lag_seconds", help: "Age of the chain source's tip block (now minus its timestamp)",
    collect: async () => {
      if (!source.current) return [];
      const { ageSecs } = await tipAge(source.current);
      return ageSecs === undefined ? [] : [{ value: ageSecs }];
    },
  });
}
