import { definePlugin } from "@tender/core";
import { FeeEstimators, FeeEstimatorsService } from "./fee-estimators.js";

/**
 * The fees plugin: owns barkd's `/api/v1/fees/*` routes. It provides {@link FeeEstimatorsService},
 * to which each rail contributes the estimate of its operation while it registers; a rail that is
 * not loaded contributes nothing, and its estimate route does not exist.
 */
export const feesPlugin = definePlugin({
  name: "fees",
  version: "0.1.0",
  provides: [FeeEstimatorsService],
  register(ctx) {
    ctx.provide(FeeEstimatorsService, new FeeEstimators((route) => ctx.route(route)));
  },
});

export default feesPlugin;
