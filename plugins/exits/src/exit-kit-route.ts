/**
 * `GET /api/v1/exits/kit?vtxo_ids=a,b`: the portable exit kit of the chosen VTXOs (see
 * docs/exit-kit.md), a JSON attachment with each VTXO's signed exit transactions and its claim
 * clause with the key's derivation path — enough for `tenderd exit-kit run` to exit without this
 * daemon or the Ark server. Not a barkd operation, so it stays out of the OpenAPI document.
 *
 * A kit is offered for every VTXO whose exit can still happen: spendable, locked (a pending
 * round, or an exit under way) and exited ones. A spent VTXO is refused (its exit chain would
 * be double-spent), as is one only a hash preimage can claim.
 */
import { BadRequestError, InternalServerError, NotFoundError, z, type RouteDefinition, type WalletService } from "@tender/core";
import { ExitKitError, ExitPlanError, buildExitKit, formatOutPoint, policyUserPubkey, type ExitKitInput, type Network } from "@tender/ark-protocol";
import type { ArkKeys } from "@tender/plugin-ark";
import type { ExitVtxos } from "./exit-ports.js";
import { parseVtxoId } from "./exit-routes.js";

/** What the kit route reads: the wallet's VTXOs, its VTXO keys and its network. */
export interface ExitKitSources {
  vtxos: ExitVtxos;
  keys: WalletService<ArkKeys>;
  network: () => Promise<string>;
}

/** The kit's attachment name: `tender-exit-kit-<first VTXO txid prefix>.json`. */
export const kitFileName = (firstId: string): string => `tender-exit-kit-${firstId.slice(0, 12)}.json`;

export function exitKitRoute(src: ExitKitSources): RouteDefinition {
  return {
    // admin, not read: whoever holds the kit can put the wallet's VTXOs on chain (it spends nothing, but the exit costs fees)
    method: "get", path: "/api/v1/exits/kit", scope: "admin", operationId: "exit_kit", tag: "exits", requiresWallet: true, undocumented: true,
    summary: "Portable exit kit of VTXOs",
    query: z.object({ vtxo_ids: z.string().optional() }),
    responses: {
      200: { description: "The exit kit (docs/exit-kit.md)", schema: z.record(z.string(), z.unknown()) },
      400: { description: "Bad request", schema: z.object({ message: z.string() }) },
      404: { description: "Not found", schema: z.object({ resources: z.array(z.string()), message: z.string() }) },
    },
    handler: async ({ query, res }) => {
      const raw = (query.vtxo_ids ?? "") as string;
      const ids: string[] = [...new Set(raw.split(",").map((s: string) => s.trim()).filter((s: string) => s !== "").map(parseVtxoId))];
      if (ids.length === 0) throw new BadRequestError("No VTXO IDs provided");
      const keys = await src.keys.get();
      const inputs: ExitKitInput[] = [];
      for (const id of ids) {
        const view = await src.vtxos.get(id);
        if (!view) throw new NotFoundError(`not found [resources=${id}]: VTXO not found`, [id]);
        if (view.state === "spent") throw new BadRequestError(`Unspendable VTXO provided: ${id}`);
        const user = policyUserPubkey(view.vtxo.policy);
        const key = user ? await keys.keyByPubkey(user) : undefined;
        if (!key) throw new BadRequestError(`Cannot make an exit kit for VTXO ${id}: its key is not one of the wallet's VTXO keys`);
        inputs.push({ vtxo: view.vtxo, keyIndex: key.index });
      }
      let kit;
      try {
        kit = buildExitKit((await src.network()) as Network, inputs);
      } catch (e) {
        if (e instanceof ExitKitError || e instanceof ExitPlanError) throw new BadRequestError(`Cannot make an exit kit: ${e.message}`);
        throw new InternalServerError(`Failed to make the exit kit: ${e instanceof Error ? e.message : String(e)}`);
      }
      res.setHeader("Content-Disposition", `attachment; filename="${kitFileName(formatOutPoint(inputs[0]!.vtxo.point))}"`);
      return kit;
    },
  };
}
