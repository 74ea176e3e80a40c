/**
 * Where a process spends its CPU during a bench burst: V8 CPU profiles (`--cpu-prof` in a child
 * process, the inspector in the bench process) cut into categories by the innermost frame of
 * each sample that names one (crypto by kind, VTXO validation, database, gRPC, HTTP, …).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Session } from "node:inspector/promises";

interface CallFrame { functionName: string; url: string }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
/** A V8 CPU profile (`.cpuprofile`). */
export interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

/** Frames of secp256k1 (WASM, native addon and the core's wrapper of both) and hash libraries: they count for the protocol operation calling them. */
const LIBRARY_CRYPTO = /tiny-secp256k1|node_modules\/secp256k1\/|secp256k1-ops\.js$|@noble|@scure|hashes\.js$|sha256/;

/** Categories, most specific first: a sample goes to the innermost frame that matches one. */
const RULES: readonly [category: string, test: (f: CallFrame) => boolean][] = [
  ["crypto: MuSig2 key aggregation", (f) => /musig/.test(f.url) && /keyAgg|KeyAgg/i.test(f.functionName)],
  ["crypto: MuSig2 sign/verify/nonces", (f) => /musig[^/]*\.js$/.test(f.url)],
  ["crypto: Schnorr (BIP-340)", (f) => /schnorr\.js$|signatures\.js$/.test(f.url)],
  ["crypto: taproot tweak", (f) => /taproot\.js$/.test(f.url)],
  ["crypto: sighash", (f) => /sighash\.js$/.test(f.url)],
  ["crypto: key derivation (BIP-32)", (f) => /bip32|wallet-keys\.js$/.test(f.url)],
  ["VTXO validation", (f) => /vtxo-validate\.js$|received-vtxo\.js$/.test(f.url)],
  ["VTXO encode/decode", (f) => /ark-protocol\/dist\/src\/(vtxo|encoding|tx)\.js$/.test(f.url)],
  ["database (SQLite, MikroORM)", (f) => /better-sqlite3|@mikro-orm|knex|kysely|persistence\//.test(f.url)],
  ["gRPC", (f) => /@grpc|protobuf|ark-grpc/.test(f.url)],
  ["HTTP (server, JSON)", (f) => /node:_http|node:http|\/http\//.test(f.url)],
  ["GC", (f) => f.functionName === "(garbage collector)"],
  ["idle", (f) => f.functionName === "(idle)"],
];

/** The monotonic clock V8 stamps profile samples with, in µs (CLOCK_MONOTONIC on Linux, as `process.hrtime`). */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Milliseconds per category of one profile (`other` for samples no rule claims), counting only
 * samples taken within `window` (µs of {@link monotonicUs}) when given.
 */
export function categorize(p: CpuProfile, window?: { fromUs: number; toUs: number }): Map<string, number> {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const categoryOf = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = categoryOf.get(id);
    if (known) return known;
    const frame = byId.get(id)!.callFrame;
    const rule = RULES.find(([, test]) => test(frame));
    const up = parent.get(id);
    let cat = rule ? rule[0] : up === undefined ? "other" : resolve(up);
    if (!rule && LIBRARY_CRYPTO.test(frame.url) && !cat.startsWith("crypto")) cat = "crypto: hashes/other secp256k1";
    categoryOf.set(id, cat);
    return cat;
  };
  const ms = new Map<string, number>();
  let at = p.startTime;
  p.samples.forEach((id, i) => {
    at += p.timeDeltas[i] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    const cat = resolve(id);
    ms.set(cat, (ms.get(cat) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return ms;
}

/** Reads the one `.cpuprofile` a child process wrote into `dir` (at exit). */
export function readProfile(dir: string): CpuProfile {
  const f = readdirSync(dir).find((x) => x.endsWith(".cpuprofile"));
  if (!f) throw new Error(`no CPU profile in ${dir}`);
  return JSON.parse(readFileSync(join(dir, f), "utf8")) as CpuProfile;
}

/** The samples of `p` taken from `fromUs` on (the first one's interval cut at `fromUs`). */
export function trimProfile(p: CpuProfile, fromUs: number): CpuProfile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let at = p.startTime;
  let last = fromUs;
  p.samples.forEach((id, i) => {
    at += p.timeDeltas[i] ?? 0;
    if (at < fromUs) return;
    samples.push(id);
    timeDeltas.push(at - last);
    last = at;
  });
  return { ...p, startTime: Math.max(p.startTime, fromUs), samples, timeDeltas };
}

/** Profiles this process while `work` runs. */
export async function profileHere<T>(work: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const s = new Session();
  s.connect();
  try {
    await s.post("Profiler.enable");
    await s.post("Profiler.setSamplingInterval", { interval: 200 });
    await s.post("Profiler.start");
    const startedUs = monotonicUs();
    const result = await work();
    const { profile } = await s.post("Profiler.stop");
    // the profiler's own start-up shows as one long first sample: only the work's samples count
    return { result, profile: trimProfile(profile as unknown as CpuProfile, startedUs) };
  } finally {
    s.disconnect();
  }
}

/** Busy (non-idle) milliseconds of a categorized profile. */
export function busyMs(cats: Map<string, number>): number {
  let t = 0;
  for (const [k, v] of cats) if (k !== "idle") t += v;
  return t;
}
