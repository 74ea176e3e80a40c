/** Coinbase transactions: the regtest genesis coinbase, BIP-34 heights, subsidy with regtest's 150-block halvings. */
import { encodeTx, type Tx } from "../consensus/index.js";
import { REGTEST_BITS, encodeBlock, merkleRoot } from "./block.js";
import { concatBytes } from "../consensus/bytes.js";
import { pushData } from "../consensus/script.js";
import { pushNumber, sha256d, unhex } from "./bytes.js";

/** Blocks between subsidy halvings on regtest. */
export const HALVING_INTERVAL = 150;

/** Blocks a coinbase output must wait before it can be spent. */
export const COINBASE_MATURITY = 100;

/** Block subsidy at `height`: 50 BTC halved every {@link HALVING_INTERVAL} blocks, zero after 64 halvings. */
export function blockSubsidy(height: number): bigint {
  const halvings = Math.floor(height / HALVING_INTERVAL);
  if (halvings >= 64) return 0n;
  return 5_000_000_000n >> BigInt(halvings);
}

/** The coinbase scriptSig prefix BIP-34 requires at `height` (Core's `CScript() << height`). */
export function bip34Prefix(height: number): Uint8Array {
  return pushNumber(height);
}

const NULL_TXID = new Uint8Array(32);

/** A coinbase for `height` paying `value` to `payout`, plus a witness-commitment output when given. */
export function buildCoinbase(height: number, payout: Uint8Array, value: bigint, commitment?: Uint8Array): Tx {
  const outputs = [{ value, scriptPubKey: payout }];
  if (commitment) outputs.push({ value: 0n, scriptPubKey: commitment });
  return {
    version: 2,
    inputs: [
      {
        prevTxid: NULL_TXID,
        prevVout: 0xffffffff,
        // height, then an empty push as extra nonce (keeps the script ≥ 2 bytes at heights 1–16)
        scriptSig: concatBytes(bip34Prefix(height), Uint8Array.of(0x00)),
        sequence: 0xffffffff,
        witness: commitment ? [new Uint8Array(32)] : [],
      },
    ],
    outputs,
    locktime: 0,
  };
}

/** The coinbase of Bitcoin's genesis block, which regtest shares (its output is not spendable). */
export function genesisCoinbase(): Tx {
  const message = new TextEncoder().encode("The Times 03/Jan/2009 Chancellor on brink of second bailout for banks");
  const pubkey = unhex(
    "04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f",
  );
  return {
    version: 1,
    inputs: [
      {
        prevTxid: NULL_TXID,
        prevVout: 0xffffffff,
        scriptSig: concatBytes(pushData(unhex("ffff001d")), pushData(Uint8Array.of(4)), pushData(message)),
        sequence: 0xffffffff,
        witness: [],
      },
    ],
    outputs: [{ value: 5_000_000_000n, scriptPubKey: concatBytes(pushData(pubkey), Uint8Array.of(0xac)) }],
    locktime: 0,
  };
}

/** Regtest genesis header time and nonce. */
export const GENESIS_TIME = 1296688602;
export const GENESIS_NONCE = 2;
/** The well-known regtest genesis block hash. */
export const REGTEST_GENESIS_HASH = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";

/** The raw regtest genesis block (hash {@link REGTEST_GENESIS_HASH}). */
export function regtestGenesisBlock(): Uint8Array {
  const cb = genesisCoinbase();
  const header = {
    version: 1,
    prevHash: new Uint8Array(32),
    merkleRoot: merkleRoot([sha256d(encodeTx(cb, false))]),
    time: GENESIS_TIME,
    bits: REGTEST_BITS,
    nonce: GENESIS_NONCE,
  };
  return encodeBlock(header, [encodeTx(cb, true)]);
}
