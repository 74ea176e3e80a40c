/**
 * barkd's timestamps: RFC 3339 with the server's local offset (`Z` for a zero offset) and
 * millisecond precision here (barkd prints 0–9 fractional digits; clients accept any).
 */
export function formatLocalRfc3339(epochMs: number): string {
  const d = new Date(epochMs);
  const off = -d.getTimezoneOffset();
  const local = new Date(epochMs + off * 60_000).toISOString().slice(0, 23);
  if (off === 0) return `${local}Z`;
  const sign = off > 0 ? "+" : "-";
  const abs = Math.abs(off);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}
