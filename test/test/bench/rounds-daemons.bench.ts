/**
 * One hArk round whose participants are daemons (tenderd with its default plugins, the rounds
 * plugin included): DAEMONS daemons, each refreshing one board VTXO over barkd's
 * `POST /wallet/refresh/vtxos`, in one round triggered on the devnet's reference Ark server
 * (test profile, nb_round_nonces 1: the round's 4 places fill up, so sign-up closes as soon as
 * the last daemon joined). Measured: trigger → `finished` published by the server, its phases
 * (sign-up, signing and finish, from the server's event channel in this process), and until
 * every daemon reports the round's funding tx; as a multiple of N MuSig2 sessions measured in
 * the same run. The server's tree-signing time alone is measured by the in-process rows
 * (`adapters/devnet/test/bench/rounds.bench.ts`); from outside, a daemon round shows it only
 * inside "signing and finish".
 */
import { measure, type BenchReport, type BenchRow } from "@tender/core";
import { MusigSession, musigNonceAgg, musigNonceGen, musigTweakedKey, pubkeyFromSecret, sha256, type MusigNonce } from "@tender/ark-protocol";
import { arkServer } from "@tender/devnet";
import { randomBytes } from "node:crypto";
import { cleanup, startDaemon, type Daemon } from "../../src/daemon-process.js";
import { boardedWallet, ok, roundsDaemonConfig, type PendingRoundInfo, type VtxoInfo } from "../rounds-harness.js";

/** Daemons in the round: one per place of a 4-leaf round (the machine this was written on has 2 cores). */
const DAEMONS = 4;
const BOARD_SAT = 100_000;
const MNEMONICS = [
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
  "legal winner thank year wave sausage worth useful legal winner thank yellow",
  "letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
  "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
];

/** One complete 2-signer MuSig2 session: tweaked KeyAgg (never memoised), two nonces, nonce aggregation, two partial signatures, aggregation. */
function musigSession(): () => Uint8Array {
  const keys = [0, 1].map(() => {
    const sk = new Uint8Array(randomBytes(32));
    return { sk, pk: pubkeyFromSecret(sk) };
  });
  const message = sha256(new TextEncoder().encode("round bench message"));
  let i = 0;
  return () => {
    const tweak = sha256(new TextEncoder().encode(`round bench tweak ${i++}`));
    const aggregateKey = musigTweakedKey(keys.map((k) => k.pk), tweak);
    const nonces: MusigNonce[] = keys.map((k) => musigNonceGen({ pubkey: k.pk, secretKey: k.sk, aggregateKey, message }));
    const session = new MusigSession({ pubkeys: keys.map((k) => k.pk), aggNonce: musigNonceAgg(nonces.map((n) => n.pubNonce)), message, tweak });
    return session.aggregate(keys.map((k, j) => session.sign(nonces[j]!.secNonce, k.sk)));
  };
}

/** Publication times (`performance.now()`) of the next round's events on the server's channel. */
function recordEvents(devnet: arkServer.DevnetWithArk): { finished: Promise<{ attempt: number; proposal: number; finished: number }>; stop: () => void } {
  const abort = new AbortController();
  const finished = (async () => {
    const t = { attempt: 0, proposal: 0, finished: 0 };
    for await (const e of devnet.ark.server.rounds.events.subscribe(abort.signal)) {
      const now = performance.now();
      if (e.kind === "attempt" && t.attempt === 0) t.attempt = now;
      if (t.attempt === 0) continue; // an earlier round's last event, replayed first
      if (e.kind === "vtxo-proposal") t.proposal = now;
      if (e.kind === "failed") throw new Error(`round ${e.roundSeq} failed`);
      if (e.kind === "finished") {
        t.finished = now;
        return t;
      }
    }
    throw new Error("the server stopped before the round finished");
  })();
  finished.catch(() => undefined);
  return { finished, stop: () => abort.abort() };
}

/** Resolves with the time every daemon's participation left `pending` (polled every 20 ms). */
async function allDaemonsSawFunding(daemons: readonly Daemon[], timeoutMs = 60_000): Promise<number> {
  const end = performance.now() + timeoutMs;
  const open = new Set(daemons);
  while (open.size > 0) {
    if (performance.now() > end) throw new Error("the daemons did not see the finished round in time");
    for (const d of [...open]) {
      const [r] = await ok<PendingRoundInfo[]>(d, "GET", "/api/v1/wallet/rounds");
      if (r?.status.status === "failed") throw new Error(`a daemon's round failed: ${r.status.error ?? ""}`);
      if (r?.funding_txid) open.delete(d);
    }
    if (open.size > 0) await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now();
}

const ms = (x: number) => `${x.toFixed(1)} ms`;

export default async function roundsDaemonsBench(): Promise<BenchReport> {
  const sessionPerSec = await measure(musigSession(), 1000);
  const sessionMs = 1000 / sessionPerSec;
  const devnet = await arkServer.startDevnetWithArk({
    seed: "rounds-daemons-bench",
    ark: { profile: "test", overrides: { nbRoundNonces: 1, roundSubmitTimeMs: 60_000, roundSignTimeMs: 60_000 } },
  });
  const daemons: Daemon[] = [];
  try {
    if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
    const started = await Promise.allSettled(MNEMONICS.slice(0, DAEMONS).map(() => startDaemon({ config: roundsDaemonConfig() })));
    for (const s of started) if (s.status === "fulfilled") daemons.push(s.value);
    for (const s of started) if (s.status === "rejected") throw s.reason;
    await Promise.all(daemons.map((d, i) => boardedWallet(d, devnet, MNEMONICS[i]!, [BOARD_SAT])));
    for (const d of daemons) {
      const [v] = await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos");
      const r = await ok<PendingRoundInfo>(d, "POST", "/api/v1/wallet/refresh/vtxos", { vtxos: [v!.id] });
      if (r.status.status !== "pending") throw new Error(`refresh not pending: ${JSON.stringify(r.status)}`);
    }
    // the daemons' round-event subscriptions are open before the round starts
    await new Promise((r) => setTimeout(r, 1000));
    const events = recordEvents(devnet);
    try {
      const t0 = performance.now();
      devnet.ark.server.triggerRound();
      const t = await events.finished;
      const done = await allDaemonsSawFunding(daemons);
      const total = t.finished - t0;
      const unit = DAEMONS * sessionMs;
      const rows: BenchRow[] = [
        { name: "one MuSig2 session (2 signers: tweaked KeyAgg, 2 nonces, 2 partial signs, aggregate)", opsPerSec: sessionPerSec, note: `${(sessionMs * 1000).toFixed(0)} µs; the unit of the ratio below` },
        {
          name: `round, N=${DAEMONS} (${DAEMONS} daemons, 1 VTXO each): trigger → finished`,
          opsPerSec: 1000 / total,
          note: `${ms(total)} = ${(total / unit).toFixed(1)} × N sessions (${ms(unit)}); sign-up ${ms(t.proposal - t.attempt)} (closed when full), signing and finish ${ms(t.finished - t.proposal)}; every daemon shows the funding tx after ${ms(done - t0)}`,
        },
      ];
      return { title: "hArk round with daemon participants (devnet, reference Ark server in process, tenderd daemons over HTTP)", rows };
    } finally {
      events.stop();
    }
  } finally {
    for (const d of daemons) {
      await d.stop();
      cleanup(d.datadir);
    }
    await devnet.stop();
  }
}
