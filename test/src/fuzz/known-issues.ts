/**
 * Open defects the fuzzer meets and must not fix here (they belong to code being rewritten): a
 * request matching one is reported with the reason and not counted as a failure, so the suite
 * stays green and says what it skipped. Each entry names the request and what barkd answers.
 */
import type { FuzzOperation } from "./operations.js";
import type { RawResponse, Violation } from "./oracle.js";
import { plainValue, type Parsed } from "./strict-json.js";

export interface KnownIssue {
  readonly id: string;
  readonly reason: string;
  /** A request that would hit the defect is not sent at all (when sending it would stall the run). */
  readonly beforeSending?: (c: { op: FuzzOperation | undefined; body: unknown }) => boolean;
  matches(c: KnownIssueCase): boolean;
}

export interface KnownIssueCase {
  readonly op: FuzzOperation | undefined;
  readonly parsedBody: Parsed | undefined;
  readonly query: readonly [string, string][] | undefined;
  readonly res: RawResponse;
  readonly violations: readonly Violation[];
}


/** Every string in a body's destination fields (`destination`, `address`, `destinations[]`). */
function destinations(body: unknown): string[] {
  if (!body || typeof body !== "object") return [];
  const b = body as Record<string, unknown>;
  return [b.destination, b.address, ...(Array.isArray(b.destinations) ? b.destinations : [])].filter((x): x is string => typeof x === "string");
}

export const KNOWN_ISSUES: readonly KnownIssue[] = [
  {
    id: "onchain-long-destination",
    reason: "plugins/onchain (open, found by this fuzzer): a long destination in POST /api/v1/onchain/send, /drain or /send-many is parsed as base58 in quadratic time on the event loop: 20 000 characters take ~3 s, 100 000 block the whole daemon for over a minute (every other request waits); barkd answers 400 \"Invalid destination address\" at once. Requests with a destination over 1 000 characters are not sent",
    beforeSending: (c) => ["/api/v1/onchain/send", "/api/v1/onchain/drain", "/api/v1/onchain/send-many"].includes(c.op?.path ?? "") && destinations(c.body).some((d) => d.length > 1_000),
    matches: () => false,
  },
  {
    id: "onchain-padded-destination",
    reason: "plugins/onchain (open, found by this fuzzer): POST /api/v1/onchain/send, /send-many (and /drain) trim the destination address, so \" bcrt1… \" is paid (200, or 500 for want of funds) where barkd's address parser refuses it: 400 \"Invalid destination address\"",
    matches: (c) => {
      if (!["/api/v1/onchain/send", "/api/v1/onchain/drain", "/api/v1/onchain/send-many"].includes(c.op?.path ?? "")) return false;
      if (!c.violations.every((v) => v.rule === "situation-status")) return false;
      const addresses = destinations(c.parsedBody ? plainValue(c.parsedBody) : undefined).map((d) => (c.op?.path === "/api/v1/onchain/send-many" ? d.split(":")[0]! : d));
      return addresses.some((a) => a !== a.trim());
    },
  },
  {
    id: "ark-payment-method-padded",
    reason: "plugins/ark (open, found by this fuzzer): the history filter's `ark` parser trims its value, so GET /api/v1/history?type=ark&value=%20tark1…%20 answers 200 where barkd's address parser refuses it: 400 \"bad request: invalid payment method: invalid ark address…\"",
    matches: (c) => {
      if (c.op?.path !== "/api/v1/history" || c.res.status !== 200 || !c.violations.every((v) => v.rule === "situation-status")) return false;
      const type = c.query?.find(([k]) => k === "type")?.[1];
      const value = c.query?.find(([k]) => k === "value")?.[1];
      return type === "ark" && value !== undefined && value !== value.trim() && value.trim() !== "";
    },
  },
];
