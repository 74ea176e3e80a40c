/**
 * The VTXO data model and its binary encoding, versions 1 and 2 (bark's `ark::vtxo`).
 *
 * Decoders accept versions 1 and 2; encoders always write version 2 (so re-encoding a version-1
 * VTXO adds the per-item fee field but keeps its id). The "bare" form has no genesis.
 *
 * @example
 * ```ts
 * const vtxo = decodeVtxo(fromHex(hex));
 * vtxoIdString(vtxo);          // "c79c…9fd3:0"
 * toHex(encodeVtxo(vtxo));     // version-2 bytes
 * ```
 */
import { ProtocolDecodeError } from "./errors.js";
import {
  ByteReader,
  ByteWriter,
  decodeExact,
  encodeOutPoint,
  formatOutPoint,
  outPointEquals,
  readOutPoint,
  writeOutPoint,
  type OutPoint,
  type Sats,
} from "./encoding.js";
import { readPubkey, writePubkey } from "./keys.js";
import { readServerPolicy, readUserPolicy, writePolicy, type PolicyContext, type ServerVtxoPolicy, type VtxoPolicy } from "./policy.js";
import { readGenesisItem, writeGenesisItem, type GenesisItem } from "./vtxo-genesis.js";

/** Encoding version written by {@link encodeVtxo}. */
export const VTXO_ENCODING_VERSION = 2;

/** A VTXO without its genesis (what bark stores as "bare"). */
export interface BareVtxo<P extends ServerVtxoPolicy = VtxoPolicy> {
  readonly amount: Sats;
  readonly expiryHeight: number;
  readonly serverPubkey: Uint8Array;
  readonly exitDelta: number;
  readonly anchorPoint: OutPoint;
  readonly policy: P;
  /** Outpoint of the VTXO; its 36-byte encoding is the VTXO id. */
  readonly point: OutPoint;
}

/** A full VTXO, with the genesis items from the chain anchor down to its own exit tx. */
export interface Vtxo<P extends ServerVtxoPolicy = VtxoPolicy> extends BareVtxo<P> {
  readonly genesis: readonly GenesisItem[];
}

/** A VTXO whose policy may be any server policy. */
export type ServerVtxo = Vtxo<ServerVtxoPolicy>;

/** The policy context (S, Δ, E) of a VTXO. */
export function vtxoPolicyContext(v: BareVtxo<ServerVtxoPolicy>): PolicyContext {
  return { serverPubkey: v.serverPubkey, exitDelta: v.exitDelta, expiryHeight: v.expiryHeight };
}

/** 36-byte VTXO id (the encoded point). */
export function vtxoId(v: BareVtxo<ServerVtxoPolicy>): Uint8Array {
  return encodeOutPoint(v.point);
}

/** `<txid display hex>:<vout>` string of a VTXO id. */
export function vtxoIdString(v: BareVtxo<ServerVtxoPolicy>): string {
  return formatOutPoint(v.point);
}

/** Number of exit transactions of a VTXO. */
export function exitDepth(v: Vtxo<ServerVtxoPolicy>): number {
  return v.genesis.length;
}

function writeHead(w: ByteWriter, v: BareVtxo<ServerVtxoPolicy>, version: 1 | 2): void {
  w.u16(version).u64(v.amount).u32(v.expiryHeight);
  writePubkey(w, v.serverPubkey).u16(v.exitDelta);
  writeOutPoint(w, v.anchorPoint);
}

function writeTail(w: ByteWriter, v: BareVtxo<ServerVtxoPolicy>): void {
  writePolicy(w, v.policy);
  writeOutPoint(w, v.point);
}

/** Encodes the genesis part alone (item count + items), as bark stores it separately. */
export function encodeGenesis(genesis: readonly GenesisItem[], version: 1 | 2 = 2): Uint8Array {
  const w = new ByteWriter().compactSize(genesis.length);
  for (const item of genesis) writeGenesisItem(w, item, version);
  return w.finish();
}

/** Encodes a full VTXO (version 2 unless `version` = 1 is asked for, e.g. by tests). */
export function encodeVtxo(v: Vtxo<ServerVtxoPolicy>, version: 1 | 2 = 2): Uint8Array {
  const w = new ByteWriter();
  writeHead(w, v, version);
  w.bytes(encodeGenesis(v.genesis, version));
  writeTail(w, v);
  return w.finish();
}

/** Encodes the bare form (genesis count 0, always version 2). */
export function encodeBareVtxo(v: BareVtxo<ServerVtxoPolicy>): Uint8Array {
  const w = new ByteWriter();
  writeHead(w, v, 2);
  w.compactSize(0);
  writeTail(w, v);
  return w.finish();
}

interface Head {
  version: 1 | 2;
  amount: Sats;
  expiryHeight: number;
  serverPubkey: Uint8Array;
  exitDelta: number;
  anchorPoint: OutPoint;
}

function readHead(r: ByteReader): Head {
  const version = r.u16();
  if (version !== 1 && version !== 2) throw new ProtocolDecodeError(`unsupported VTXO encoding version ${version}`);
  return { version, amount: r.u64(), expiryHeight: r.height(), serverPubkey: readPubkey(r), exitDelta: r.delta(), anchorPoint: readOutPoint(r) };
}

function readGenesis(r: ByteReader, version: 1 | 2): GenesisItem[] {
  const n = r.count(1, "genesis");
  const items: GenesisItem[] = [];
  for (let i = 0; i < n; i++) items.push(readGenesisItem(r, version));
  return items;
}

function readVtxoWith<P extends ServerVtxoPolicy>(r: ByteReader, readPolicy: (r: ByteReader) => P): Vtxo<P> {
  const head = readHead(r);
  const genesis = readGenesis(r, head.version);
  const policy = readPolicy(r);
  const point = readOutPoint(r);
  const isAnchor = outPointEquals(point, head.anchorPoint);
  if (genesis.length === 0 && !isAnchor) throw new ProtocolDecodeError("VTXO without genesis must have point == chain anchor");
  if (genesis.length > 0 && isAnchor) throw new ProtocolDecodeError("VTXO with point == chain anchor cannot have genesis items");
  const { version: _version, ...fields } = head;
  return { ...fields, genesis, policy, point };
}

/** Reads a full VTXO with a user policy. */
export function readVtxo(r: ByteReader): Vtxo {
  return readVtxoWith(r, readUserPolicy);
}

/** Reads a full VTXO with any server policy. */
export function readServerVtxo(r: ByteReader): ServerVtxo {
  return readVtxoWith(r, readServerPolicy);
}

/** Decodes a full VTXO (user policy); throws {@link ProtocolDecodeError} on any malformed byte. */
export function decodeVtxo(bytes: Uint8Array): Vtxo {
  return decodeExact(bytes, readVtxo);
}

/** Decodes a full VTXO whose policy may be any server policy. */
export function decodeServerVtxo(bytes: Uint8Array): ServerVtxo {
  return decodeExact(bytes, readServerVtxo);
}

/** Decodes the bare form; a full encoding is accepted and its genesis skipped. */
export function decodeBareVtxo(bytes: Uint8Array): BareVtxo<ServerVtxoPolicy> {
  return decodeExact(bytes, (r) => {
    const head = readHead(r);
    readGenesis(r, head.version);
    const policy = readServerPolicy(r);
    const point = readOutPoint(r);
    const { version: _version, ...fields } = head;
    return { ...fields, policy, point };
  });
}

/** Decodes a separately stored genesis (item count + items) of the given encoding version. */
export function decodeGenesis(bytes: Uint8Array, version: 1 | 2 = 2): GenesisItem[] {
  return decodeExact(bytes, (r) => readGenesis(r, version));
}

/** Joins a bare VTXO and a separately stored genesis into a full VTXO. */
export function joinVtxo<P extends ServerVtxoPolicy>(bare: BareVtxo<P>, genesis: readonly GenesisItem[]): Vtxo<P> {
  return { ...bare, genesis };
}

/** Reads the encoding version of an encoded VTXO without decoding the rest. */
export function peekVtxoVersion(bytes: Uint8Array): number {
  return new ByteReader(bytes).u16();
}
