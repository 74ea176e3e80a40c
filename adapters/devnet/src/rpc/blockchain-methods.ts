import { btc } from "./core-amount.js";
import { headerJson, scriptPubKeyJson, targetFromBits } from "./core-json.js";
import { RpcError, RpcErrorCode } from "./rpc-error.js";
import { coreTxJson, type RpcContext, type RpcMethodTable } from "./rpc-method.js";

const blockNotFound = (): RpcError => new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, "Block not found");

function tipHeader(ctx: RpcContext) {
  const h = ctx.node.getBlockHeader(ctx.node.tipHash());
  if (!h) throw new RpcError(RpcErrorCode.MISC_ERROR, "tip header missing");
  return h;
}

/** Chain-state methods: tip, blocks, headers, unspent outputs, index info. */
export const blockchainMethods: RpcMethodTable = {
  getblockchaininfo: {
    params: [],
    run: (ctx) => {
      const tip = tipHeader(ctx);
      return {
        chain: "regtest",
        blocks: tip.height,
        headers: tip.height,
        bestblockhash: tip.hash,
        bits: tip.bits,
        target: targetFromBits(tip.bits),
        difficulty: tip.difficulty,
        time: tip.time,
        mediantime: tip.medianTimePast,
        verificationprogress: 1,
        initialblockdownload: false,
        chainwork: tip.chainWork,
        size_on_disk: 0,
        pruned: false,
        warnings: [],
      };
    },
  },
  getblockcount: { params: [], run: (ctx) => ctx.node.tipHeight() },
  getbestblockhash: { params: [], run: (ctx) => ctx.node.tipHash() },
  getdifficulty: { params: [], run: (ctx) => tipHeader(ctx).difficulty },
  getblockhash: {
    params: ["height"],
    run: (ctx, p) => {
      const hash = ctx.node.blockHashAt(p.int(0));
      if (hash === undefined) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, "Block height out of range");
      return hash;
    },
  },
  getblockheader: {
    params: ["blockhash", "verbose"],
    run: (ctx, p) => {
      const hash = p.hash(0);
      const verbose = p.bool(1, true);
      if (!verbose) {
        const block = ctx.node.getBlock(hash);
        if (!block) throw blockNotFound();
        return Buffer.from(block.rawHeader).toString("hex");
      }
      const h = ctx.node.getBlockHeader(hash);
      if (!h) throw blockNotFound();
      return headerJson(h, ctx.node.tipHeight());
    },
  },
  getblock: {
    params: ["blockhash", "verbosity"],
    run: (ctx, p) => {
      const block = ctx.node.getBlock(p.hash(0));
      if (!block) throw blockNotFound();
      const verbosity = p.verbosity(1, 1);
      if (verbosity <= 0) return Buffer.from(block.raw).toString("hex");
      const tx =
        verbosity === 1
          ? block.txids
          : block.txids.map((id) => {
              const t = ctx.node.getTransaction(id);
              if (!t) throw new RpcError(RpcErrorCode.MISC_ERROR, `block transaction ${id} missing`);
              return coreTxJson(ctx.node, t, { fee: true, prevouts: verbosity >= 3 });
            });
      const coinbase = ctx.node.getTransaction(block.txids[0] ?? "");
      const cbIn = coinbase?.vin[0];
      const coinbaseTx: Record<string, unknown> | undefined = coinbase && cbIn
        ? { version: coinbase.version, locktime: coinbase.locktime, sequence: cbIn.sequence, coinbase: Buffer.from(cbIn.scriptSig).toString("hex") }
        : undefined;
      if (coinbaseTx && cbIn?.witness[0]) coinbaseTx.witness = Buffer.from(cbIn.witness[0]).toString("hex");
      return { ...headerJson(block, ctx.node.tipHeight()), strippedsize: block.strippedSize, size: block.size, weight: block.weight, coinbase_tx: coinbaseTx, tx };
    },
  },
  gettxout: {
    params: ["txid", "n", "include_mempool"],
    run: (ctx, p) => {
      const out = ctx.node.getTxOut(p.hash(0), p.int(1), p.bool(2, true));
      if (!out) return null;
      return {
        bestblock: out.bestBlock,
        confirmations: out.confirmations,
        value: btc(out.amountSat),
        scriptPubKey: scriptPubKeyJson(out.scriptPubKey, out.scriptType, out.address),
        coinbase: out.coinbase,
      };
    },
  },
  gettxspendingprevout: {
    params: ["outputs"],
    run: (ctx, p) =>
      p.array(0).map((o) => {
        const { txid, vout } = (o ?? {}) as { txid?: unknown; vout?: unknown };
        if (typeof txid !== "string" || !/^[0-9a-fA-F]{64}$/.test(txid)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, "txid must be hexadecimal string of length 64");
        if (typeof vout !== "number" || !Number.isInteger(vout) || vout < 0) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, "Invalid parameter, vout cannot be negative");
        const spend = ctx.node.getOutspend(txid.toLowerCase(), vout);
        const inMempool = spend?.spent === true && spend.status?.confirmed !== true && spend.txid !== undefined;
        return inMempool ? { txid, vout, spendingtxid: spend.txid } : { txid, vout };
      }),
  },
  getindexinfo: {
    params: ["index_name"],
    run: (ctx, p) => {
      const name = p.opt(0);
      if (name !== undefined && name !== "txindex") return {};
      return { txindex: { synced: true, best_block_height: ctx.node.tipHeight() } };
    },
  },
};
