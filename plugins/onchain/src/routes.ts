import { spendingCap, type RouteDefinition } from "@tender/core";
import type { CustomFeeEstimator } from "@tender/plugin-fees";
import { parseDestinationEntry } from "./amount.js";
import { wholeSatPerVb } from "./fee-rates.js";
import type { OnchainWallet } from "./onchain-wallet.js";
import {
  Address, MessageError, OnchainBalance, OnchainDrainRequest, OnchainSendManyRequest, OnchainSendRequest,
  OnchainFeeRatesResponse, Send, UtxoInfo, WalletTxInfo,
} from "./schemas.js";

type WalletAccess = () => Promise<OnchainWallet>;

const errors = {
  400: { description: "Invalid destination, amount, or insufficient funds", schema: MessageError },
  500: { description: "Chain source or wallet failure", schema: MessageError },
};
const tag = "onchain";

/** barkd's `/api/v1/onchain` routes: paths, operationIds and JSON shapes as barkd serves them. */
export function onchainRoutes(wallet: WalletAccess): RouteDefinition[] {
  return [
    {
      method: "get", path: "/api/v1/onchain/balance", operationId: "onchain_balance", tag, requiresWallet: true,
      responses: { 200: { description: "The on-chain balance", schema: OnchainBalance } },
      handler: async () => {
        const b = (await wallet()).balance();
        return {
          total_sat: Number(b.confirmed + b.immature + b.trustedPending + b.untrustedPending),
          trusted_spendable_sat: Number(b.confirmed + b.trustedPending),
          immature_sat: Number(b.immature), trusted_pending_sat: Number(b.trustedPending),
          untrusted_pending_sat: Number(b.untrustedPending), confirmed_sat: Number(b.confirmed),
        };
      },
    },
    {
      method: "post", path: "/api/v1/onchain/addresses/next", scope: "receive", operationId: "onchain_address", tag, requiresWallet: true,
      responses: { 200: { description: "A new address", schema: Address }, 500: errors[500] },
      handler: async () => ({ address: await (await wallet()).nextAddress() }),
    },
    {
      method: "post", path: "/api/v1/onchain/send", scope: "send", operationId: "onchain_send", tag, requiresWallet: true, body: OnchainSendRequest,
      responses: { 200: { description: "The broadcast transaction", schema: Send }, ...errors },
      handler: async ({ body }) => {
        await spendingCap("onchain", BigInt(body.amount_sat), "the on-chain send");
        return { txid: await (await wallet()).send([{ address: body.destination, amountSat: BigInt(body.amount_sat) }]) };
      },
    },
    {
      method: "post", path: "/api/v1/onchain/send-many", scope: "send", operationId: "onchain_send_many", tag, requiresWallet: true, body: OnchainSendManyRequest,
      responses: { 200: { description: "The broadcast transaction", schema: Send }, ...errors },
      handler: async ({ body }) => {
        const payments = (body.destinations as string[]).map((d) => parseDestinationEntry(d));
        await spendingCap("onchain", payments.reduce((s, p) => s + p.amountSat, 0n), "the on-chain send");
        return { txid: await (await wallet()).send(payments) };
      },
    },
    {
      method: "post", path: "/api/v1/onchain/drain", scope: "send", operationId: "onchain_drain", tag, requiresWallet: true, body: OnchainDrainRequest,
      responses: { 200: { description: "The broadcast transaction", schema: Send }, ...errors },
      handler: async ({ body }) => {
        // the amount is the whole balance, known only once the transaction is built: a capped key cannot drain
        await spendingCap("onchain", undefined, "a drain");
        return { txid: await (await wallet()).drain(body.destination) };
      },
    },
    {
      method: "get", path: "/api/v1/onchain/utxos", operationId: "onchain_utxos", tag, requiresWallet: true,
      responses: { 200: { description: "Unspent outputs", schema: UtxoInfo.array() } },
      handler: async () => (await wallet()).utxos().map((u) => ({
        outpoint: `${u.txid}:${u.vout}`, amount_sat: Number(u.valueSat), confirmation_height: u.confirmationHeight,
      })),
    },
    {
      method: "get", path: "/api/v1/onchain/transactions", operationId: "onchain_transactions", tag, requiresWallet: true,
      responses: { 200: { description: "Wallet transactions, oldest first", schema: WalletTxInfo.array() }, 500: errors[500] },
      handler: async () => (await wallet()).transactions().map((t) => ({
        txid: t.txid, tx: t.hex, ...(t.feeSat !== null ? { onchain_fee_sat: Number(t.feeSat) } : {}),
        balance_change_sat: Number(t.balanceChangeSat), confirmation: t.block, is_cpfp: t.isCpfp,
      })),
    },
    {
      method: "post", path: "/api/v1/onchain/sync", scope: "receive", operationId: "onchain_sync", tag, requiresWallet: true,
      responses: { 200: { description: "Synced" }, 500: errors[500] },
      handler: async () => {
        await (await wallet()).sync();
        return undefined;
      },
    },
  ];
}

/** `GET /api/v1/fees/onchain` (`onchain_fee_rates`): the wallet's cached fee rates, contributed to the fees plugin. */
export function onchainFeeRatesEstimate(wallet: WalletAccess): CustomFeeEstimator<unknown> {
  return {
    path: "onchain", operationId: "onchain_fee_rates", summary: "Cached on-chain fee rates", response: OnchainFeeRatesResponse,
    estimate: async () => {
      const r = (await wallet()).feeRates();
      return { fast_sat_per_vb: wholeSatPerVb(r.fastSatPerVb), regular_sat_per_vb: wholeSatPerVb(r.regularSatPerVb), slow_sat_per_vb: wholeSatPerVb(r.slowSatPerVb) };
    },
  };
}
