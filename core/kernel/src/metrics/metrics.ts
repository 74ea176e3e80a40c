import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Logger } from "../log/logger.js";
import type { ResponseInfo } from "../http/app.js";

/** One sample of a gauge read at scrape time. */
export interface GaugeSample {
  labels?: Record<string, string>;
  value: number;
}

/** A gauge whose samples are read when `/metrics` is scraped. */
export interface CollectedGaugeOptions {
  /** `tender_…`, Prometheus naming (unit suffix, `_total` only for counters). */
  name: string;
  help: string;
  labelNames?: readonly string[];
  /** Reads the current samples; a throw is logged and leaves the gauge empty for this scrape. */
  collect(): Promise<GaugeSample[]> | GaugeSample[];
}

/** A counter plugins increment. */
export interface MetricCounter {
  inc(labels?: Record<string, string>, by?: number): void;
}

/** A histogram of durations in seconds. */
export interface MetricHistogram {
  observe(labels: Record<string, string>, seconds: number): void;
}

/** Default buckets of {@link Metrics.histogram}, in seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** How long one gauge may take to read before the scrape goes on without it. */
const COLLECT_TIMEOUT_MS = 3_000;

/**
 * The daemon's Prometheus metrics (prom-client): the process's standard ones (`process_…`,
 * `nodejs_…`), the kernel's HTTP request counts and latencies by route template, and what
 * plugins add — counters they increment and gauges read at scrape time. Plugins use this class
 * only (they do not import prom-client). Labels never carry addresses, amounts of single
 * payments, tokens or other secrets.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<string>;
  private readonly latency: Histogram<string>;

  constructor(private readonly logger: Logger) {
    // the process's own: resident memory, CPU, open descriptors, heap, GC pauses and the event
    // loop's delay, which shows any work that stops the daemon from answering. Sampled every
    // 100 ms: every 20 ms the sampling timer alone cost an idle daemon ≈ 4 ms of CPU a second
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    this.requests = new Counter({
      name: "tender_http_requests_total", help: "HTTP requests answered, by method, route template and status code",
      labelNames: ["method", "route", "status"], registers: [this.registry],
    });
    this.latency = new Histogram({
      name: "tender_http_request_duration_seconds", help: "Time to answer an HTTP request, by method and route template",
      labelNames: ["method", "route"], registers: [this.registry],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    });
  }

  /** Records one answered request; a request no route matched is labelled `unmatched` (never its raw path). */
  observeRequest(info: ResponseInfo): void {
    const route = info.route ?? "unmatched";
    this.requests.inc({ method: info.method, route, status: String(info.status) });
    this.latency.observe({ method: info.method, route }, info.seconds);
  }

  /** A counter (`name` ends in `_total`). */
  counter(name: string, help: string, labelNames: readonly string[] = []): MetricCounter {
    const c = new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] });
    return { inc: (labels, by = 1) => (labels ? c.inc(labels, by) : c.inc(by)) };
  }

  /** A histogram of durations (`name` ends in `_seconds`), with buckets from 1 ms to 30 s unless given. */
  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets: readonly number[] = DURATION_BUCKETS): MetricHistogram {
    const h = new Histogram({ name, help, labelNames: [...labelNames], buckets: [...buckets], registers: [this.registry] });
    return { observe: (labels, seconds) => h.observe(labels, seconds) };
  }

  /** A gauge read at each scrape. */
  gauge(opts: CollectedGaugeOptions): void {
    const logger = this.logger;
    new Gauge({
      name: opts.name, help: opts.help, labelNames: [...(opts.labelNames ?? [])], registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const s of await withTimeout(Promise.resolve(opts.collect()), COLLECT_TIMEOUT_MS)) {
            if (s.labels) this.set(s.labels, s.value);
            else this.set(s.value);
          }
        } catch (e) {
          logger.warn(`metric ${opts.name} could not be read: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
    });
  }

  /** The Prometheus text exposition. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

/** `p`, or a rejection after `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
