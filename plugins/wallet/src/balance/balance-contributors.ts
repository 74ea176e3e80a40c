import { defineService } from "@tender/core";

/** The fields of barkd's `Balance`, each contributed by the rail that knows it. */
export const BALANCE_FIELDS = [
  "spendable_sat", "pending_lightning_send_sat", "claimable_lightning_receive_sat", "pending_in_round_sat", "pending_board_sat", "pending_exit_sat",
] as const;
export type BalanceField = (typeof BALANCE_FIELDS)[number];

/**
 * A contribution: sats, or `undefined` when the contributor cannot tell right now. barkd leaves
 * `pending_exit_sat` out of the response in that case; the other fields are required, so for them
 * "unknown" is an error.
 */
export type BalanceContribution = () => Promise<bigint | undefined>;

/** The fields a contribution may leave unknown (they are then omitted from the response). */
const OMITTABLE: ReadonlySet<BalanceField> = new Set(["pending_exit_sat"]);

/**
 * The balance extension point: `GET /api/v1/wallet/balance` is owned by the wallet plugin; each
 * rail contributes the sats of its fields (the Ark rail `spendable_sat`, boards
 * `pending_board_sat`, …). A field nobody contributes is 0; several contributions to one field add up.
 */
export class BalanceContributors {
  private readonly byField = new Map<BalanceField, { plugin: string; read: BalanceContribution }[]>();

  /** `plugin` contributes `read()` sats to `field`. */
  contribute(field: BalanceField, plugin: string, read: BalanceContribution): void {
    if (!BALANCE_FIELDS.includes(field)) throw new Error(`plugin ${plugin} contributes to the unknown balance field ${field}`);
    this.byField.set(field, [...(this.byField.get(field) ?? []), { plugin, read }]);
  }

  /** The plugins contributing to `field`. */
  contributors(field: BalanceField): string[] {
    return (this.byField.get(field) ?? []).map((c) => c.plugin);
  }

  /** Every field's sum, `undefined` for an omittable field some contributor could not tell. */
  async read(): Promise<Record<BalanceField, bigint | undefined>> {
    const sums = await Promise.all(BALANCE_FIELDS.map(async (field) => {
      let sum: bigint | undefined = 0n;
      for (const c of this.byField.get(field) ?? []) {
        const v = await c.read();
        if (v === undefined) {
          if (!OMITTABLE.has(field)) throw new Error(`plugin ${c.plugin} could not tell its ${field}`);
          sum = undefined;
          break;
        }
        sum += v;
      }
      return sum;
    }));
    // keys in barkd's order whatever order the contributions arrived in, so the JSON is stable
    const out = {} as Record<BalanceField, bigint | undefined>;
    BALANCE_FIELDS.forEach((field, i) => { out[field] = sums[i]; });
    return out;
  }
}

/** The balance extension point, provided by the wallet plugin. */
export const BalanceContributorsService = defineService<BalanceContributors>("wallet.balance-contributors");
