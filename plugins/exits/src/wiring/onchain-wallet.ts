/**
 * {@link ExitWallet} over the loaded wallet's on-chain wallet: CPFP children are funded by its
 * `fundCpfpChild` (held, coins reserved, until the package is out), fee rates come from its
 * cached estimates (refreshed first), and a claim paying the wallet is held by it before the
 * broadcast so it is listed once out.
 */
import { address as btcAddress, payments } from "bitcoinjs-lib";
import type { WalletService } from "@tender/core";
import { destinationScript, type OnchainWallet } from "@tender/plugin-onchain";
import type { ExitWallet } from "../exit-ports.js";

const kvb = (satPerVb: number): bigint => BigInt(Math.max(0, Math.ceil(satPerVb * 1000 - 1e-6)));
/** An x-only key (of 2G) standing in for an unknown claim destination: only the output's size matters. */
const PLACEHOLDER_KEY = Buffer.from("c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5", "hex");

export function onchainExitWallet(onchain: WalletService<OnchainWallet>): ExitWallet {
  const wallet = () => onchain.get();
  return {
    async sync() {
      await (await wallet()).sync();
    },
    async feeRates() {
      const r = await (await wallet()).refreshFeeRates();
      return { fastSatPerKvb: kvb(r.fastSatPerVb), regularSatPerKvb: kvb(r.regularSatPerVb) };
    },
    async fundChild(req) {
      return (await wallet()).fundCpfpChild({
        anchor: { txid: req.parentTxid, vout: req.anchorVout, valueSat: req.anchorValueSat },
        parentVsize: req.parentVsize, parentFeeSat: 0n, satPerVb: Number(req.satPerKvb) / 1000, version: 3,
        ...(req.replaces !== undefined ? { replaces: req.replaces } : {}), ...(req.minFeeSat !== undefined ? { minFeeSat: req.minFeeSat } : {}),
      });
    },
    async noteBroadcast(txid) {
      await (await wallet()).markBroadcast(txid);
    },
    async release(txid) {
      await (await wallet()).abandon(txid);
    },
    async markReplaced(txid) {
      await (await wallet()).markReplaced(txid);
    },
    async heldChildren() {
      return (await wallet()).graph.all().filter((g) => g.stored.held && g.stored.isCpfp).map((g) => g.stored.txid);
    },
    async confirmedCoins() {
      return (await wallet()).spendableUtxos(true).map((u) => u.valueSat);
    },
    async destinationScript(address) {
      const w = await wallet();
      return destinationScript(address, w.keychain.network, w.keychain.walletNetwork);
    },
    async placeholderScript() {
      const w = await wallet();
      return payments.p2tr({ internalPubkey: PLACEHOLDER_KEY, network: w.keychain.network }).output!;
    },
    async ownsScript(script) {
      return (await wallet()).keychain.indexOfScript(Buffer.from(script).toString("hex")) !== undefined;
    },
    async holdClaim(tx) {
      await (await wallet()).hold(tx);
    },
    async freshScript() {
      const w = await wallet();
      return new Uint8Array(btcAddress.toOutputScript(await w.nextAddress(), w.keychain.network));
    },
    async addressOf(script) {
      try {
        return btcAddress.fromOutputScript(script, (await wallet()).keychain.network);
      } catch {
        return undefined;
      }
    },
  };
}
