/**
 * Where the wall time of a sequential arkoor send goes, phase by phase: the sender's action
 * phases from its `/metrics` (`tender_action_phase_duration_seconds`: the first commit, each
 * step with its server calls, each step's commit), the route's own time
 * (`tender_http_request_duration_seconds`), and inside the cosign step the reference server's
 * stages (`ArkoorService.timings`), and how long the server held the send's two calls on the
 * path (`rpcTimes`: the cosign request, and the payee's mailbox post, which the server answers with
 * the deliver step's other writes in one group commit). Read before and after a phase of the bench;
 * the difference divided by the sends gives mean ms per send.
 */
import type { Daemon } from "../../src/daemon-process.js";
import type { DevnetWithArk } from "../ark-harness.js";
import { findSamples, parseExposition } from "../prometheus-text.js";

const KIND = "ark.arkoor-send";
const ROUTE = { method: "POST", route: "/api/v1/wallet/send" };

/** One reading of the counters the timeline is made of. */
export interface TimelineReading {
  /** Per phase of the send action: seconds summed. */
  readonly phases: Map<string, number>;
  /** Seconds summed over the route's answers. */
  readonly route: number;
  readonly server: { requests: number; checksMs: number; commitMs: number; signWaitMs: number };
  /** ms the server held the cosign requests and the mailbox posts, summed. */
  readonly held: { cosignMs: number; postMs: number };
  /** Syncs of the write-ahead logs so far and the seconds they took: the sender's (its `/metrics`) and the server's. */
  readonly logSyncs: { sender: { syncs: number; seconds: number }; server: { syncs: number; seconds: number } };
}

/** Reads the sender's metrics and the server's cosign stage times now. */
export async function readTimeline(sender: Daemon, devnet: DevnetWithArk): Promise<TimelineReading> {
  const res = await sender.api("GET", "/metrics");
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  const samples = parseExposition(res.text);
  const phases = new Map(findSamples(samples, "tender_action_phase_duration_seconds_sum", { kind: KIND }).map((s) => [s.labels.phase!, s.value]));
  const route = findSamples(samples, "tender_http_request_duration_seconds_sum", ROUTE)[0]?.value ?? 0;
  const t = devnet.ark.server.arkoor.timings;
  const rpc = devnet.ark.server.rpcTimes;
  return {
    phases, route,
    server: { requests: t.requests, checksMs: t.checksMs, commitMs: t.commitMs, signWaitMs: t.signWaitMs },
    held: { cosignMs: rpc.of("RequestArkoorCosign").ms, postMs: rpc.of("PostArkoorMessage").ms },
    logSyncs: {
      sender: {
        syncs: findSamples(samples, "tender_database_log_sync_duration_seconds_count", {})[0]?.value ?? 0,
        seconds: findSamples(samples, "tender_database_log_sync_duration_seconds_sum", {})[0]?.value ?? 0,
      },
      server: devnet.ark.server.ctx.store.logSyncs,
    },
  };
}

/**
 * Mean syncs of the write-ahead logs per send and the ms they took, the sender's and the
 * server's: the disk's share, which no code makes shorter (every durable commit waits for one;
 * commits made meanwhile share it).
 */
export function logSyncsPerSend(before: TimelineReading, after: TimelineReading, sends: number): Record<"sender" | "server", { syncs: number; ms: number }> {
  const per = (k: "sender" | "server") => ({
    syncs: (after.logSyncs[k].syncs - before.logSyncs[k].syncs) / sends,
    ms: ((after.logSyncs[k].seconds - before.logSyncs[k].seconds) * 1000) / sends,
  });
  return { sender: per("sender"), server: per("server") };
}

/** Mean ms per send the reference server held the send's calls on its path: the cosign request and the mailbox post. */
export function serverHeldMs(before: TimelineReading, after: TimelineReading, sends: number): { cosign: number; post: number } {
  return { cosign: (after.held.cosignMs - before.held.cosignMs) / sends, post: (after.held.postMs - before.held.postMs) / sends };
}

/** The order phases are shown in; others (resumed or retried steps) follow. */
const ORDER = ["begin", "cosign", "record:cosign", "deliver", "record:deliver"];

const LABELS: Record<string, string> = {
  begin: "selection, lock, movement and their commit",
  cosign: "cosign step",
  "record:cosign": "commit of the signed VTXOs",
  deliver: "deliver step (payee's mailbox, recovery post, outputs' registration)",
  "record:deliver": "end commit (change stored, inputs spent, movement settled)",
};

/** Mean ms per send between two readings, as one line; `clientMs` is the mean the client measured. */
export function timelineNote(before: TimelineReading, after: TimelineReading, sends: number, clientMs: number): string {
  const ms = (sum: number) => ((sum * 1000) / sends).toFixed(1);
  const names = [...ORDER.filter((p) => after.phases.has(p)), ...[...after.phases.keys()].filter((p) => !ORDER.includes(p)).sort()];
  const serverRequests = after.server.requests - before.server.requests;
  const perRequest = (k: keyof TimelineReading["server"]) => ((after.server[k] - before.server[k]) / Math.max(1, serverRequests)).toFixed(1);
  const held = serverHeldMs(before, after, sends);
  const parts = names.map((p) => {
    const sum = (after.phases.get(p) ?? 0) - (before.phases.get(p) ?? 0);
    const inside = p === "cosign"
      ? ` (the server held it ${held.cosign.toFixed(1)}: checks ${perRequest("checksMs")}, spend commit ${perRequest("commitMs")}, signatures after it ${perRequest("signWaitMs")}; the rest is the sender's package, nonces and signatures, and gRPC)`
      : p === "deliver"
        ? ` (the server held the mailbox post ${held.post.toFixed(1)}, answered with the step's other writes in one group commit)`
        : "";
    return `${LABELS[p] ?? p} ${ms(sum)}${inside}`;
  });
  const route = ms(after.route - before.route);
  const syncs = logSyncsPerSend(before, after, sends);
  const disk = `; of these, waiting for the disk (syncs of the write-ahead logs): the sender ${syncs.sender.ms.toFixed(1)} (${syncs.sender.syncs.toFixed(1)} syncs a send), the server ${syncs.server.ms.toFixed(1)} (${syncs.server.syncs.toFixed(1)}, its payee's writes included)`;
  return `mean ms per send: ${parts.join(" · ")}; the route in all ${route}, the client's round trip ${clientMs.toFixed(1)}${disk}`;
}
