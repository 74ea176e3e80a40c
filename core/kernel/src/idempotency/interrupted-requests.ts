import type { ActionEngine } from "../actions/action-engine.js";
import type { IdempotencyRecord } from "./idempotency-record.js";
import type { IdempotencyStore, StoredAnswer } from "./idempotency-store.js";

/** What a key whose request was cut off by a crash resolves to. */
export type InterruptedOutcome =
  | { pending: true; actionIds: string[] }
  | { pending: false; answer: StoredAnswer };

const json = (status: number, body: Record<string, unknown>, movementId: number | undefined): StoredAnswer => ({
  status, contentType: "application/json; charset=utf-8", body: Buffer.from(JSON.stringify(body), "utf8"), movementIds: movementId === undefined ? [] : [movementId],
});

const PAYMENT_MESSAGES: Record<string, string> = { send: "Payment sent successfully", pay: "Payment initiated successfully" };

const asMovementId = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined);

/**
 * Resolves a key still `running` while no request of this process runs it: the daemon stopped
 * between storing the key and storing the answer. The actions the request started are linked to
 * the key in the transaction that created them, so a payment that was started is always found:
 * while one of them runs the outcome is pending (409), once all ended the answer is rebuilt from
 * them (200 when all succeeded, 500 with the failure otherwise), with the movement they recorded.
 * A request that started no action may still have had effects outside actions (an on-chain send),
 * so it is never run again: its answer says the outcome is unknown.
 */
export async function resolveInterrupted(record: IdempotencyRecord, store: IdempotencyStore, actions: ActionEngine): Promise<InterruptedOutcome> {
  const links = await store.links(record.id);
  const actionIds = links.filter((l) => l.kind === "action").map((l) => l.ref);
  if (actionIds.length === 0) {
    return {
      pending: false,
      answer: json(500, {
        message: "the daemon stopped while it handled the first request with this Idempotency-Key, before that request started a payment " +
          "action; what it did is unknown: check GET /api/v1/history before retrying with a new key",
      }, undefined),
    };
  }
  const statuses = await Promise.all(actionIds.map((id) => actions.status<Record<string, unknown>>(id)));
  if (statuses.some((s) => !s || (s.step !== "done" && s.step !== "failed"))) return { pending: true, actionIds };
  const ended = statuses.filter((s) => s !== undefined);
  const movementId = ended.map((s) => asMovementId(s.state?.movementId)).find((m) => m !== undefined);
  const paymentHash = ended.map((s) => s.state?.paymentHash).find((h): h is string => typeof h === "string");
  const failed = ended.find((s) => s.step === "failed");
  if (failed) {
    return {
      pending: false,
      answer: json(500, { message: `the payment started by the first request with this Idempotency-Key failed: ${failed.error ?? "unknown error"}`, ...(movementId ? { movement_id: movementId } : {}) }, movementId),
    };
  }
  return {
    pending: false,
    answer: json(200, {
      // barkd's payment answers carry these messages; other operations say what happened
      message: PAYMENT_MESSAGES[record.operationId] ?? "completed; the answer was rebuilt from the actions the request started",
      ...(paymentHash ? { payment_hash: paymentHash } : {}),
      ...(movementId ? { movement_id: movementId } : {}),
    }, movementId),
  };
}
