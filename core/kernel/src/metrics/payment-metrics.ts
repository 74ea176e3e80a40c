import type { EventBus } from "../events/event-bus.js";
import { WalletNotificationRaised } from "../wallet/session.js";
import type { Metrics } from "./metrics.js";

const FINAL = new Set(["successful", "failed", "canceled"]);
/** How many movement ids are remembered so a movement is counted once (a final movement changes rarely afterwards). */
const REMEMBERED = 10_000;

/**
 * `tender_payments_total{rail, kind, outcome}`: every movement that reaches a final status
 * (successful, failed, canceled), counted once, by the subsystem that made it (`rail`: e.g.
 * `bark.arkoor`, `bark.lightning_send`) and its kind. Fed from the movement notifications.
 */
export function registerPaymentMetrics(events: EventBus, metrics: Metrics): void {
  const payments = metrics.counter("tender_payments_total", "Payments (movements) that reached a final status, by rail (subsystem), kind and outcome", ["rail", "kind", "outcome"]);
  const counted = new Set<number>();
  events.on(WalletNotificationRaised, (n) => {
    if (n.type === "channel-lagging") return;
    const m = n.movement as { id?: unknown; status?: unknown; subsystem?: { name?: unknown; kind?: unknown } };
    const id = Number(m.id);
    if (!Number.isInteger(id) || typeof m.status !== "string" || !FINAL.has(m.status) || counted.has(id)) return;
    counted.add(id);
    if (counted.size > REMEMBERED) counted.delete(counted.values().next().value!);
    payments.inc({ rail: String(m.subsystem?.name ?? "unknown"), kind: String(m.subsystem?.kind ?? "unknown"), outcome: m.status });
  });
}
