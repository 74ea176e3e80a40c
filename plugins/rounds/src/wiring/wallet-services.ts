/** The chain source, the wallet settings and the movement store as the rounds rail's ports. */
import { feeRateForTarget, type ChainSource, type WalletService } from "@tender/core";
import type { MovementStore } from "@tender/plugin-history";
import type { WalletSettings } from "@tender/plugin-wallet";
import type { RoundChain, RoundMovements, RoundSettings } from "../round-ports.js";

/** Subsystem of refresh movements in the history, as barkd names it. */
export const ROUND_SUBSYSTEM = { name: "bark.round", kind: "refresh" } as const;

/** {@link RoundChain} over the loaded wallet's chain source; the fast rate falls back to `fallback_fee_rate`. */
export function sourceRoundChain(chain: WalletService<ChainSource>, settings: WalletService<WalletSettings>): RoundChain {
  return {
    tipHeight: async () => (await (await chain.get()).getTip()).height,
    txStatus: async (txid) => (await chain.get()).getTxStatus(txid),
    broadcast: async (hex) => {
      await (await chain.get()).broadcast(hex);
    },
    async fastFeeRateSatPerKwu() {
      const fallback = BigInt((await settings.get()).fallback_fee_rate);
      try {
        const satPerVb = feeRateForTarget(await (await chain.get()).getFeeEstimates([1]), 1);
        return satPerVb === null ? fallback : BigInt(Math.ceil(satPerVb * 250));
      } catch {
        return fallback;
      }
    },
  };
}

/** {@link RoundSettings} over the wallet's settings. */
export function walletRoundSettings(settings: WalletService<WalletSettings>): RoundSettings {
  return {
    requiredConfirmations: async () => (await settings.get()).round_tx_required_confirmations,
    refreshExpiryThreshold: async () => (await settings.get()).vtxo_refresh_expiry_threshold,
  };
}

/**
 * {@link RoundMovements} over the history: a refresh moves nothing in or out, so its intended
 * balance change is 0 and its effective change minus the fee, as barkd records it.
 */
export function historyRoundMovements(store: MovementStore): RoundMovements {
  return {
    async create(m) {
      const created = await store.create({
        subsystem: ROUND_SUBSYSTEM, intendedBalanceSat: 0, effectiveBalanceSat: -Number(m.feeSat), offchainFeeSat: Number(m.feeSat), inputVtxos: [...m.inputs],
      });
      return created.id;
    },
    async updateInputs(id, m) {
      await store.update(id, { inputVtxos: [...m.inputs], effectiveBalanceSat: -Number(m.feeSat), offchainFeeSat: Number(m.feeSat) });
    },
    async noteFunding(id, fundingTxid) {
      await store.update(id, { metadata: { funding_txid: fundingTxid } });
    },
    async finish(id, status, m) {
      await store.update(id, { status, ...(m ? { outputVtxos: [...m.outputs], metadata: { funding_txid: m.fundingTxid } } : {}) });
    },
  };
}
