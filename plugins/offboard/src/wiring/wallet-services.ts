/** The chain source, the wallet settings and the movement store as the offboard action's ports. */
import type { ChainSource, WalletService } from "@tender/core";
import type { MovementStore } from "@tender/plugin-history";
import type { WalletSettings } from "@tender/plugin-wallet";
import type { OffboardChain, OffboardMovements, OffboardSettings } from "../offboard-ports.js";

/** {@link OffboardChain} over the loaded wallet's chain source. */
export function sourceOffboardChain(chain: WalletService<ChainSource>): OffboardChain {
  return {
    tipHeight: async () => (await (await chain.get()).getTip()).height,
    txStatus: async (txid) => (await chain.get()).getTxStatus(txid),
    txHex: async (txid) => (await (await chain.get()).getTx(txid))?.hex ?? null,
    broadcast: async (hex) => {
      await (await chain.get()).broadcast(hex);
    },
  };
}

/** {@link OffboardSettings} over the wallet's settings. */
export function walletOffboardSettings(settings: WalletService<WalletSettings>): OffboardSettings {
  return {
    requiredConfirmations: async () => (await settings.get()).offboard_required_confirmations,
    lostTxGraceSecs: async () => (await settings.get()).offboard_lost_tx_grace_period_secs,
    changeSplitFactor: async () => (await settings.get()).change_vtxo_split_factor,
  };
}

const sameIds = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** {@link OffboardMovements} over the history's movement store (`bark.offboard`). */
export function historyOffboardMovements(store: MovementStore): OffboardMovements {
  return {
    async findPending(kind, inputIds) {
      return (await store.list()).find((m) =>
        m.subsystem.name === "bark.offboard" && m.subsystem.kind === kind && m.status === "pending" && sameIds(m.input_vtxos, inputIds))?.id;
    },
    create: async (m) => (await store.create(m)).id,
    async update(id, c) {
      await store.update(id, c);
    },
  };
}
