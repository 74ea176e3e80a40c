import { satAmount, z, type RouteDefinition } from "@tender/core";
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
const MessageError = z.object({ message: z.string() });

const failure = { 500: { description: "Board refused or failed", schema: MessageError } };

/** barkd's `/api/v1/boards` routes (the board fee estimate is contributed to the fees plugin). */
export function boardRoutes(boards: () => BoardService): RouteDefinition[] {
  return [
    {
      method: "post", path: "/api/v1/boards/board-amount", scope: "send", operationId: "board_amount", tag: "boards", requiresWallet: true, body: BoardRequest,
      summary: "Board a specific amount",
      responses: { 200: { description: "Returns the board result", schema: PendingBoardInfoSchema }, ...failure },
      handler: async ({ body }) => boards().board(BigInt(body.amount_sat)),
    },
    {
      method: "post", path: "/api/v1/boards/board-all", scope: "send", operationId: "board_all", tag: "boards", requiresWallet: true,
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
  ];
}
