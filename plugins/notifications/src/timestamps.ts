/** Microseconds since the Unix epoch (exact in a double until the year 2255). */
export type Micros = number;

/** The current time in microseconds, strictly increasing across calls in this process. */
export function monotonicMicros(): () => Micros {
  let last = 0;
  return () => {
    const now = Math.floor(performance.timeOrigin * 1000 + performance.now() * 1000);
    last = now > last ? now : last + 1;
    return last;
  };
}

/** RFC 3339 in UTC with 6 fractional digits, e.g. `2026-11-25T23:10:41.123456Z`. */
export function formatRfc3339Utc(us: Micros): string {
  const ms = Math.floor(us / 1000);
  const base = new Date(ms).toISOString().slice(0, 19);
  const frac = String(us % 1_000_000).padStart(6, "0");
  return `${base}.${frac}Z`;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 date-time with any offset to microseconds; `undefined` when invalid. */
export function parseRfc3339(text: string): Micros | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, off] = m;
  // a real calendar date (no 30 February, no month 0: Date.UTC would roll those over), a real time
  // of day (second 60 is a leap second), and an offset within a day
  const day = new Date(Date.UTC(+y!, +mo! - 1, +d!));
  if (+mo! < 1 || +mo! > 12 || day.getUTCMonth() !== +mo! - 1 || day.getUTCDate() !== +d!) return undefined;
  if (+h! > 23 || +mi! > 59 || +s! > 60) return undefined;
  const baseMs = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!);
  let offsetMin = 0;
  if (off && off.toUpperCase() !== "Z") {
    if (+off.slice(1, 3) > 23 || +off.slice(4, 6) > 59) return undefined;
    const sign = off.startsWith("-") ? -1 : 1;
    offsetMin = sign * (+off.slice(1, 3) * 60 + +off.slice(4, 6));
  }
  const micros = frac ? Math.floor(Number((frac + "000000").slice(0, 6))) : 0;
  return (baseMs - offsetMin * 60_000) * 1000 + micros;
}
