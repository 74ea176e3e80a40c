/**
 * Whether round inputs may be spent: they must exist, have the `pubkey` policy, be `spendable`,
 * not be banned (ban active while tip < banned-until height) and not have exited (the VTXO's own
 * transaction is known to the chain, confirmed or in the mempool). Every offender is reported at
 * once, with its id in `identifiers`.
 */
import { decodeVtxo, type Vtxo } from "@tender/ark-protocol";
import { NotFoundError, UnusableInputsError } from "../server-errors.js";
import type { ServerContext } from "../server-context.js";

/** Why an input cannot be spent now; null when it can. */
export async function unusableReason(ctx: ServerContext, row: { id: string; state: string; policyType: string; bannedUntilHeight: number | null }): Promise<string | null> {
  if (row.policyType !== "pubkey") return `vtxo ${row.id} has policy ${row.policyType}`;
  if (row.state !== "spendable") return `vtxo ${row.id} is not spendable (state: ${row.state})`;
  if (row.bannedUntilHeight !== null && (await ctx.chain.tipHeight()) < row.bannedUntilHeight) return `vtxo ${row.id} is banned until block ${row.bannedUntilHeight}`;
  if (await ctx.chain.getTxStatus(row.id.split(":")[0]!)) return `vtxo ${row.id} has exited onchain`;
  return null;
}

/**
 * Loads the inputs and checks them. Unknown ids: NOT_FOUND "vtxo does not exist"; unusable
 * ones: "input vtxo(s) not spendable" (interactive) or "input vtxo(s) unusable" (delegated).
 */
export async function spendableRoundInputs(ctx: ServerContext, ids: readonly string[], refusal: "input vtxo(s) not spendable" | "input vtxo(s) unusable"): Promise<Vtxo[]> {
  const rows = await Promise.all(ids.map((id) => ctx.store.getVtxo(id)));
  const missing = ids.filter((_, i) => !rows[i]);
  if (missing.length) throw new NotFoundError("vtxo does not exist", missing);
  const bad: string[] = [];
  for (const row of rows) {
    const reason = await unusableReason(ctx, row!);
    if (reason) {
      ctx.logger.debug(`round input refused: ${reason}`);
      bad.push(row!.id);
    }
  }
  if (bad.length) throw new UnusableInputsError(refusal, `unusable inputs: [${bad.join(",")}]`, bad);
  return rows.map((r) => decodeVtxo(r!.bytes));
}
