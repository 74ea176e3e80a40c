/**
 * Crash testing: when `TENDER_FAULT_INJECT` names a fault point (e.g. `wallet-create:after-db`),
 * reaching that point kills the process with SIGKILL, exactly like `kill -9`. Without the
 * variable this is a no-op. Used by the crash-safety tests of multi-step actions.
 */
export function faultPoint(name: string): void {
  const wanted = process.env.TENDER_FAULT_INJECT;
  if (!wanted || !wanted.split(",").includes(name)) return;
  process.kill(process.pid, "SIGKILL");
}
