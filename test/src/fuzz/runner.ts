/**
 * Runs the fuzz: fast-check draws requests over every operation from a printed seed; each is
 * sent, judged by the oracle against what barkd answers, and — when it uses a state-changing
 * method and is refused — the wallet's observable state is compared before and after. A failure
 * prints the seed and the shrunk request (fast-check's report); known open defects are counted
 * and printed with their reason instead of failing.
 */
import fc from "fast-check";
import { barkdVerdict, type Verdict } from "./barkd-model.js";
import { exclusionOf } from "./exclusions.js";
import { HttpClient } from "./http-client.js";
import { KNOWN_ISSUES } from "./known-issues.js";
import { judge, type RawResponse, type Violation } from "./oracle.js";
import { operationsOf, type FuzzOperation } from "./operations.js";
import { fuzzRequests, type FuzzRequest } from "./requests.js";
import { handlerExpectation, type WalletFacts } from "./situations.js";
import { plainValue } from "./strict-json.js";
import type { FuzzTarget } from "./target.js";
import { WalletStateReader, type WalletState } from "./wallet-state.js";

export interface FuzzOptions {
  readonly seed: number;
  readonly requests: number;
  /** The run stops (reporting how far it got) after this long. */
  readonly timeLimitMs: number;
  /** Collect every violation instead of stopping (and shrinking) at the first. */
  readonly keepGoing?: boolean;
  readonly log?: (line: string) => void;
}

export interface FuzzReport {
  readonly seed: number;
  readonly requests: number;
  readonly elapsedMs: number;
  readonly operations: number;
  /** Answers per operation (`METHOD /path`, or `(unrouted)`, `(405)`) and status. */
  readonly statuses: ReadonlyMap<string, ReadonlyMap<number, number>>;
  readonly verdicts: Readonly<Record<Verdict["kind"], number>>;
  readonly stateChecks: number;
  /** Milliseconds spent waiting for answers to fuzzed requests, per operation. */
  readonly requestMs: ReadonlyMap<string, number>;
  /** Milliseconds spent reading the wallet's state (baselines, settling, checks). */
  readonly stateMs: number;
  readonly excluded: ReadonlyMap<string, { reason: string; count: number }>;
  readonly known: ReadonlyMap<string, { reason: string; count: number; example: string }>;
  /** With `keepGoing`: every violation (the first few of each rule). */
  readonly violations: readonly { rule: string; detail: string; request: string; count: number }[];
  /** fast-check's report when the run stopped at a failure. */
  readonly failure?: string;
  /** Refusals after which the state changed but not again when the request was replayed (background work of an earlier request). */
  readonly backgroundChanges: readonly string[];
}

/** Methods that may change state: a refused one must not. */
const MUTATING = new Set(["POST", "DELETE", "PUT", "PATCH"]);

/**
 * Operations whose success starts work that may finish after the answer (a board's action goes on
 * in the background, an Ark payment's delivery too): after one, the state is read until it settles.
 * Every other operation is done when it answers.
 */
const BACKGROUND_AFTER_SUCCESS = new Set([
  "POST /api/v1/wallet/send", "POST /api/v1/boards/board-amount", "POST /api/v1/boards/board-all",
  // refreshes, offboards and Lightning payments go on in the background after their answer too
  "POST /api/v1/wallet/refresh/all", "POST /api/v1/wallet/refresh/vtxos", "POST /api/v1/wallet/refresh/counterparty",
  "POST /api/v1/wallet/offboard/all", "POST /api/v1/wallet/offboard/vtxos", "POST /api/v1/wallet/send-onchain", "POST /api/v1/lightning/pay",
]);

/**
 * What barkd itself changes before it refuses a request: a board derives and stores the next
 * Ark key before it builds the funding transaction, so a board refused for its amount or funds
 * (500) has used up one address index; a BIP 321 URI whose invoice is refused likewise.
 */
const REFUSAL_EFFECTS: Record<string, { status: number; part: RegExp }> = {
  "POST /api/v1/boards/board-amount": { status: 500, part: /^peek address/ },
  "POST /api/v1/boards/board-all": { status: 500, part: /^peek address/ },
  // barkd builds a BIP 321 URI's Ark address before its invoice: a refused invoice leaves the address used
  "POST /api/v1/wallet/bip321": { status: 500, part: /^Failed to build BIP 321 URI: failed to generate lightning invoice/ },
  "POST /api/v1/wallet/bip321/qr": { status: 500, part: /^Failed to build BIP 321 URI: failed to generate lightning invoice/ },
};

function lenientJson(body: Buffer | undefined): unknown {
  try {
    return JSON.parse(body?.toString("utf8") ?? "");
  } catch {
    return undefined;
  }
}

class FuzzFailure extends Error {}

export async function runFuzz(target: FuzzTarget, opts: FuzzOptions): Promise<FuzzReport> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const { operations, servedDoc } = operationsOf(target.served);
  const http = new HttpClient(target.daemon.port);
  const reader = new WalletStateReader(http, target.token);
  const facts: { fingerprint: string; vtxoIds: Set<string>; movementIds: Set<number>; derivedIndex: number } = {
    fingerprint: target.hints.fingerprint, vtxoIds: new Set(target.hints.vtxoIds), movementIds: new Set(target.hints.movementIds), derivedIndex: target.hints.derivedIndex,
  };
  const statuses = new Map<string, Map<number, number>>();
  const verdicts: Record<Verdict["kind"], number> = { rejected: 0, handler: 0, unknown: 0 };
  const excluded = new Map<string, { reason: string; count: number }>();
  const known = new Map<string, { reason: string; count: number; example: string }>();
  const collected = new Map<string, { rule: string; detail: string; request: string; count: number }>();
  let sent = 0;
  let stateChecks = 0;
  let stateMs = 0;
  const requestMs = new Map<string, number>();
  /** The state before the next state-changing request; `undefined` after an accepted one. */
  let baseline: WalletState | undefined;
  let lastAccepted = "(none)";
  let needsSettle = false;
  /** The last few requests sent, with their statuses (shown with a state change). */
  const trail: string[] = [];
  /** Refusals after which the state changed, not again on their replay (see `changedByReplay`). */
  const backgroundChanges: string[] = [];

  /** Reads the state every `gapMs` until `stillLooks` looks in a row found it unchanged, at most `maxLooks` times; answers the last look. */
  const readUntilStill = async (first: WalletState, gapMs: number, stillLooks: number, maxLooks: number): Promise<WalletState> => {
    let s = first;
    for (let still = 0, i = 0; still < stillLooks && i < maxLooks; i++) {
      await new Promise((r) => setTimeout(r, gapMs));
      const t = await reader.read(true);
      still = WalletStateReader.diff(s, t).length === 0 ? still + 1 : 0;
      s = t;
    }
    return s;
  };

  const takeBaseline = async (): Promise<WalletState> => {
    let s = await reader.read(true);
    if (needsSettle) {
      // read until two looks 60 ms apart agree (at most ~3 s)
      s = await readUntilStill(s, 60, 1, 50);
      needsSettle = false;
    }
    facts.movementIds = new Set(s.movementIds);
    for (const id of s.vtxoIds) facts.vtxoIds.add(id);
    return s;
  };

  /**
   * Work an accepted request started may change the state long after its answer (a payment to one
   * of the wallet's own addresses arrives through the mailbox; a refresh ends with the next
   * round). A change seen after a refusal is therefore checked once more: the state is read until
   * it has been still for a while, the same request is sent again (without an Idempotency-Key,
   * so a stored answer cannot hide its effect) and it must be refused again and change nothing for
   * the change to be put down to background work; a refusal that changes the state does so again.
   * The changes put down to background work are listed in the report.
   */
  const changedByReplay = async (req: FuzzRequest, status: number, allowed: { status: number; part: RegExp } | undefined): Promise<boolean> => {
    const t0 = Date.now();
    const s = await readUntilStill(await reader.read(true), 125, 4, 60);
    const wire = { ...req.wire, headers: req.wire.headers.filter(([k]) => k.toLowerCase() !== "idempotency-key") };
    const again = await http.send(wire);
    const after = await reader.read(false);
    stateMs += Date.now() - t0;
    if (again.status !== status) return true;
    return WalletStateReader.diff(s, after).some((d) => !(allowed && status === allowed.status && allowed.part.test(d)));
  };

  const one = async (req: FuzzRequest): Promise<Violation[]> => {
    const model = barkdVerdict(operations, req.wire, target.token, servedDoc);
    const op: FuzzOperation | undefined = model.match.kind === "op" ? model.match.op : undefined;
    const opKey = op ? `${op.method} ${op.path}` : `(${model.match.kind})`;
    const exclusion = exclusionOf(op ? `${op.method} ${op.path}` : undefined, model.verdict, req, facts.fingerprint);
    if (exclusion) {
      const e = excluded.get(exclusion.id) ?? { reason: exclusion.reason, count: 0 };
      e.count++;
      excluded.set(exclusion.id, e);
      return [];
    }
    const pre = KNOWN_ISSUES.find((k) => k.beforeSending?.({ op, body: lenientJson(req.wire.body) }));
    if (pre) {
      const k = known.get(pre.id) ?? { reason: pre.reason, count: 0, example: `${req.toString()}\n  → not sent` };
      k.count++;
      known.set(pre.id, k);
      return [];
    }
    const mutating = MUTATING.has(req.wire.method);
    let t0 = Date.now();
    if (mutating && !baseline) baseline = await takeBaseline();
    stateMs += Date.now() - t0;
    t0 = Date.now();
    let res: RawResponse;
    try {
      res = await http.send(req.wire);
    } catch (e) {
      return [{ rule: "no-answer", detail: e instanceof Error ? e.message : String(e) }];
    } finally {
      requestMs.set(opKey, (requestMs.get(opKey) ?? 0) + Date.now() - t0);
    }
    sent++;
    trail.push(`${req.wire.method} ${req.wire.path} → ${res.status}`);
    if (trail.length > 10) trail.shift();
    verdicts[model.verdict.kind]++;
    const perOp = statuses.get(opKey) ?? new Map<number, number>();
    perOp.set(res.status, (perOp.get(res.status) ?? 0) + 1);
    statuses.set(opKey, perOp);
    const expectation = op && model.verdict.kind === "handler"
      ? handlerExpectation({ method: op.method, path: op.path, params: model.params ?? {}, query: model.query ?? [], body: model.parsedBody ? plainValue(model.parsedBody) : undefined }, facts as WalletFacts)
      : undefined;
    const violations = judge(op, model.verdict, expectation, res, { method: req.wire.method, path: req.wire.path });
    if (mutating) {
      if (res.status >= 200 && res.status < 300) {
        baseline = undefined;
        lastAccepted = `${req.wire.method} ${req.wire.path} (request ${sent})`;
        if (BACKGROUND_AFTER_SUCCESS.has(opKey)) needsSettle = true;
      } else {
        stateChecks++;
        const t1 = Date.now();
        const after = await reader.read(false);
        stateMs += Date.now() - t1;
        const allowed = REFUSAL_EFFECTS[opKey];
        const all = WalletStateReader.diff(baseline!, after);
        const diff = all.filter((d) => !(allowed && res.status === allowed.status && allowed.part.test(d)));
        if (diff.length && await changedByReplay(req, res.status, allowed)) {
          violations.push({
            rule: "state-changed",
            detail: `a refused ${res.status} changed the wallet's state (last accepted request before it: ${lastAccepted}):\n    ${diff.join("\n    ")}\n  requests before it:\n    ${trail.join("\n    ")}`,
          });
          baseline = undefined;
        } else if (diff.length) {
          backgroundChanges.push(`${req.wire.method} ${req.wire.path} (request ${sent}) → ${res.status}: ${diff.map((d) => d.split(":")[0]).join(", ")}`);
          baseline = undefined;
        } else {
          // after an allowed change the next baseline looks again for the highest derived index
          baseline = all.length > diff.length ? undefined : after;
        }
      }
    }
    if (violations.length === 0) return [];
    const issue = KNOWN_ISSUES.find((k) => k.matches({ op, parsedBody: model.parsedBody, query: model.query, res, violations }));
    if (issue) {
      const k = known.get(issue.id) ?? { reason: issue.reason, count: 0, example: `${req.toString()}\n  → ${res.status} ${res.body.toString("utf8").slice(0, 200)}` };
      k.count++;
      known.set(issue.id, k);
      return [];
    }
    return violations;
  };

  const started = Date.now();
  log(`rest fuzz: seed=${opts.seed} requests=${opts.requests} operations=${operations.length} (reproduce: FUZZ_SEED=${opts.seed} FUZZ_REQUESTS=${opts.requests})`);
  let failure: string | undefined;
  try {
    await fc.assert(
      fc.asyncProperty(fuzzRequests(operations, { hints: target.hints, token: target.token, servedDoc }), async (req) => {
        const v = await one(req);
        if (v.length === 0) return;
        if (opts.keepGoing) {
          for (const x of v) {
            const key = `${x.rule} ${req.wire.method} ${req.wire.path.split("/").slice(0, 5).join("/")}`;
            const c = collected.get(key) ?? { rule: x.rule, detail: x.detail, request: req.toString(), count: 0 };
            c.count++;
            collected.set(key, c);
          }
          return;
        }
        throw new FuzzFailure(v.map((x) => `[${x.rule}] ${x.detail}`).join("\n"));
      }),
      { seed: opts.seed, numRuns: opts.requests, interruptAfterTimeLimit: opts.timeLimitMs, markInterruptAsFailure: false, includeErrorInReport: true },
    );
  } catch (e) {
    failure = e instanceof Error ? e.message : String(e);
  } finally {
    http.close();
  }
  return {
    seed: opts.seed, requests: sent, elapsedMs: Date.now() - started, operations: operations.length, statuses, verdicts, stateChecks, requestMs, stateMs,
    excluded, known, violations: [...collected.values()], backgroundChanges, ...(failure ? { failure } : {}),
  };
}

/** The report as lines: totals, answers per operation (unless `brief`), exclusions, known issues, violations. */
export function formatReport(r: FuzzReport, brief = false): string[] {
  const out = [
    `rest fuzz: ${r.requests} requests over ${r.operations} operations in ${(r.elapsedMs / 1000).toFixed(1)} s (${Math.round(r.requests / (r.elapsedMs / 1000))}/s), seed ${r.seed}`,
    `  barkd's framework would refuse ${r.verdicts.rejected}, pass ${r.verdicts.handler} to its handler, unsure ${r.verdicts.unknown}; ${r.stateChecks} refused state-changing requests checked for state changes (${(r.stateMs / 1000).toFixed(1)} s reading state)`,
  ];
  for (const [op, m] of brief ? [] : [...r.statuses].sort(([a], [b]) => a.localeCompare(b))) {
    const ms = r.requestMs.get(op) ?? 0;
    out.push(`  ${op.padEnd(46)} ${`${(ms / 1000).toFixed(1)} s`.padStart(7)}  ${[...m].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(" ")}`);
  }
  for (const [id, e] of r.excluded) out.push(`  excluded ${id} (${e.count}×): ${e.reason}`);
  for (const [id, k] of r.known) out.push(`  KNOWN ISSUE skipped ${id} (${k.count}×): ${k.reason}\n    e.g. ${k.example}`);
  for (const b of r.backgroundChanges) out.push(`  background change (a replay of the refusal changed nothing): ${b}`);
  for (const v of r.violations) out.push(`  VIOLATION ${v.rule} (${v.count}×): ${v.detail}\n    ${v.request}`);
  return out;
}
