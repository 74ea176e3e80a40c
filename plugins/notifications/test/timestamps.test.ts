import { expect } from "chai";
import { formatRfc3339Utc, parseRfc3339 } from "../src/timestamps.js";

describe("long-poll `since` timestamps (RFC 3339)", () => {
  it("parses any offset to microseconds since the epoch", () => {
    expect(parseRfc3339("2026-11-25T23:10:41.123456Z")).to.equal(Date.UTC(2026, 10, 25, 23, 10, 41) * 1000 + 123456);
    expect(parseRfc3339("2026-11-26T01:10:41+02:00")).to.equal(Date.UTC(2026, 10, 25, 23, 10, 41) * 1000);
    expect(parseRfc3339("2024-02-29T00:00:00Z")).to.equal(Date.UTC(2024, 1, 29) * 1000);
    expect(formatRfc3339Utc(parseRfc3339("2026-11-25T23:10:41.000001Z")!)).to.equal("2026-11-25T23:10:41.000001Z");
  });

  it("refuses impossible dates, times and offsets instead of rolling them over", () => {
    for (const bad of [
      "2026-02-30T00:00:00Z", "2026-00-10T00:00:00Z", "2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z", "2025-02-29T00:00:00Z",
      "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:61Z", "2026-01-01T00:00:00+24:00",
      "2026-01-01T00:00:00+01:60", "2026-1-01T00:00:00Z", "yesterday",
    ]) {
      expect(parseRfc3339(bad), bad).to.equal(undefined);
    }
  });
});
