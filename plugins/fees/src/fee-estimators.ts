import { defineService, type RouteDefinition, type RouteResponse, type z } from "@tender/core";
import { AmountQuery, FeeEstimateResponse, MessageError } from "./schemas.js";

/** An amount-based estimate in sats (the response's fields before JSON). */
export interface FeeEstimate {
  readonly grossSat: bigint;
  readonly feeSat: bigint;
  /** Never below 0: an amount smaller than the fee nets 0. */
  readonly netSat: bigint;
  /** VTXO ids the operation would spend (empty where none are spent). */
  readonly vtxosSpent: readonly string[];
}

/** What every estimate route shares. */
interface EstimatorBase {
  /** Path below `/api/v1/fees/`, e.g. `board` or `lightning/pay`. */
  readonly path: string;
  /** barkd's operationId, e.g. `board_fee`. */
  readonly operationId: string;
  readonly summary: string;
  /** Error answers besides the 500 (e.g. 400 for a bad address, 404 for an unknown VTXO), for the OpenAPI document. */
  readonly errors?: Record<number, RouteResponse>;
}

/** barkd's usual estimate: `GET /api/v1/fees/<path>?amount_sat=N` → `FeeEstimateResponse`. */
export interface AmountFeeEstimator extends EstimatorBase {
  estimate(amountSat: bigint): Promise<FeeEstimate>;
}

/** An estimate with its own query and response shapes (on-chain fee rates, offboard-all). */
export interface CustomFeeEstimator<Q> extends EstimatorBase {
  readonly query?: z.ZodType<Q>;
  readonly response: z.ZodType;
  estimate(query: Q): Promise<unknown>;
}

/** An estimate asked for with a JSON body (`POST /api/v1/fees/<path>`, barkd's offboard estimate). */
export interface BodyFeeEstimator<B> extends EstimatorBase {
  readonly body: z.ZodType<B>;
  readonly response: z.ZodType;
  estimate(body: B): Promise<unknown>;
}

/**
 * The fees extension point: the fees plugin owns `/api/v1/fees/*`, and each rail adds the estimate
 * of its operation here while it registers (boards the board fee, the on-chain wallet its fee
 * rates; later offboard, send-onchain and Lightning). Every estimate needs a loaded wallet; a
 * failure answers 500 with its message, as barkd does.
 */
export class FeeEstimators {
  private readonly paths = new Set<string>();

  constructor(private readonly addRoute: (route: RouteDefinition) => void) {}

  /** Adds an amount-based estimate. */
  addAmountEstimate(e: AmountFeeEstimator): void {
    this.addRoute({
      ...this.base(e), query: AmountQuery,
      responses: { 200: { description: "Returns the fee estimate", schema: FeeEstimateResponse }, ...e.errors, 500: this.failure },
      handler: async ({ query }: { query: { amount_sat: bigint } }) => {
        const r = await e.estimate(query.amount_sat);
        return {
          gross_amount_sat: Number(r.grossSat), fee_sat: Number(r.feeSat),
          net_amount_sat: Number(r.netSat > 0n ? r.netSat : 0n), vtxos_spent: [...r.vtxosSpent],
        };
      },
    });
  }

  /** Adds an estimate with its own query and response shapes. */
  addCustomEstimate<Q>(e: CustomFeeEstimator<Q>): void {
    this.addRoute({
      ...this.base(e), ...(e.query ? { query: e.query } : {}),
      responses: { 200: { description: "Returns the fee estimate", schema: e.response }, ...e.errors, 500: this.failure },
      handler: ({ query }: { query: Q }) => e.estimate(query),
    });
  }

  /** Adds an estimate that takes a JSON body (POST). */
  addBodyEstimate<B>(e: BodyFeeEstimator<B>): void {
    this.addRoute({
      // a POST estimates a payment to come: a read-only key may not call it
      ...this.base(e), method: "post", scope: "send", body: e.body,
      responses: { 200: { description: "Returns the fee estimate", schema: e.response }, ...e.errors, 500: this.failure },
      handler: ({ body }: { body: B }) => e.estimate(body),
    });
  }

  private readonly failure = { description: "The estimate failed", schema: MessageError };

  private base(e: EstimatorBase) {
    if (!/^[a-z0-9-]+(\/[a-z0-9-]+)*$/.test(e.path)) throw new Error(`fee estimate path ${e.path} is not a lower-case path below /api/v1/fees/`);
    if (this.paths.has(e.path)) throw new Error(`the fee estimate ${e.path} is already contributed`);
    this.paths.add(e.path);
    return { method: "get" as const, path: `/api/v1/fees/${e.path}`, operationId: e.operationId, summary: e.summary, tag: "fees", requiresWallet: true };
  }
}

/** The fees extension point, provided by the fees plugin. */
export const FeeEstimatorsService = defineService<FeeEstimators>("fees.estimators");
