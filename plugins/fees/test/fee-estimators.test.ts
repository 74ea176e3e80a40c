import { expect } from "chai";
import type { RouteDefinition } from "@tender/core";
import { FeeEstimators } from "../src/index.js";

const call = (r: RouteDefinition, query: unknown) => r.handler({ params: {}, query, body: undefined, req: undefined as never, res: undefined as never });

describe("fee estimators (the fees plugin's extension point)", () => {
  it("turns a rail's amount estimate into barkd's GET /api/v1/fees/<path> route, net never below 0", async () => {
    const routes: RouteDefinition[] = [];
    const fees = new FeeEstimators((r) => routes.push(r));
    fees.addAmountEstimate({ path: "board", operationId: "board_fee", summary: "Estimate board fee",
      estimate: async (amountSat) => ({ grossSat: amountSat, feeSat: 400n, netSat: amountSat - 400n, vtxosSpent: [] }) });
    expect(routes.map((r) => [r.method, r.path, r.operationId, r.tag, r.requiresWallet])).to.deep.equal([["get", "/api/v1/fees/board", "board_fee", "fees", true]]);
    expect(routes[0]!.query!.parse({ amount_sat: "1000" })).to.deep.equal({ amount_sat: 1000n });
    expect(() => routes[0]!.query!.parse({ amount_sat: "-1" })).to.throw();
    expect(await call(routes[0]!, { amount_sat: 10_000n })).to.deep.equal({ gross_amount_sat: 10_000, fee_sat: 400, net_amount_sat: 9_600, vtxos_spent: [] });
    expect(await call(routes[0]!, { amount_sat: 100n })).to.deep.equal({ gross_amount_sat: 100, fee_sat: 400, net_amount_sat: 0, vtxos_spent: [] });
  });

  it("reads amount_sat as barkd reads a u64 query value: an optional +, leading zeros, up to 2^64 - 1", () => {
    const routes: RouteDefinition[] = [];
    new FeeEstimators((r) => routes.push(r)).addAmountEstimate({ path: "board", operationId: "board_fee", summary: "s",
      estimate: async () => ({ grossSat: 0n, feeSat: 0n, netSat: 0n, vtxosSpent: [] }) });
    const parse = (v: string) => routes[0]!.query!.safeParse({ amount_sat: v });
    for (const [text, sat] of [["+5", 5n], ["007", 7n], ["9007199254740993", 9007199254740993n], ["18446744073709551615", 2n ** 64n - 1n], ["000000000000000000000001", 1n]] as const) {
      expect(parse(text).data, text).to.deep.equal({ amount_sat: sat });
    }
    for (const text of ["18446744073709551616", "-1", "-0", "1.5", "1e3", "", " 1", "0x10", "++1"]) expect(parse(text).success, text).to.equal(false);
  });

  it("refuses a second estimate for the same path, and a path outside /api/v1/fees/", () => {
    const fees = new FeeEstimators(() => undefined);
    const e = { path: "board", operationId: "board_fee", summary: "s", estimate: async () => ({ grossSat: 0n, feeSat: 0n, netSat: 0n, vtxosSpent: [] }) };
    fees.addAmountEstimate(e);
    expect(() => fees.addAmountEstimate({ ...e, operationId: "other" })).to.throw("the fee estimate board is already contributed");
    expect(() => fees.addAmountEstimate({ ...e, path: "../wallet/send" })).to.throw("is not a lower-case path below /api/v1/fees/");
  });
});

describe("fee estimators with a JSON body", () => {
  it("turns a body estimate into barkd's POST /api/v1/fees/<path> route with its body schema and documented errors", async () => {
    const { z } = await import("@tender/core");
    const routes: RouteDefinition[] = [];
    const body = z.object({ address: z.string(), vtxos: z.array(z.string()) });
    new FeeEstimators((r) => routes.push(r)).addBodyEstimate({
      path: "offboard", operationId: "offboard_fee", summary: "Estimate offboard fee", body, response: z.object({ n: z.number() }),
      errors: { 400: { description: "bad request" }, 404: { description: "unknown VTXO" } },
      estimate: async (b) => ({ n: b.vtxos.length }),
    });
    const r = routes[0]!;
    expect([r.method, r.path, r.operationId, r.requiresWallet]).to.deep.equal(["post", "/api/v1/fees/offboard", "offboard_fee", true]);
    expect(Object.keys(r.responses)).to.deep.equal(["200", "400", "404", "500"]);
    expect(r.body!.safeParse({ address: "a" }).success).to.equal(false);
    expect(await r.handler({ params: {}, query: {}, body: { address: "a", vtxos: ["x", "y"] }, req: undefined as never, res: undefined as never })).to.deep.equal({ n: 2 });
  });
});
