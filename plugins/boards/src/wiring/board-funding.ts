/**
 * The board funding tx, built from the on-chain wallet's coins and keys (its exported coin
 * selection and signer) but NOT broadcast: the board action persists it and broadcasts it only
 * after the server co-signed the board exit. Right before the broadcast the wallet holds it
 * (`OnchainWallet.hold`: coins reserved), then learns it was broadcast (`markBroadcast`), or
 * forgets it when the broadcast is refused (`abandon`).
 */
import { Transaction, address as btcAddress } from "bitcoinjs-lib";
import type { WalletService } from "@tender/core";
import { InsufficientFundsError, feeForVsize, selectCoins, signSpend, type OnchainWallet } from "@tender/plugin-onchain";
import { BoardRefusedError } from "../errors.js";
import type { BoardFunding, FundingTx } from "../board-ports.js";

const outpointOf = (u: { txid: string; vout: number }) => `${u.txid}:${u.vout}`;

/** {@link BoardFunding} from the loaded wallet's on-chain wallet (`OnchainWalletService`). */
export function onchainBoardFunding(onchain: WalletService<OnchainWallet>): BoardFunding {
  return {
    async buildFunding(script, amountSat, exclude): Promise<FundingTx> {
      const w = await onchain.get();
      const satPerVb = (await w.refreshFeeRates()).regularSatPerVb;
      // the coins' state refreshed from the chain source, so a coin mined since the last sync is boarded
      const coins = (await w.freshSpendableUtxos()).filter((u) => !exclude.has(outpointOf(u)));
      const { keychain } = w;
      if (amountSat === "all") {
        const total = coins.reduce((t, u) => t + u.valueSat, 0n);
        if (coins.length === 0) throw new BoardRefusedError("Insufficient funds: the on-chain wallet has no spendable coins to board");
        // Key-path signatures have a fixed size, so a probe with the whole amount gives the exact vsize.
        const probe = signSpend({ inputs: coins, outputs: [{ script, valueSat: total }] }, keychain, keychain.network);
        const fee = feeForVsize(probe.vsize, satPerVb);
        if (total <= fee) throw new BoardRefusedError(`Insufficient funds: the on-chain balance of ${total} sats does not cover the on-chain fee of ${fee} sats`);
        const signed = signSpend({ inputs: coins, outputs: [{ script, valueSat: total - fee }] }, keychain, keychain.network);
        return { txid: signed.txid, hex: signed.hex, vout: 0, amountSat: total - fee, onchainFeeSat: signed.feeSat, inputs: coins.map(outpointOf) };
      }
      // Every change script of the wallet is P2TR, so any of them sizes the selection.
      const sizing = keychain.key(0).script;
      let sel;
      try {
        sel = selectCoins(coins, { outputs: [{ script, valueSat: amountSat }], satPerVb, changeScript: sizing });
      } catch (e) {
        if (e instanceof InsufficientFundsError) {
          throw new BoardRefusedError(`Insufficient funds: needed ${e.neededSat} sats (board amount plus on-chain fee), spendable ${e.availableSat} sats`);
        }
        throw e;
      }
      const outputs = [{ script, valueSat: amountSat }];
      if (sel.changeSat > 0n) {
        const change = await w.nextAddress();
        outputs.push({ script: btcAddress.toOutputScript(change, keychain.network), valueSat: sel.changeSat });
      }
      const signed = signSpend({ inputs: sel.inputs, outputs }, keychain, keychain.network);
      return { txid: signed.txid, hex: signed.hex, vout: 0, amountSat, onchainFeeSat: signed.feeSat, inputs: sel.inputs.map(outpointOf) };
    },

    async hold(funding) {
      const vsize = Transaction.fromHex(funding.hex).virtualSize();
      await (await onchain.get()).hold({ txid: funding.txid, hex: funding.hex, feeSat: funding.onchainFeeSat, vsize });
    },

    async noteBroadcast(txid) {
      await (await onchain.get()).markBroadcast(txid);
    },

    async release(txid) {
      await (await onchain.get()).abandon(txid);
    },
  };
}
