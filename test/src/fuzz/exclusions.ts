/**
 * Requests the fuzzer does not send, because their success would end or hollow out the run.
 * Each is listed with its reason and counted in the report; the same operations are still
 * fuzzed with every request barkd refuses before its handler (bad token, content type, JSON,
 * shape), and with every other body.
 */
import type { Verdict } from "./barkd-model.js";
import type { FuzzRequest } from "./requests.js";
import { isBitcoinAddress } from "./situations.js";

export interface Exclusion {
  readonly id: string;
  readonly reason: string;
}

export const EXCLUSIONS = {
  deleteWallet: {
    id: "delete-wallet",
    reason: "DELETE /api/v1/wallet with dangerous=true and the wallet's fingerprint deletes the wallet under test; every later request would meet no wallet",
  },
  boardAll: {
    id: "board-all",
    reason: "POST /api/v1/boards/board-all boards every on-chain coin into a board the run never confirms (it mines no blocks); later boards and on-chain sends would only meet insufficient funds",
  },
  drain: {
    id: "drain",
    reason: "POST /api/v1/onchain/drain to an address of the wallet's network sends every on-chain coin away; later boards and on-chain sends would only meet insufficient funds",
  },
} as const satisfies Record<string, Exclusion>;

/** The body as JavaScript reads it (lenient: what the daemon may well accept). */
function lenientBody(r: FuzzRequest): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(r.wire.body?.toString("utf8") ?? "") as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The exclusion a request falls under, if any. `verdict`: barkd's answer before its handler; a
 * request barkd surely refuses there is always sent.
 */
export function exclusionOf(opKey: string | undefined, verdict: Verdict, r: FuzzRequest, fingerprint: string): Exclusion | undefined {
  if (verdict.kind === "rejected" || opKey === undefined) return undefined;
  const body = lenientBody(r);
  switch (opKey) {
    case "DELETE /api/v1/wallet":
      // the daemon compares the fingerprint exactly (as barkd): any other spelling is refused and sent
      return body?.dangerous === true && body.fingerprint === fingerprint ? EXCLUSIONS.deleteWallet : undefined;
    case "POST /api/v1/boards/board-all":
      return EXCLUSIONS.boardAll;
    case "POST /api/v1/onchain/drain":
      return typeof body?.destination === "string" && isBitcoinAddress(body.destination.trim(), "regtest") ? EXCLUSIONS.drain : undefined;
    default:
      return undefined;
  }
}
