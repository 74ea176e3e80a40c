import { expect } from "chai";
import {
  backoffDelayMs,
  ChainSourceProtocolError,
  ChainSourceRejectedError,
  ChainSourceUnavailableError,
  DEFAULT_RETRY_POLICY,
  retryTransient,
  withTimeout,
} from "../../src/chain/index.js";

const down = (): ChainSourceUnavailableError => new ChainSourceUnavailableError("http://x", "connection", "ECONNREFUSED");

describe("chain retry with backoff", () => {
  it("doubles the delay from the initial one up to the cap", () => {
    const policy = { attempts: 6, initialDelayMs: 100, maxDelayMs: 500, factor: 2 };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(policy, n))).to.deep.equal([100, 200, 400, 500, 500]);
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, 1)).to.equal(DEFAULT_RETRY_POLICY.initialDelayMs);
  });

  it("retries an unavailable source with the backoff delays and returns the later success", async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await retryTransient(
      async () => {
        calls++;
        if (calls < 3) throw down();
        return "tip";
      },
      { policy: { attempts: 4, initialDelayMs: 10, maxDelayMs: 1000, factor: 3 }, sleep: async (ms) => void waits.push(ms) },
    );
    expect(result).to.equal("tip");
    expect(calls).to.equal(3);
    expect(waits).to.deep.equal([10, 30]);
  });

  it("gives up after the last attempt and reports how many were made", async () => {
    let calls = 0;
    try {
      await retryTransient(async () => {
        calls++;
        throw down();
      }, { policy: { attempts: 3, initialDelayMs: 1, maxDelayMs: 1, factor: 1 }, sleep: async () => {} });
      expect.fail("should have thrown");
    } catch (err) {
      expect(err).to.be.instanceOf(ChainSourceUnavailableError);
      expect((err as ChainSourceUnavailableError).attempts).to.equal(3);
      expect((err as Error).message).to.match(/http:\/\/x is unavailable \(connection, 3 attempts\): ECONNREFUSED/);
    }
    expect(calls).to.equal(3);
  });

  it("never retries a rejection or a protocol error", async () => {
    for (const error of [new ChainSourceRejectedError("http://x", "min relay fee not met", -26), new ChainSourceProtocolError("http://x", "bad json")]) {
      let calls = 0;
      try {
        await retryTransient(async () => {
          calls++;
          throw error;
        }, { sleep: async () => {} });
        expect.fail("should have thrown");
      } catch (err) {
        expect(err).to.equal(error);
      }
      expect(calls).to.equal(1);
    }
  });

  it("times out a slow operation with an unavailable error and aborts it", async () => {
    let aborted = false;
    const slow = (signal: AbortSignal) =>
      new Promise<string>((resolve) => {
        signal.addEventListener("abort", () => (aborted = true));
        setTimeout(() => resolve("late"), 1_000);
      });
    const err = await withTimeout("http://slow", 30, slow).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(ChainSourceUnavailableError).and.include({ kind: "timeout" });
    expect(aborted).to.equal(true);
    expect(await withTimeout("http://fast", 1_000, async () => "ok")).to.equal("ok");
  });
});
