import { satAmount, z, type RouteDefinition } from "@tender/core";
import { splitBoard } from "./board-amounts.js";
import type { BoardServer } from "./board-ports.js";
import type { BoardService } from "./board-service.js";

const sat = z.number().int().min(0);
/** barkd's `BoardRequest`. */
export const BoardRequest = z.object({ amount_sat: satAmount() });
/** barkd's `PendingBoardInfo`. */
export const PendingBoardInfoSchema = z.object({
  funding_tx: z.object({ txid: z.string(), tx: z.string() }),
  vtxos: z.array(z.string()),
  amount_sat: sat,
  movement_id: z.number().int().min(0),
});
/** barkd's `FeeEstimateResponse`. */
export const FeeEstimateResponse = z.object({ gross_amount_sat: sat, fee_sat: sat, net_amount_sat: sat, vtxos_spent: z.array(z.string()) });
const MessageError = z.object({ message: z.string() });
/** `amount_sat` query parameter (u64). */
const FeeEstimateQuery = z.object({ amount_sat: z.string().regex(/^\d{1,16}$/, "expected an unsigned integer").transform((v) => BigInt(v)) });

const failure = { 500: { description: "Board refused or failed", schema: MessageError } };

/** barkd's `/api/v1/boards` routes and `GET /api/v1/fees/board` (rest-api §3.3, §3.5). */
export function boardRoutes(boards: () => BoardService, server: () => BoardServer): RouteDefinition[] {
  return [
    {
      method: "post", path: "/api/v1/boards/board-amount", operationId: "board_amount", tag: "boards", requiresWallet: true, body: BoardRequest,
      summary: "Board a specific amount",
      responses: { 200: { description: "Returns the board result", schema: PendingBoardInfoSchema }, ...failure },
      handler: async ({ body }) => boards().board(BigInt(body.amount_sat)),
    },
    {
      method: "post", path: "/api/v1/boards/board-all", operationId: "board_all", tag: "boards", requiresWallet: true,
      summary: "Board all on-chain bitcoin",
      responses: { 200: { description: "Returns the board result", schema: PendingBoardInfoSchema }, ...failure },
      handler: async () => boards().board("all"),
    },
    {
      method: "get", path: "/api/v1/boards/pending", operationId: "get_pending_boards", tag: "boards", requiresWallet: true,
      summary: "List pending boards",
      responses: { 200: { description: "Returns all pending boards", schema: PendingBoardInfoSchema.array() }, ...failure },
      handler: async () => boards().pending(),
    },
    {
      method: "get", path: "/api/v1/fees/board", operationId: "board_fee", tag: "fees", requiresWallet: true, query: FeeEstimateQuery,
      summary: "Estimate board fee",
      responses: { 200: { description: "Returns the fee estimate", schema: FeeEstimateResponse }, ...failure },
      handler: async ({ query }) => {
        const split = splitBoard(await server().info(), query.amount_sat);
        return {
          gross_amount_sat: Number(split.amountSat), fee_sat: Number(split.feeSat),
          net_amount_sat: Number(split.vtxoSat > 0n ? split.vtxoSat : 0n), vtxos_spent: [],
        };
      },
    },
  ];
}
