import { AsyncLock, LeanSql, type Database } from "@tender/core";
import type { BIP32Interface } from "bip32";
import { ARK_PURPOSE, RecentMap, toHex, type DerivedKey } from "@tender/ark-protocol";
import { ArkKeyRow } from "../persistence/entities.js";

/** A VTXO key the wallet handed out, with its index under `m/350'/0'`. */
export interface VtxoKey extends DerivedKey {
  readonly index: number;
}

/** Keys made without a wallet's master: nothing can be derived. */
export class NoWalletKeysError extends Error {
  constructor() {
    super("No wallet set");
  }
}

function derived(node: BIP32Interface, path: string): DerivedKey {
  if (!node.privateKey) throw new Error(`key ${path} has no private key`);
  return { path, secretKey: Uint8Array.from(node.privateKey), publicKey: Uint8Array.from(node.publicKey) };
}

/** Most VTXO keys kept in memory, by public key and derived (with their secrets): the recently used ones. */
export const KEPT_KEYS = 4_096;

/** Options of {@link ArkKeys}. */
export interface ArkKeysOptions {
  /** Most keys kept in memory (default {@link KEPT_KEYS}). */
  readonly keptKeys?: number;
}

/**
 * A loaded wallet's Ark keys (the wallet service `ArkKeysService`): VTXO keys `m/350'/0'/i` (the
 * same tree as the protocol core's `WalletKeys`, derived from the wallet's BIP-32 master) and the
 * mailbox key `m/350'/1'`. The next index is persisted (`ark_key`) before a key is handed out, so
 * an index is never reused; handing out and claiming run one at a time.
 *
 * Loading reads only the highest index handed out: a wallet hands out a key for every payment's
 * change and every address, and reading all of them at each start grew with its history (200,000
 * keys: 1.4 s and a 345 MB peak of heap). Which handed-out key a public key is, is answered from
 * the {@link KEPT_KEYS} most recently used (every key handed out by this process goes there
 * first), else by the unique index on `ark_key.pubkey`.
 */
export class ArkKeys {
  private readonly arkNode: BIP32Interface | undefined;
  /** Handed-out keys recently used: public key (hex) → index. */
  private readonly byPubkey: RecentMap<string, number>;
  private nextIndex = 0;
  private readonly lock = new AsyncLock();
  /** Keys derived recently, by index (a derivation costs a hardened step and a point multiplication). */
  private readonly derivedKeys: RecentMap<number, VtxoKey>;
  private branch: BIP32Interface | undefined;
  private mailbox: DerivedKey | undefined;
  private recovery: DerivedKey | undefined;
  private readonly sql: LeanSql;

  /** Keys of the wallet whose BIP-32 master is `master`; without one, every derivation throws {@link NoWalletKeysError}. */
  constructor(private readonly db: Database, master?: BIP32Interface, opts: ArkKeysOptions = {}) {
    this.arkNode = master?.deriveHardened(ARK_PURPOSE);
    this.sql = new LeanSql(db, "ark_key");
    this.byPubkey = new RecentMap(opts.keptKeys ?? KEPT_KEYS);
    this.derivedKeys = new RecentMap(opts.keptKeys ?? KEPT_KEYS);
  }

  /** The keys of the wallet whose BIP-32 master is `master`, going on after the highest index it handed out so far. */
  static async load(db: Database, master: BIP32Interface, opts: ArkKeysOptions = {}): Promise<ArkKeys> {
    const keys = new ArkKeys(db, master, opts);
    const [row] = await keys.sql.all<{ last: unknown }>("select max(key_index) as last from {t}");
    keys.nextIndex = row?.last == null ? 0 : Number(row.last) + 1;
    return keys;
  }

  /** How many handed-out keys are kept in memory (tests). */
  get keptKeys(): number {
    return this.byPubkey.size;
  }

  private node(): BIP32Interface {
    if (!this.arkNode) throw new NoWalletKeysError();
    return this.arkNode;
  }

  /** The VTXO key at `index`, whether or not it was handed out. */
  deriveVtxoKey(index: number): VtxoKey {
    const known = this.derivedKeys.get(index);
    if (known) return known;
    this.branch ??= this.node().deriveHardened(0);
    const key: VtxoKey = Object.freeze({ ...derived(this.branch.derive(index), `m/350'/0'/${index}`), index });
    this.derivedKeys.set(index, key);
    return key;
  }

  /** The mailbox key `m/350'/1'` (its pubkey is the wallet's unified mailbox id). */
  mailboxKey(): DerivedKey {
    return (this.mailbox ??= Object.freeze(derived(this.node().deriveHardened(1), "m/350'/1'")));
  }

  /** The recovery mailbox key `m/350'/2'` (VTXO ids are backed up in its mailbox). */
  recoveryMailboxKey(): DerivedKey {
    return (this.recovery ??= Object.freeze(derived(this.node().deriveHardened(2), "m/350'/2'")));
  }

  /** Hands out the next unused VTXO key, persisting its index first. */
  async nextVtxoKey(): Promise<VtxoKey> {
    return (await this.nextVtxoKeys(1))[0]!;
  }

  /**
   * Hands out the next `n` unused VTXO keys, all persisted in one write first (a payment's change
   * keys). `skip` keys are derived and handed out but not returned (a key equal to the payee's).
   */
  nextVtxoKeys(n: number, skip: (key: VtxoKey) => boolean = () => false): Promise<VtxoKey[]> {
    return this.lock.run(async () => {
      const { keys, out } = this.deriveNext(n, skip);
      if (keys.length === 0) return out;
      const em = this.db.em();
      for (const key of keys) em.create(ArkKeyRow, { keyIndex: key.index, pubkey: toHex(key.publicKey) });
      await em.flush();
      this.handOut(keys);
      return out;
    });
  }

  /**
   * Like {@link nextVtxoKeys}, but the keys are only reserved here: this process never hands
   * them out again, and `persist` records them, in whatever transaction the caller runs it (the
   * one storing the payment that uses them as change keys, so both commit together). Keys whose
   * `persist` never committed were used by nothing that was stored; after a restart they may be
   * handed out again.
   */
  reserveVtxoKeys(n: number, skip: (key: VtxoKey) => boolean = () => false): Promise<{ keys: VtxoKey[]; persist: () => Promise<void> }> {
    return this.lock.run(async () => {
      const { keys, out } = this.deriveNext(n, skip);
      this.handOut(keys);
      const persist = async (): Promise<void> => {
        if (keys.length === 0) return;
        await this.sql.run(
          `insert into {t} (key_index, pubkey) values ${keys.map(() => "(?, ?)").join(", ")} on conflict (key_index) do nothing`,
          keys.flatMap((k) => [k.index, toHex(k.publicKey)]),
        );
      };
      return { keys: out, persist };
    });
  }

  /** The next keys from the first unused index: `n` returned, and with them every one derived (`skip`ped ones included). */
  private deriveNext(n: number, skip: (key: VtxoKey) => boolean): { keys: VtxoKey[]; out: VtxoKey[] } {
    const keys: VtxoKey[] = [];
    const out: VtxoKey[] = [];
    for (let index = this.nextIndex; out.length < n; index++) {
      const key = this.deriveVtxoKey(index);
      keys.push(key);
      if (!skip(key)) out.push(key);
    }
    return { keys, out };
  }

  private handOut(keys: readonly VtxoKey[]): void {
    if (keys.length === 0) return;
    for (const key of keys) this.byPubkey.set(toHex(key.publicKey), key.index);
    this.nextIndex = keys.at(-1)!.index + 1;
    this.deriveAhead(keys.length);
  }

  /**
   * Derives the next `n` keys once the current work yields (a payment waits for its server
   * calls then), so the next payment's change keys are ready when it asks. Nothing is handed out.
   */
  private deriveAhead(n: number): void {
    const from = this.nextIndex;
    setImmediate(() => {
      try {
        for (let i = from; i < from + n; i++) this.deriveVtxoKey(i);
      } catch {
        // no master (keys without a wallet): nothing to derive ahead
      }
    });
  }

  /** The handed-out VTXO key at `index`, or `undefined` if that index was never handed out. */
  async peekVtxoKey(index: number): Promise<VtxoKey | undefined> {
    if (!Number.isInteger(index) || index < 0 || index >= this.nextIndex) return undefined;
    const key = this.deriveVtxoKey(index);
    return (await this.indexOf(toHex(key.publicKey))) === index ? key : undefined;
  }

  /** The handed-out VTXO key whose public key is `pubkey` (33 bytes or hex), or `undefined`. */
  async keyByPubkey(pubkey: Uint8Array | string): Promise<VtxoKey | undefined> {
    const index = await this.indexOf(typeof pubkey === "string" ? pubkey.toLowerCase() : toHex(pubkey));
    return index === undefined ? undefined : this.deriveVtxoKey(index);
  }

  /** Whether `pubkey` is one of the wallet's handed-out VTXO keys. */
  async isOwnPubkey(pubkey: Uint8Array | string): Promise<boolean> {
    return (await this.indexOf(typeof pubkey === "string" ? pubkey.toLowerCase() : toHex(pubkey))) !== undefined;
  }

  /**
   * The index of the handed-out key whose public key is `hex`: a key this process handed out or
   * used lately is kept; any other is read (`ark_key`'s unique index on the public key). A key
   * reserved by {@link reserveVtxoKeys} is kept from the moment it is handed out, before the
   * transaction recording it commits.
   */
  private async indexOf(hex: string): Promise<number | undefined> {
    const kept = this.byPubkey.get(hex);
    if (kept !== undefined) return kept;
    const [row] = await this.sql.all<{ key_index: unknown }>("select key_index from {t} where pubkey = ?", [hex]);
    if (row === undefined) return undefined;
    return this.byPubkey.set(hex, Number(row.key_index));
  }

  /** The first VTXO key index never handed out: where a scan for the keys of a restored wallet starts. */
  get nextUnusedIndex(): number {
    return this.nextIndex;
  }

  /**
   * Records every VTXO key index up to `index` as handed out (a restored wallet that found a VTXO
   * of key `index` knows the keys before it were handed out too: the wallet hands them out in
   * order). Indexes already recorded stay as they are.
   */
  revealUpTo(index: number): Promise<void> {
    return this.lock.run(async () => {
      if (index < this.nextIndex) return;
      const em = this.db.em();
      const branch = this.node().deriveHardened(0);
      const known = new Set((await em.find(ArkKeyRow, { keyIndex: { $gte: this.nextIndex, $lte: index } })).map((r) => r.keyIndex));
      const added: [string, number][] = [];
      for (let i = this.nextIndex; i <= index; i++) {
        const hex = toHex(branch.derive(i).publicKey);
        if (!known.has(i)) em.create(ArkKeyRow, { keyIndex: i, pubkey: hex });
        added.push([hex, i]);
      }
      await em.flush();
      for (const [hex, i] of added) this.byPubkey.set(hex, i);
      this.nextIndex = index + 1;
    });
  }

  /**
   * Finds the VTXO key of `pubkey` among the first `scanLimit` indexes (restores on a fresh
   * wallet of the same seed hand out no keys yet) and records it as handed out. Returns it, or
   * `undefined` when the seed has no such key in that range.
   */
  async claimKey(pubkey: Uint8Array, scanLimit = 1000): Promise<VtxoKey | undefined> {
    const known = await this.keyByPubkey(pubkey);
    if (known) return known;
    return this.lock.run(async () => {
      const hex = toHex(pubkey);
      const branch = this.node().deriveHardened(0);
      for (let i = 0; i < scanLimit; i++) {
        if (toHex(branch.derive(i).publicKey) !== hex) continue;
        const em = this.db.em();
        if (!(await em.findOne(ArkKeyRow, { keyIndex: i }))) {
          em.create(ArkKeyRow, { keyIndex: i, pubkey: hex });
          await em.flush();
        }
        this.byPubkey.set(hex, i);
        this.nextIndex = Math.max(this.nextIndex, i + 1);
        return this.deriveVtxoKey(i);
      }
      return undefined;
    });
  }
}
