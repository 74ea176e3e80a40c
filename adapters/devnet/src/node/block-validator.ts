/**
 * Consensus validation of a block on top of the current tip (Core's CheckBlock +
 * ContextualCheckBlock + ConnectBlock, minus reorgs): header and proof of work, coinbase
 * rules (BIP-34 height, amount, witness commitment), and every transaction through the
 * consensus engine with the mandatory script flags.
 */
import {
  REGTEST_BITS,
  blockHash,
  findWitnessCommitment,
  meetsTarget,
  merkleRoot,
  splitBlock,
  witnessCommitmentScript,
  type BlockHeader,
} from "./block.js";
import { bytesEqual, displayHex, toHex } from "../consensus/bytes.js";
import { sha256d } from "./bytes.js";
import type { ChainState, Coin, ConnectBlock, ConnectTx } from "./chain-state.js";
import { outpointKey, isUnspendable } from "./chain-state.js";
import { COINBASE_MATURITY, bip34Prefix, blockSubsidy } from "./coinbase.js";
import {
  ConsensusError,
  MANDATORY_SCRIPT_VERIFY_FLAGS,
  checkTransaction,
  decodeTx,
  encodeTx,
  hasWitness,
  isCoinbase,
  isFinal,
  scriptErrorText,
  sequenceLocksOk,
  sigOps,
  verifyScripts,
  txid as txidOf,
  wtxid as wtxidOf,
  type Tx,
} from "./consensus-port.js";
import { BlockValidationError } from "./node-errors.js";

/** Consensus limits. */
export const MAX_BLOCK_WEIGHT = 4_000_000;
export const MAX_BLOCK_SIGOPS_COST = 80_000;
const MAX_MONEY = 21_000_000n * 100_000_000n;

/** Validates raw block bytes against `chain`; returns what {@link ChainState.connect} needs. */
export function validateBlock(chain: ChainState, raw: Uint8Array, opts: { skipScripts?: boolean } = {}): ConnectBlock {
  let split: { header: BlockHeader; rawTxs: Uint8Array[] };
  try {
    split = splitBlock(raw);
  } catch (err) {
    throw new BlockValidationError("bad-blk-length", err instanceof Error ? err.message : String(err));
  }
  const { header, rawTxs } = split;
  const txs: Tx[] = rawTxs.map((r, i) => {
    try {
      return decodeTx(r);
    } catch (err) {
      throw new BlockValidationError("bad-txns-decode", `tx ${i}: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  const height = chain.height + 1;
  checkHeader(chain, header, height);
  checkStructure(header, txs);
  checkCoinbaseContext(txs, height);
  const connectTxs = connectTransactions(chain, txs, height, opts.skipScripts ?? false);
  const strippedSize = raw.length - rawTxs.reduce((n, r, i) => n + r.length - encodeTx(txs[i]!, false).length, 0);
  const weight = strippedSize * 3 + raw.length;
  if (weight > MAX_BLOCK_WEIGHT) throw new BlockValidationError("bad-blk-weight", `weight ${weight}`);
  return { header, hash: blockHash(header), raw, txs: connectTxs, size: raw.length, strippedSize, weight };
}

function checkHeader(chain: ChainState, header: BlockHeader, height: number): void {
  const tip = chain.tip;
  const expectedPrev = tip ? tip.hash : "0".repeat(64);
  if (displayHex(header.prevHash) !== expectedPrev) throw new BlockValidationError("bad-prevblk", "block does not extend the tip");
  if (header.bits !== REGTEST_BITS) throw new BlockValidationError("bad-diffbits", "incorrect proof of work");
  if (!meetsTarget(header)) throw new BlockValidationError("high-hash", "proof of work failed");
  if (tip && header.time <= tip.medianTimePast) throw new BlockValidationError("time-too-old", "block's timestamp is too early");
  if (height > 0 && header.version < 4) throw new BlockValidationError(`bad-version(0x${(header.version >>> 0).toString(16).padStart(8, "0")})`, "rejected nVersion block");
}

function checkStructure(header: BlockHeader, txs: Tx[]): void {
  if (txs.length === 0) throw new BlockValidationError("bad-blk-length", "size limits failed");
  if (!isCoinbase(txs[0]!)) throw new BlockValidationError("bad-cb-missing", "first tx is not coinbase");
  if (txs.slice(1).some(isCoinbase)) throw new BlockValidationError("bad-cb-multiple", "more than one coinbase");
  const ids = txs.map((t) => sha256d(encodeTx(t, false)));
  if (!bytesEqual(merkleRoot(ids), header.merkleRoot)) throw new BlockValidationError("bad-txnmrklroot", "hashMerkleRoot mismatch");
  if (new Set(ids.map(toHex)).size !== ids.length) throw new BlockValidationError("bad-txns-duplicate", "duplicate transaction");
  for (const tx of txs) {
    try {
      checkTransaction(tx);
    } catch (err) {
      if (err instanceof ConsensusError) throw new BlockValidationError(err.code, err.message);
      throw err;
    }
  }
}

function checkCoinbaseContext(txs: Tx[], height: number): void {
  const cb = txs[0]!;
  if (height > 0) {
    const prefix = bip34Prefix(height);
    if (!bytesEqual(cb.inputs[0]!.scriptSig.subarray(0, prefix.length), prefix)) {
      throw new BlockValidationError("bad-cb-height", "block height mismatch in coinbase");
    }
  }
  const idx = findWitnessCommitment(cb.outputs.map((o) => o.scriptPubKey));
  if (idx >= 0) {
    const witness = cb.inputs[0]!.witness;
    if (witness.length !== 1 || witness[0]!.length !== 32) {
      throw new BlockValidationError("bad-witness-nonce-size", "invalid witness reserved value size");
    }
    const wtxids = txs.map((t) => sha256d(encodeTx(t, true)));
    const expected = witnessCommitmentScript(wtxids, witness[0]!);
    if (!bytesEqual(cb.outputs[idx]!.scriptPubKey.subarray(0, 38), expected)) {
      throw new BlockValidationError("bad-witness-merkle-match", "witness merkle commitment mismatch");
    }
  } else if (txs.some(hasWitness)) {
    throw new BlockValidationError("unexpected-witness", "unexpected witness data found");
  }
}

function connectTransactions(chain: ChainState, txs: Tx[], height: number, skipScripts: boolean): ConnectTx[] {
  const created = new Map<string, Coin>();
  const spentHere = new Set<string>();
  const prevMtp = chain.tip?.medianTimePast ?? 0;
  const mtpAt = (h: number): number => chain.medianTimePastAt(h);
  const result: ConnectTx[] = [];
  let fees = 0n;
  let sigopCost = 0;
  txs.forEach((tx, position) => {
    const txid = txidOf(tx);
    const raw = encodeTx(tx, true);
    const coinbase = position === 0;
    if (!isFinal(tx, height, prevMtp)) throw new BlockValidationError("bad-txns-nonfinal", `non-final transaction ${txid}`);
    const spent: Coin[] = [];
    let fee: bigint | undefined;
    if (!coinbase) {
      for (const input of tx.inputs) {
        const key = outpointKey(displayHex(input.prevTxid), input.prevVout);
        const coin = spentHere.has(key) ? undefined : (created.get(key) ?? chain.coin(displayHex(input.prevTxid), input.prevVout));
        if (!coin) throw new BlockValidationError("bad-txns-inputs-missingorspent", `tx ${txid} input ${key}`);
        if (coin.coinbase && height - coin.height < COINBASE_MATURITY) {
          throw new BlockValidationError("bad-txns-premature-spend-of-coinbase", `tried to spend coinbase at depth ${height - coin.height}`);
        }
        spentHere.add(key);
        spent.push(coin);
      }
      const valueIn = spent.reduce((n, c) => n + c.value, 0n);
      if (valueIn > MAX_MONEY) throw new BlockValidationError("bad-txns-inputvalues-outofrange");
      const valueOut = tx.outputs.reduce((n, o) => n + o.value, 0n);
      if (valueIn < valueOut) throw new BlockValidationError("bad-txns-in-belowout", `value in (${valueIn}) < value out (${valueOut})`);
      fee = valueIn - valueOut;
      fees += fee;
      if (!sequenceLocksOk(tx, spent.map((c) => c.height), height, prevMtp, mtpAt)) {
        throw new BlockValidationError("bad-txns-nonfinal", `contains a non-BIP68-final transaction ${txid}`);
      }
    }
    const spentOutputs = spent.map((c) => ({ amount: c.value, scriptPubKey: c.scriptPubKey }));
    sigopCost += sigOps(tx, spentOutputs, MANDATORY_SCRIPT_VERIFY_FLAGS);
    if (sigopCost > MAX_BLOCK_SIGOPS_COST) throw new BlockValidationError("bad-blk-sigops", "too many sigops");
    if (!coinbase && !skipScripts) {
      try {
        verifyScripts(tx, spentOutputs, MANDATORY_SCRIPT_VERIFY_FLAGS);
      } catch (err) {
        throw new BlockValidationError(`mandatory-script-verify-flag-failed (${scriptErrorText(err)})`, `tx ${txid}`);
      }
    }
    tx.outputs.forEach((out, vout) => {
      if (!isUnspendable(out.scriptPubKey)) {
        created.set(outpointKey(txid, vout), { txid, vout, value: out.value, scriptPubKey: out.scriptPubKey, height, coinbase });
      }
    });
    result.push({ tx, raw, txid, wtxid: wtxidOf(tx), spent, ...(fee === undefined ? {} : { fee }) });
  });
  const cbOut = txs[0]!.outputs.reduce((n, o) => n + o.value, 0n);
  if (height > 0 && cbOut > fees + blockSubsidy(height)) {
    throw new BlockValidationError("bad-cb-amount", `coinbase pays too much (actual=${cbOut} vs limit=${fees + blockSubsidy(height)})`);
  }
  return result;
}

