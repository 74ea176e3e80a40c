/** @tender/plugin-fees — barkd's `/api/v1/fees/*`, filled by the rails' estimators. */
export { feesPlugin as default, feesPlugin } from "./plugin.js";
export { FeeEstimators, FeeEstimatorsService, type FeeEstimate, type AmountFeeEstimator, type CustomFeeEstimator, type BodyFeeEstimator } from "./fee-estimators.js";
export { FeeEstimateResponse, AmountQuery } from "./schemas.js";
