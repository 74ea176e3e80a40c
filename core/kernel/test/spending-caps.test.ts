import { expect } from "chai";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ApiAccess, AuthToken, BadRequestError, EventBus, ForbiddenError, Kernel, SpendingCapService, definePlugin, silentLogger, spendingCap, z, type ApiKey,
  type DatabaseLocation,
} from "../src/index.js";
import type { AccessContext } from "../src/access/access-context.js";
import { newApiKeySecret } from "../src/access/api-key-secret.js";
import { onBothDatabases, startKernelOverHttp, stopKernelOverHttp, type SuiteLocation } from "./kernel-suite.js";

const HOUR = 3600_000;

/** Payment routes that ask the cap, then succeed, are refused (4xx) or fail (500). */
const payPlugin = (paid: bigint[]) => definePlugin({
  name: "caps-test",
  version: "1.0.0",
  register(ctx) {
    const body = z.object({ amount_sat: z.number(), outcome: z.enum(["ok", "refused", "failed"]) });
    ctx.route({
      method: "post", path: "/api/v1/test-pay", operationId: "test_pay", scope: "send", body,
      responses: { 200: { description: "paid" } },
      handler: async ({ body: b }) => {
        await spendingCap("ark", BigInt(b.amount_sat));
        if (b.outcome === "refused") throw new BadRequestError("insufficient money");
        if (b.outcome === "failed") throw new Error("the server went away mid-payment");
        paid.push(BigInt(b.amount_sat));
        return { ok: true };
      },
    });
  },
});

function capsSuite(name: string, location: SuiteLocation) {
  describe(`API key spending caps (kernel, ${name})`, function () {
    const dir = mkdtempSync(join(tmpdir(), "tender-caps-"));
    let loc: DatabaseLocation;
    const owner = AuthToken.generate();
    const paid: bigint[] = [];
    let kernel: Kernel;
    let base: string;
    let clock = Date.UTC(2026, 0, 1);

    const key = (id: string, caps: ApiKey["caps"]): ApiKey => ({
      id, name: undefined, scopes: ["send"], caps, createdAt: clock, expiresAt: undefined, revokedAt: undefined, secretHash: "00".repeat(32),
    });
    const ctxOf = (k: ApiKey, service: SpendingCapService): AccessContext => ({ principal: { kind: "key", key: k }, reservations: [], caps: service });
    const refusal = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (e) {
        expect(e).to.be.instanceOf(ForbiddenError);
        return (e as ForbiddenError).message;
      }
      throw new Error("the cap let the payment through");
    };

    before(async function () {
      ({ kernel, loc, base } = await startKernelOverHttp(this, location, dir, [payPlugin(paid)], owner));
    });
    after(() => stopKernelOverHttp({ kernel, loc }, dir));

    it("refuses a payment over the per-payment cap and records nothing", async () => {
      const caps = new SpendingCapService(kernel.database, () => clock);
      const k = key("a1", { ark: { perPaymentSat: 1000n } });
      expect(await refusal(caps.reserve(ctxOf(k, caps), "ark", 1001n, "the payment"))).to.equal(
        "the payment of 1001 sat is over this API key's ark cap of 1000 sat per payment; nothing was sent");
      await caps.reserve(ctxOf(k, caps), "ark", 1000n, "the payment");
      expect((await caps.spentLastDay("a1")).ark).to.equal(1000n);
    });

    it("sums the last 24 hours against the daily cap: older payments fall out of the window; a new service (a restart) sees the same", async () => {
      const caps = new SpendingCapService(kernel.database, () => clock);
      const k = key("a2", { ark: { perDaySat: 30_000n } });
      await caps.reserve(ctxOf(k, caps), "ark", 20_000n, "the payment");
      clock += HOUR;
      await caps.reserve(ctxOf(k, caps), "ark", 10_000n, "the payment");
      expect(await refusal(caps.reserve(ctxOf(k, caps), "ark", 1n, "the payment"))).to.match(/over its ark cap of 30000 sat per 24 hours \(30000 sat spent\)/);
      const restarted = new SpendingCapService(kernel.database, () => clock);
      expect(await refusal(restarted.reserve(ctxOf(k, restarted), "ark", 1n, "the payment"))).to.match(/30000 sat spent/);
      clock += 23 * HOUR + 1; // the first payment is now more than 24 hours old
      expect((await restarted.spentLastDay("a2")).ark).to.equal(10_000n);
      await restarted.reserve(ctxOf(k, restarted), "ark", 20_000n, "the payment");
      expect(await refusal(restarted.reserve(ctxOf(k, restarted), "ark", 1n, "the payment"))).to.match(/30000 sat spent/);
    });

    it("lets concurrent payments of one key through only as far as the daily cap holds", async () => {
      const caps = new SpendingCapService(kernel.database, () => clock);
      const k = key("a3", { ark: { perDaySat: 20_000n } });
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => caps.reserve(ctxOf(k, caps), "ark", 5_000n, "the payment")));
      expect(results.filter((r) => r.status === "fulfilled")).to.have.length(4);
      for (const r of results.filter((x) => x.status === "rejected")) expect((r as PromiseRejectedResult).reason).to.be.instanceOf(ForbiddenError);
      expect((await caps.spentLastDay("a3")).ark).to.equal(20_000n);
    });

    it("caps rails apart; refuses an unknown amount or an uncapped kind of payment to a capped key; never caps the owner", async () => {
      const caps = new SpendingCapService(kernel.database, () => clock);
      const k = key("a4", { onchain: { perPaymentSat: 10n } });
      await caps.reserve(ctxOf(k, caps), "ark", 1_000_000n, "the payment");
      expect((await caps.spentLastDay("a4")).ark, "no cap on ark: nothing counted").to.equal(0n);
      expect(await refusal(caps.reserve(ctxOf(k, caps), "onchain", undefined, "a drain"))).to.match(/amount of a drain is not known before paying/);
      expect(await refusal(caps.reserve(ctxOf(k, caps), "other", 1n, "the payment"))).to.match(/goes over no rail a cap is set for/);
      await caps.reserve(ctxOf(key("a5", {}), caps), "other", 1n, "the payment");
      await caps.reserve({ principal: { kind: "owner" }, reservations: [], caps }, "onchain", 10n ** 12n, "the payment");
      expect((await caps.spentLastDay("a5")).onchain).to.equal(0n);
    });

    it("the upkeep deletes audit entries past the retention (none with retention 0) and spends past the caps' window, keeping what a cap still counts", async () => {
      const access = new ApiAccess(kernel.database, silentLogger, new EventBus(silentLogger), () => clock);
      const caps = new SpendingCapService(kernel.database, () => clock);
      const k = key("a6", { ark: { perDaySat: 50_000n } });
      const t0 = clock;
      await access.store.audit({ keyId: "a6", method: "GET", path: "/api/v1/wallet/balance", status: 200, at: t0 });
      await caps.reserve(ctxOf(k, caps), "ark", 10_000n, "the payment");
      clock += 49 * HOUR;
      await access.store.audit({ keyId: "a6", method: "POST", path: "/api/v1/wallet/send", status: 200, at: clock });
      await caps.reserve(ctxOf(k, caps), "ark", 20_000n, "the payment");
      const audited = async () => (await access.store.auditPage(100, undefined, "a6")).map((e) => e.at);
      // retention 0 keeps the audit log; the 49-hour-old spend (and the earlier cases' ones) are past twice the daily window
      const first = await access.upkeep(0);
      expect(first.audit).to.equal(0);
      expect(first.spends).to.be.at.least(1);
      expect(await audited()).to.deep.equal([clock, t0]);
      expect((await caps.spentLastDay("a6")).ark).to.equal(20_000n);
      // a 48-hour retention drops the first entry only
      expect(await access.upkeep(48 * HOUR)).to.deep.equal({ audit: 1, spends: 0 });
      expect(await audited()).to.deep.equal([clock]);
      expect(await refusal(caps.reserve(ctxOf(k, caps), "ark", 30_001n, "the payment"))).to.match(/20000 sat spent/);
    });

    it("over HTTP: a payment refused with a 4xx gives its amount back, one that failed otherwise stays counted", async () => {
      // keys are created over HTTP with a wallet loaded; this kernel has none, so the key goes straight to the store
      const made = newApiKeySecret();
      await kernel.access.store.insert({ ...key(made.id, { ark: { perDaySat: 10_000n } }), secretHash: made.secretHash });
      const { id, bearer: secret } = made;
      const pay = (amount: number, outcome: string) => fetch(`${base}/api/v1/test-pay`, {
        method: "POST", headers: { Authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify({ amount_sat: amount, outcome }),
      });
      const spent = async () => (await kernel.access.caps.spentLastDay(id)).ark;
      expect((await pay(6_000, "refused")).status).to.equal(400);
      expect(await spent()).to.equal(0n);
      expect((await pay(6_000, "failed")).status).to.equal(500);
      expect(await spent()).to.equal(6_000n);
      const over = await pay(6_000, "ok");
      expect(over.status).to.equal(403);
      expect(((await over.json()) as { message: string }).message).to.match(/6000 sat spent/);
      expect((await pay(4_000, "ok")).status).to.equal(200);
      expect(paid).to.deep.equal([4_000n]);
    });
  });
}

onBothDatabases("caps", capsSuite);
