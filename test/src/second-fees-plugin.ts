import { definePlugin } from "@tender/core";
import { FeeEstimators, FeeEstimatorsService } from "@tender/plugin-fees";

/**
 * A plugin that provides the fees extension point a second time: loaded next to the fees plugin,
 * the daemon must refuse to start and name both providers.
 */
export default definePlugin({
  name: "second-fees",
  version: "0.1.0",
  provides: [FeeEstimatorsService],
  register(ctx) {
    ctx.provide(FeeEstimatorsService, new FeeEstimators((route) => ctx.route(route)));
  },
});
