/**
 * A minimal Ark wallet for server tests, built only from the protocol core: keys, boards,
 * arkoor packages, mailbox ids and authorizations. It talks to any {@link ArkApi} — the domain
 * `ArkServer` directly, or a gRPC client adapter — so the same flows run on both.
 */
import { randomBytes } from "node:crypto";
import {
  arkoorPackageVtxos,
  arkoorPartAttestation,
  arkoorUserFinish,
  arkoorUserNonces,
  blindMailboxId,
  boardFee,
  boardFundingTaproot,
  boardVtxo,
  buildArkoorPackage,
  buildBoardExit,
  bytesEqual,
  createMailboxAuthorization,
  encodeMailboxAuthorization,
  encodeOutPoint,
  encodePolicy,
  encodeTx,
  encodeVtxo,
  txid,
  fromHex,
  musigCompleteCosign,
  musigNonceGen,
  musigTweakedKey,
  pubkeyFromSecret,
  reverseBytes,
  signAttestation,
  toHex,
  vtxoId,
  type ArkoorPackage,
  type ArkoorPackageOptions,
  type FeeSchedule,
  type MusigNonce,
  type Vtxo,
  type VtxoPolicy,
  type Transaction,
} from "@tender/ark-protocol";
import type { DevnetNode } from "../../src/node/devnet-node.js";

/** What the wallet kit needs from a server (domain object or gRPC adapter). */
export interface ArkApi {
  arkInfo(): Promise<KitArkInfo> | KitArkInfo;
  requestBoardCosign(req: BoardCosignReq, pver: number): Promise<{ pubNonce: Uint8Array; partialSig: Uint8Array }>;
  registerBoardVtxo(vtxo: Uint8Array): Promise<void>;
  requestArkoorCosign(parts: ArkoorPartReq[]): Promise<{ serverPubNonces: Uint8Array[]; serverPartialSigs: Uint8Array[] }[]>;
  registerVtxoTransactions(vtxos: Uint8Array[]): Promise<void>;
  postArkoorMessage(blindedId: Uint8Array, vtxos: Uint8Array[]): Promise<void>;
}

/** The `ArkInfo` fields the kit uses. */
export interface KitArkInfo {
  serverPubkey: Uint8Array;
  mailboxPubkey: Uint8Array;
  vtxoLifetime: number;
  vtxoExitDelta: number;
  requiredBoardConfirmations: number;
  fees: FeeSchedule;
}

/** `BoardCosignRequest` fields. */
export interface BoardCosignReq {
  amount: bigint;
  utxo: Uint8Array;
  expiryHeight: number;
  userPubkey: Uint8Array;
  pubNonce: Uint8Array;
  fundingTx: Uint8Array;
}

/** `ArkoorCosignRequest` fields. */
export interface ArkoorPartReq {
  inputVtxoId: Uint8Array;
  outputs: { totalAmount: bigint; policy: Uint8Array }[];
  userPubNonces: Uint8Array[];
  isolatedOutputs: { totalAmount: bigint; policy: Uint8Array }[];
  useCheckpoint: boolean;
  attestation: Uint8Array;
}

/** A key pair. */
export interface KeyPair {
  sk: Uint8Array;
  pk: Uint8Array;
}

/** A fresh random key pair. */
export function newKey(): KeyPair {
  const sk = new Uint8Array(randomBytes(32));
  return { sk, pk: pubkeyFromSecret(sk) };
}

/** A board prepared up to the funding tx (before the cosign request). */
export interface PreparedBoard {
  key: KeyPair;
  amount: bigint;
  expiryHeight: number;
  fundingTxid: string;
  fundingRaw: Uint8Array;
  vout: number;
  request: BoardCosignReq;
  nonce: MusigNonce;
  exit: ReturnType<typeof buildBoardExit>;
}

/** A test wallet: owns keys, boards, and spends VTXOs with arkoor packages. */
export class WalletKit {
  private readonly keys = new Map<string, KeyPair>();
  readonly mailbox = newKey();

  constructor(
    readonly api: ArkApi,
    readonly node: DevnetNode,
  ) {}

  /** A new VTXO key of this wallet. */
  key(): KeyPair {
    const k = newKey();
    this.keys.set(toHex(k.pk), k);
    return k;
  }

  secretFor = (pk: Uint8Array): Uint8Array => {
    const k = this.keys.get(toHex(pk));
    if (!k) throw new Error(`not our key: ${toHex(pk)}`);
    return k.sk;
  };

  /** Funds a board output from the faucet and builds the cosign request. */
  async prepareBoard(amount: bigint, opts: { expiryHeight?: number } = {}): Promise<PreparedBoard> {
    const info = await this.api.arkInfo();
    const key = this.key();
    const expiryHeight = opts.expiryHeight ?? this.node.tipHeight() + info.vtxoLifetime;
    const taproot = boardFundingTaproot({ userPubkey: key.pk, serverPubkey: info.serverPubkey, expiryHeight });
    const fundingTxid = this.node.faucet(taproot.scriptPubKey, amount);
    const tx = this.node.getTransaction(fundingTxid)!;
    const vout = tx.vout.findIndex((o) => bytesEqual(o.scriptPubKey, taproot.scriptPubKey));
    const outpoint = { txid: reverseBytes(fromHex(fundingTxid)), vout };
    const exit = buildBoardExit({ userPubkey: key.pk, serverPubkey: info.serverPubkey, expiryHeight, exitDelta: info.vtxoExitDelta }, outpoint, amount, boardFee(info.fees.board, amount));
    const nonce = musigNonceGen({ pubkey: key.pk, secretKey: key.sk, aggregateKey: musigTweakedKey([key.pk, info.serverPubkey], exit.tweak), message: exit.sighash });
    const request: BoardCosignReq = { amount, utxo: encodeOutPoint(outpoint), expiryHeight, userPubkey: key.pk, pubNonce: nonce.pubNonce, fundingTx: tx.raw };
    return { key, amount, expiryHeight, fundingTxid, fundingRaw: tx.raw, vout, request, nonce, exit };
  }

  /**
   * A board request whose funding tx is built here, unsigned, spending `inputs` (the server only
   * checks the funding tx's shape and that its inputs' parents are known, not its signatures).
   */
  async prepareUnsignedBoard(amount: bigint, inputs: { txid: Uint8Array; vout: number }[]): Promise<PreparedBoard> {
    const info = await this.api.arkInfo();
    const key = this.key();
    const expiryHeight = this.node.tipHeight() + info.vtxoLifetime;
    const taproot = boardFundingTaproot({ userPubkey: key.pk, serverPubkey: info.serverPubkey, expiryHeight });
    const tx: Transaction = {
      version: 2,
      locktime: 0,
      inputs: inputs.map((prevout) => ({ prevout, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] })),
      outputs: [{ value: amount, script: taproot.scriptPubKey }],
    };
    const outpoint = { txid: txid(tx), vout: 0 };
    const exit = buildBoardExit({ userPubkey: key.pk, serverPubkey: info.serverPubkey, expiryHeight, exitDelta: info.vtxoExitDelta }, outpoint, amount, boardFee(info.fees.board, amount));
    const nonce = musigNonceGen({ pubkey: key.pk, secretKey: key.sk, aggregateKey: musigTweakedKey([key.pk, info.serverPubkey], exit.tweak), message: exit.sighash });
    const raw = encodeTx(tx);
    const request: BoardCosignReq = { amount, utxo: encodeOutPoint(outpoint), expiryHeight, userPubkey: key.pk, pubNonce: nonce.pubNonce, fundingTx: raw };
    return { key, amount, expiryHeight, fundingTxid: toHex(reverseBytes(outpoint.txid)), fundingRaw: raw, vout: 0, request, nonce, exit };
  }

  /** Cosigns a prepared board and returns its (unregistered) VTXO. */
  async cosignBoard(b: PreparedBoard): Promise<Vtxo> {
    const info = await this.api.arkInfo();
    const resp = await this.api.requestBoardCosign(b.request, 5);
    const sig = musigCompleteCosign({ secretKey: b.key.sk, pubkey: b.key.pk, nonce: b.nonce, otherPubkey: info.serverPubkey, response: resp, message: b.exit.sighash, tweak: b.exit.tweak });
    return boardVtxo(b.exit, sig);
  }

  /** Full board: fund, cosign, confirm, register. */
  async board(amount: bigint): Promise<Vtxo> {
    const info = await this.api.arkInfo();
    const vtxo = await this.cosignBoard(await this.prepareBoard(amount));
    this.node.mine(info.requiredBoardConfirmations);
    await this.api.registerBoardVtxo(encodeVtxo(vtxo));
    return vtxo;
  }

  /** Builds the package and the request parts (nonces kept for {@link finishArkoor}). */
  prepareArkoor(inputs: Vtxo[], outputs: { amount: bigint; policy: VtxoPolicy }[], opts: ArkoorPackageOptions = {}): { pkg: ArkoorPackage; nonces: MusigNonce[][]; parts: ArkoorPartReq[] } {
    const pkg = buildArkoorPackage(inputs, outputs, opts);
    const nonces = arkoorUserNonces(pkg, this.secretFor);
    const enc = (d: { amount: bigint; policy: VtxoPolicy }) => ({ totalAmount: d.amount, policy: encodePolicy(d.policy) });
    const parts = pkg.parts.map((part, k) => ({
      inputVtxoId: vtxoId(part.input),
      outputs: part.normal.map(enc),
      isolatedOutputs: part.isolated.map(enc),
      userPubNonces: nonces[k]!.map((n) => n.pubNonce),
      useCheckpoint: true,
      attestation: signAttestation(arkoorPartAttestation(part), this.secretFor(part.input.policy.userPubkey)),
    }));
    return { pkg, nonces, parts };
  }

  /** Verifies the server's answers and returns the signed output VTXOs. */
  finishArkoor(pkg: ArkoorPackage, nonces: MusigNonce[][], resp: { serverPubNonces: Uint8Array[]; serverPartialSigs: Uint8Array[] }[]): Vtxo[] {
    const responses = resp.map((p) => p.serverPubNonces.map((n, i) => ({ pubNonce: n, partialSig: p.serverPartialSigs[i]! })));
    return arkoorPackageVtxos(pkg, arkoorUserFinish(pkg, this.secretFor, nonces, responses)) as Vtxo[];
  }

  /** Pays `amount` to `recipient` (a pubkey) from `inputs`; change back to a new key. Registers all outputs. */
  async send(inputs: Vtxo[], amount: bigint, recipient: Uint8Array, opts: { changePieces?: number } = {}): Promise<{ sent: Vtxo[]; change: Vtxo[] }> {
    const total = inputs.reduce((s, v) => s + v.amount, 0n);
    const change = total - amount;
    const pieces = change > 0n ? splitEven(change, opts.changePieces ?? 1) : [];
    const changeKeys = pieces.map(() => this.key());
    const outputs = [{ amount, policy: pubkeyPolicy(recipient) }, ...pieces.map((a, i) => ({ amount: a, policy: pubkeyPolicy(changeKeys[i]!.pk) }))];
    const { pkg, nonces, parts } = this.prepareArkoor(inputs, outputs);
    const vtxos = this.finishArkoor(pkg, nonces, await this.api.requestArkoorCosign(parts));
    await this.api.registerVtxoTransactions(vtxos.map((v) => encodeVtxo(v)));
    const isOurs = (v: Vtxo) => changeKeys.some((k) => bytesEqual(k.pk, v.policy.userPubkey));
    return { sent: vtxos.filter((v) => !isOurs(v)), change: vtxos.filter(isOurs) };
  }

  /** A blinded mailbox id of this wallet for its VTXO key `key` (what an Ark address carries). */
  async blindedMailboxId(key: KeyPair): Promise<Uint8Array> {
    const info = await this.api.arkInfo();
    return blindMailboxId(this.mailbox.pk, info.mailboxPubkey, key.sk);
  }

  /** An encoded mailbox authorization valid for `secs` seconds. */
  authorization(secs = 60, mailbox: KeyPair = this.mailbox): Uint8Array {
    return encodeMailboxAuthorization(createMailboxAuthorization(mailbox.sk, BigInt(Math.floor(Date.now() / 1000) + secs)));
  }
}

/** A `pubkey` policy. */
export function pubkeyPolicy(pk: Uint8Array): VtxoPolicy {
  return { type: "pubkey", userPubkey: pk };
}

function splitEven(total: bigint, n: number): bigint[] {
  const base = total / BigInt(n);
  return Array.from({ length: n }, (_, i) => (i === n - 1 ? total - base * BigInt(n - 1) : base));
}
