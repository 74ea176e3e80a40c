import { createECDH, createHash, createPrivateKey, sign, type KeyObject } from "node:crypto";
import { encodeSegwitAddress, segwitScriptOf } from "./bech32.js";

/** A coin a test can spend. */
export interface Coin {
  readonly txid: string;
  readonly vout: number;
  readonly valueSat: bigint;
  /** A pay-to-anchor output (`OP_1 <0x4e73>`), anyone can spend it with an empty witness; otherwise the wallet's own. */
  readonly anchor?: boolean;
}

/** A signed transaction. */
export interface SignedTx {
  readonly hex: string;
  readonly txid: string;
}

/** An output to create: to a segwit address, or to a raw script (such as `OP_RETURN`). */
export type Payee = { readonly address: string; readonly valueSat: bigint } | { readonly scriptHex: string; readonly valueSat: bigint };

/** Transaction fields a test may set. */
export interface SpendOptions {
  /** Default 2; 3 makes a TRUC transaction (BIP-431). */
  readonly version?: number;
  /** Of every input. Default 0xfffffffd (replaceable, BIP-125). */
  readonly sequence?: number;
  readonly locktime?: number;
}

/** secp256k1's group order n. */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SIGHASH_ALL = 1;

const sha256 = (b: Uint8Array): Buffer => createHash("sha256").update(b).digest();
const sha256d = (b: Uint8Array): Buffer => sha256(sha256(b));

/** Bitcoin's little-endian integers and compact sizes. */
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const u64 = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};
function compactSize(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) return Buffer.from([0xfd, n & 0xff, n >>> 8]);
  return Buffer.concat([Buffer.from([0xfe]), u32(n)]);
}
const withLength = (b: Uint8Array): Buffer => Buffer.concat([compactSize(b.length), b]);

/** A DER integer: big-endian, minimal, with a 0x00 prefix when the top bit is set. */
function derInteger(x: bigint): Buffer {
  let bytes = Buffer.from(x.toString(16).padStart(64, "0"), "hex");
  while (bytes.length > 1 && bytes[0] === 0 && !(bytes[1]! & 0x80)) bytes = bytes.subarray(1);
  if (bytes[0]! & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return Buffer.concat([Buffer.from([0x02, bytes.length]), bytes]);
}

/**
 * A single-key P2WPKH wallet for tests on regtest, derived from a label (same label → same key),
 * that signs transactions spending its coins (BIP-143 signatures with `SIGHASH_ALL`, low S as
 * Bitcoin Core's relay policy requires). Built on `node:crypto` only.
 */
export class TestWallet {
  private readonly key: KeyObject;
  private readonly publicKey: Buffer;
  private readonly pubKeyHash: Buffer;
  /** The wallet's `bcrt1q…` address. */
  readonly address: string;
  /** Its output script, `0014<hash160(pubkey)>`. */
  readonly scriptHex: string;

  constructor(label: string) {
    const secret = sha256(Buffer.from(`tender-test-wallet:${label}`));
    const d = BigInt(`0x${secret.toString("hex")}`);
    if (d === 0n || d >= CURVE_ORDER) throw new Error(`label ${label} gives no valid key`);
    const ecdh = createECDH("secp256k1");
    ecdh.setPrivateKey(secret);
    const full = ecdh.getPublicKey();
    this.key = createPrivateKey({
      format: "jwk",
      key: { kty: "EC", crv: "secp256k1", d: secret.toString("base64url"), x: full.subarray(1, 33).toString("base64url"), y: full.subarray(33).toString("base64url") },
    });
    this.publicKey = ecdh.getPublicKey(null, "compressed");
    this.pubKeyHash = createHash("ripemd160").update(sha256(this.publicKey)).digest();
    this.address = encodeSegwitAddress("bcrt", 0, this.pubKeyHash);
    this.scriptHex = `0014${this.pubKeyHash.toString("hex")}`;
  }

  /** Spends `coins` (the wallet's own, and pay-to-anchor outputs) to `payees`; whatever is left is the fee. */
  spend(coins: readonly Coin[], payees: readonly Payee[], opts: SpendOptions = {}): SignedTx {
    const version = u32(opts.version ?? 2);
    const locktime = u32(opts.locktime ?? 0);
    const sequence = u32(opts.sequence ?? 0xfffffffd);
    const outpoints = coins.map((c) => Buffer.concat([Buffer.from(c.txid, "hex").reverse(), u32(c.vout)]));
    const outputs = payees.map((p) => {
      const script = "address" in p ? segwitScriptOf(p.address) : Buffer.from(p.scriptHex, "hex");
      return Buffer.concat([u64(p.valueSat), withLength(script)]);
    });
    const inputs = outpoints.map((o) => Buffer.concat([o, compactSize(0), sequence]));
    const body = [compactSize(inputs.length), ...inputs, compactSize(outputs.length), ...outputs];

    // BIP-143: the digest every input signs commits to all outpoints, sequences and outputs.
    const hashPrevouts = sha256d(Buffer.concat(outpoints));
    const hashSequence = sha256d(Buffer.concat(coins.map(() => sequence)));
    const hashOutputs = sha256d(Buffer.concat(outputs));
    const scriptCode = withLength(Buffer.concat([Buffer.from([0x76, 0xa9, 0x14]), this.pubKeyHash, Buffer.from([0x88, 0xac])]));
    const witnesses = coins.map((c, i) => {
      if (c.anchor) return compactSize(0);
      const preimage = Buffer.concat([
        version, hashPrevouts, hashSequence, outpoints[i]!, scriptCode, u64(c.valueSat), sequence, hashOutputs, locktime, u32(SIGHASH_ALL),
      ]);
      return Buffer.concat([compactSize(2), withLength(this.signDigestOf(preimage)), withLength(this.publicKey)]);
    });

    const hex = Buffer.concat([version, Buffer.from([0x00, 0x01]), ...body, ...witnesses, locktime]).toString("hex");
    const txid = sha256d(Buffer.concat([version, ...body, locktime])).reverse().toString("hex");
    return { hex, txid };
  }

  /** ECDSA over sha256d(preimage), low S, DER-encoded, with the sighash byte. */
  private signDigestOf(preimage: Buffer): Buffer {
    // node signs sha256(message); the message sha256(preimage) makes that sha256d(preimage).
    const rs = sign("sha256", sha256(preimage), { key: this.key, dsaEncoding: "ieee-p1363" });
    const r = BigInt(`0x${rs.subarray(0, 32).toString("hex")}`);
    let s = BigInt(`0x${rs.subarray(32).toString("hex")}`);
    if (s > CURVE_ORDER / 2n) s = CURVE_ORDER - s;
    const seq = Buffer.concat([derInteger(r), derInteger(s)]);
    return Buffer.concat([Buffer.from([0x30, seq.length]), seq, Buffer.from([SIGHASH_ALL])]);
  }
}
