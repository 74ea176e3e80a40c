import { writeSync } from "node:fs";

/**
 * Crash testing: when `TENDER_FAULT_INJECT` names a fault point (e.g. `wallet-create:after-db`),
 * reaching that point prints `fault point <name> fired` on stderr (synchronously, so the line is
 * out before the process dies) and kills the process with SIGKILL, exactly like `kill -9`. Crash
 * tests read the line to assert which point fired. Without the variable this is a no-op.
 */
export function faultPoint(name: string): void {
  const wanted = process.env.TENDER_FAULT_INJECT;
  if (!wanted || !wanted.split(",").includes(name)) return;
  writeSync(2, `fault point ${name} fired\n`);
  process.kill(process.pid, "SIGKILL");
}

/** The line {@link faultPoint} prints when `name` fires. */
export function faultPointLine(name: string): string {
  return `fault point ${name} fired`;
}
