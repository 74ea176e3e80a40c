/**
 * Open defects the fuzzer meets and must not fix here (they belong to code being rewritten): a
 * request matching one is reported with the reason and not counted as a failure, so the suite
 * stays green and says what it skipped. Each entry names the request and what barkd answers.
 */
import type { FuzzOperation } from "./operations.js";
import type { RawResponse, Violation } from "./oracle.js";
import type { Parsed } from "./strict-json.js";

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


/** None open: the defects this fuzzer found are fixed (each with its own test). */
export const KNOWN_ISSUES: readonly KnownIssue[] = [];
