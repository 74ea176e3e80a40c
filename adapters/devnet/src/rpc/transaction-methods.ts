import { InvalidInputError, PolicyError } from "../node/devnet-node.js";
import { btc, btcPerKvb, satFromBtc } from "./core-amount.js";
import { acceptJson, mempoolEntryJson, submitPackageJson } from "./core-json.js";
import { chunkOf } from "./mempool-chunk.js";
import { RpcError, RpcErrorCode, rpcErrorForPolicy } from "./rpc-error.js";
import { coreTxJson, type RpcMethodTable } from "./rpc-method.js";
import type { RpcParams } from "./rpc-params.js";

const MAX_PACKAGE = 25;

/** Runs `op`, turning node errors into bitcoind's RPC errors (`decodeFailure` is Core's text for unparseable input). */
function asRpc<T>(op: () => T, decodeFailure = "TX decode failed. Make sure the tx has at least one input."): T {
  try {
    return op();
  } catch (err) {
    if (err instanceof PolicyError) throw rpcErrorForPolicy(err);
    if (err instanceof InvalidInputError) throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, decodeFailure);
    throw err;
  }
}

/** `maxfeerate` (BTC/kvB, default 0.10) as sat/vB; 0 disables the check. */
function maxFeeRate(p: RpcParams, i: number): number {
  const raw = p.opt(i);
  if (raw === undefined) return 10_000;
  const satPerKvb = satFromBtc(raw);
  if (satPerKvb === null) throw new RpcError(RpcErrorCode.TYPE_ERROR, "Invalid amount");
  return Number(satPerKvb) / 1000;
}

function hexList(p: RpcParams, i: number): string[] {
  const list = p.array(i);
  if (list.length < 1 || list.length > MAX_PACKAGE) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Array must contain between 1 and ${MAX_PACKAGE} transactions.`);
  return list.map((x) => {
    if (typeof x !== "string") throw new RpcError(RpcErrorCode.TYPE_ERROR, "JSON value is not a string as expected");
    return x;
  });
}

/** Transaction lookups, mempool queries and submission. */
export const transactionMethods: RpcMethodTable = {
  getrawtransaction: {
    params: ["txid", "verbosity", "blockhash"],
    run: (ctx, p) => {
      const txid = p.hash(0);
      const verbosity = p.verbosity(1, 0);
      const blockhash = p.opt(2) === undefined ? undefined : p.hash(2);
      const tx = ctx.node.getTransaction(txid);
      if (!tx || (blockhash !== undefined && tx.status.blockHash !== blockhash)) {
        if (blockhash !== undefined && !ctx.node.getBlockHeader(blockhash)) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, "Block hash not found");
        throw new RpcError(
          RpcErrorCode.INVALID_ADDRESS_OR_KEY,
          blockhash !== undefined ? "No such transaction found in the provided block. Use gettransaction for wallet transactions." : "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
        );
      }
      if (verbosity <= 0) return Buffer.from(tx.raw).toString("hex");
      const out: Record<string, unknown> = blockhash !== undefined ? { in_active_chain: true } : {};
      Object.assign(out, coreTxJson(ctx.node, tx, { fee: verbosity >= 2, prevouts: verbosity >= 2 }));
      if (tx.status.confirmed && tx.status.blockHash !== undefined) {
        out.blockhash = tx.status.blockHash;
        out.confirmations = ctx.node.tipHeight() - (tx.status.blockHeight ?? 0) + 1;
        out.time = tx.status.blockTime;
        out.blocktime = tx.status.blockTime;
      }
      return out;
    },
  },
  getmempoolentry: {
    params: ["txid"],
    run: (ctx, p) => {
      const e = ctx.node.getMempoolEntry(p.hash(0));
      if (!e) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, "Transaction not in mempool");
      return mempoolEntryJson(e, chunkOf(ctx.node, e));
    },
  },
  getrawmempool: {
    params: ["verbose", "mempool_sequence"],
    run: (ctx, p) => {
      const verbose = p.bool(0, false);
      const sequence = p.bool(1, false);
      if (verbose && sequence) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, "Verbose results cannot contain mempool sequence values.");
      const ids = ctx.node.getRawMempool();
      if (sequence) return { txids: ids, mempool_sequence: ids.length };
      if (!verbose) return ids;
      const out: Record<string, unknown> = {};
      for (const id of ids) {
        const e = ctx.node.getMempoolEntry(id);
        if (e) out[id] = mempoolEntryJson(e, chunkOf(ctx.node, e));
      }
      return out;
    },
  },
  getmempoolinfo: {
    params: [],
    run: (ctx) => {
      const m = ctx.node.mempoolInfo();
      return {
        loaded: true,
        size: m.size,
        bytes: m.bytes,
        usage: m.bytes,
        total_fee: btc(m.totalFeeSat),
        maxmempool: 300_000_000,
        mempoolminfee: btcPerKvb(m.minRelayFeeSatPerVb),
        minrelaytxfee: btcPerKvb(m.minRelayFeeSatPerVb),
        incrementalrelayfee: btcPerKvb(1),
        unbroadcastcount: 0,
        fullrbf: true,
        permitbaremultisig: true,
        maxdatacarriersize: 100_000,
        limitclustercount: 64,
        limitclustersize: 101_000,
        optimal: true,
      };
    },
  },
  sendrawtransaction: {
    params: ["hexstring", "maxfeerate", "maxburnamount"],
    run: (ctx, p) => {
      const hex = p.str(0);
      const max = maxFeeRate(p, 1);
      return asRpc(() => ctx.node.submitTransaction(hex, { maxFeeRateSatPerVb: max }));
    },
  },
  testmempoolaccept: {
    params: ["rawtxs", "maxfeerate"],
    run: (ctx, p) => {
      const raws = hexList(p, 0);
      const max = maxFeeRate(p, 1);
      return asRpc(() => ctx.node.testMempoolAccept(raws, { maxFeeRateSatPerVb: max }), `TX decode failed: ${raws.join(" ")} Make sure the tx has at least one input.`).map(acceptJson);
    },
  },
  submitpackage: {
    params: ["package", "maxfeerate", "maxburnamount"],
    run: (ctx, p) => {
      const raws = hexList(p, 0);
      try {
        return submitPackageJson(ctx.node.submitPackage(raws));
      } catch (err) {
        if (err instanceof PolicyError) {
          const code = /topology|sorted|not child-with/i.test(err.reason) ? RpcErrorCode.INVALID_PARAMETER : RpcErrorCode.VERIFY_ERROR;
          throw new RpcError(code, err.message);
        }
        return asRpc(() => {
          throw err;
        });
      }
    },
  },
};
