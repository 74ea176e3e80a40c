/**
 * The server's VTXO pool: server-owned VTXOs that fund the HTLC-recv VTXOs of Lightning
 * receives.
 *
 * Issuance is board-style: one funding tx from the rounds wallet pays a board funding output per
 * new pool VTXO, each for the pool key P (derived from the server seed) and the server key S;
 * the server signs every exit tx for both keys, so each pool VTXO is an ordinary `pubkey(P)`
 * VTXO of this server with a normal genesis (the funding tx is its chain anchor). The signed
 * funding tx, the exit txs and the VTXOs are stored before the broadcast; unconfirmed issuances
 * are broadcast again at every check and their wallet inputs are held from other spends.
 *
 * The first issuance happens when a grant finds the pool empty (a server that never receives
 * Lightning never spends from its wallet for it); from then on the background keeps the targets.
 *
 * A grant picks pool VTXOs by earliest expiry (skipping those that expire within the
 * pre-expiry window, deeper than the pool's depth cap, or dust) and builds an arkoor without
 * checkpoints to the HTLC-recv policy plus one change output back to P, signed by the server for
 * both roles. The change stays in the pool (a later grant skips it once it is too deep).
 */
import {
  arkoorPackageVtxos,
  arkoorServerCosign,
  arkoorUserFinish,
  arkoorUserNonces,
  boardFundingTaproot,
  boardVtxo,
  decodeTx,
  buildArkoorPackage,
  buildBoardExit,
  encodeTx,
  encodeVtxo,
  formatOutPoint,
  musigCompleteCosign,
  musigNonceGen,
  musigRespondCosignDeterministic,
  musigTweakedKey,
  pubkeyFromSecret,
  signedBoardExitTx,
  taggedHash,
  toHex,
  txid,
  utf8,
  reverseBytes,
  VTXO_DUST_SAT,
  type HtlcReceivePolicy,
  type Transaction,
  type TxOut,
  type Vtxo,
} from "@tender/ark-protocol";
import type { ServerContext } from "../server-context.js";
import { vtxoFromBytes } from "../request-decoding.js";
import { signRoundFunding, trustedWalletCoins, type WalletCoin } from "../rounds/round-funding.js";
import type { RoundStore } from "../rounds/round-store.js";
import { receiveSettings } from "./receive-settings.js";
import type { Row } from "../server-store.js";

/** Nothing in the pool covers the amount. */
export class PoolEmptyError extends Error {
  constructor() {
    super("vtxo pool is empty");
  }
}

/** What a grant produced (not yet stored). */
export interface PoolGrant {
  readonly inputs: { id: string; spendTxid: string }[];
  readonly htlcs: Vtxo[];
  readonly change: Vtxo[];
  readonly txs: { txid: string; raw: Uint8Array }[];
}

const DUMMY_SIG = new Uint8Array(64);
const txidHex = (t: Transaction) => toHex(reverseBytes(txid(t)));
const now = () => new Date().toISOString();

/** The pool. */
export class VtxoPool {
  readonly secretKey: Uint8Array;
  readonly pubkey: Uint8Array;

  constructor(
    private readonly ctx: ServerContext,
    private readonly rounds: RoundStore,
  ) {
    this.secretKey = taggedHash("tender/ark-server/key", ctx.keys.seed, utf8("vtxo-pool"));
    this.pubkey = pubkeyFromSecret(this.secretKey);
  }

  /** Wallet coins spent by pool issuances that are not confirmed yet (held from rounds and offboards). */
  async heldWalletCoins(): Promise<Set<string>> {
    const out = new Set<string>();
    for (const raw of await this.unconfirmedIssues()) {
      const tx = decodeTx(raw.tx);
      for (const i of tx.inputs) out.add(`${toHex(reverseBytes(i.prevout.txid))}:${i.prevout.vout}`);
    }
    return out;
  }

  /** Pool VTXOs a grant may use now, earliest expiry first. */
  async available(): Promise<Vtxo[]> {
    const s = receiveSettings(this.ctx.config);
    const tip = await this.ctx.chain.tipHeight();
    const rows = (await this.ctx.store.read((sql) => sql.execute("select vtxo from ark_server_vtxo where user_pubkey = ? and state = 'spendable'", [toHex(this.pubkey)], "all"))) as Row[];
    return rows
      .map((r) => vtxoFromBytes(r.vtxo as Uint8Array))
      .filter((v) => v.expiryHeight > tip + s.poolPreExpiry && v.genesis.length <= s.poolMaxExitDepth && v.amount >= VTXO_DUST_SAT)
      .sort((a, b) => a.expiryHeight - b.expiryHeight || (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0));
  }

  /** Builds (does not store) a grant of `amount` to `policy`; throws {@link PoolEmptyError} when the pool cannot cover it. */
  async buildGrant(amount: bigint, policy: HtlcReceivePolicy): Promise<PoolGrant> {
    const picked: Vtxo[] = [];
    let sum = 0n;
    for (const v of await this.available()) {
      if (sum >= amount) break;
      picked.push(v);
      sum += v.amount;
    }
    if (sum < amount || picked.length === 0) throw new PoolEmptyError();
    const outputs = [{ amount, policy }, ...(sum > amount ? [{ amount: sum - amount, policy: { type: "pubkey" as const, userPubkey: this.pubkey } }] : [])];
    const pkg = buildArkoorPackage(picked, outputs, { useCheckpoint: false, maxExitDepth: Number.MAX_SAFE_INTEGER });
    const keyFor = () => this.secretKey;
    const nonces = arkoorUserNonces(pkg, keyFor);
    const responses = arkoorServerCosign(pkg, this.ctx.keys.serverSecret, nonces.map((p) => p.map((n) => n.pubNonce)));
    const sigs = arkoorUserFinish(pkg, keyFor, nonces, responses);
    const vtxos = arkoorPackageVtxos(pkg, sigs);
    const txs = pkg.parts.flatMap((part, k) =>
      part.signing.map((s, i) => {
        const signed: Transaction = { ...s.tx, inputs: s.tx.inputs.map((input) => ({ ...input, witness: [sigs[k]![i]!] })) };
        return { txid: txidHex(s.tx), raw: encodeTx(signed) };
      }),
    );
    return {
      inputs: pkg.parts.map((p) => ({ id: formatOutPoint(p.input.point), spendTxid: txidHex(p.arkoorTxs[0]!) })),
      htlcs: vtxos.filter((v) => v.policy.type === policy.type),
      change: vtxos.filter((v) => v.policy.type === "pubkey"),
      txs,
    };
  }

  /** Whether the pool was ever issued (the background top-up only keeps an existing pool filled). */
  async everIssued(): Promise<boolean> {
    const rows = (await this.ctx.store.read((sql) => sql.execute("select 1 as x from ark_server_ln_pool_issue limit 1", [], "all"))) as Row[];
    return rows.length > 0;
  }

  /**
   * Issues new pool VTXOs where a target fell below its threshold (`force`: below its count);
   * rebroadcasts unconfirmed issuances. Returns the new funding txid, if any.
   */
  async topUp(force = false): Promise<string | undefined> {
    await this.rebroadcast();
    const s = receiveSettings(this.ctx.config);
    const avail = await this.available();
    const amounts: bigint[] = [];
    for (const t of s.poolTargets) {
      const have = avail.filter((v) => v.amount >= t.amountSat).length;
      if (force ? have < t.count : have * 100 < t.count * s.poolIssueThresholdPct) for (let i = have; i < t.count; i++) amounts.push(t.amountSat);
    }
    if (amounts.length === 0) return undefined;
    return this.issue(amounts);
  }

  /** One issuance: a funding tx with one board-style output per amount, stored then broadcast. */
  async issue(amounts: readonly bigint[]): Promise<string> {
    const s = receiveSettings(this.ctx.config);
    const tip = await this.ctx.chain.tipHeight();
    const expiryHeight = tip + s.poolVtxoLifetime;
    const serverPubkey = this.ctx.keys.serverPubkey;
    const params = { userPubkey: this.pubkey, serverPubkey, expiryHeight, exitDelta: this.ctx.config.vtxoExitDelta };
    const script = boardFundingTaproot(params).scriptPubKey;
    const funding = await this.fund(amounts.map((value) => ({ value, script })));
    const signedFunding = signRoundFunding(this.ctx, funding);
    const fundingTxid = txid(signedFunding);
    const exits = amounts.map((amount, vout) => {
      const exit = buildBoardExit(params, { txid: fundingTxid, vout }, amount, 0n);
      const nonce = musigNonceGen({ pubkey: this.pubkey, secretKey: this.secretKey, aggregateKey: musigTweakedKey([this.pubkey, serverPubkey], exit.tweak), message: exit.sighash });
      const response = musigRespondCosignDeterministic({ secretKey: this.ctx.keys.serverSecret, pubkey: serverPubkey, otherPubkey: this.pubkey, otherPubNonce: nonce.pubNonce, message: exit.sighash, tweak: exit.tweak });
      const sig = musigCompleteCosign({ secretKey: this.secretKey, pubkey: this.pubkey, nonce, otherPubkey: serverPubkey, response, message: exit.sighash, tweak: exit.tweak });
      return { vtxo: boardVtxo(exit, sig), tx: signedBoardExitTx(exit, sig) };
    });
    const fundingHex = toHex(reverseBytes(fundingTxid));
    const raw = encodeTx(signedFunding);
    await this.ctx.store.write(async (sql) => {
      await sql.execute("insert into ark_server_ln_pool_issue (txid, tx, confirmed, created_at) values (?, ?, 0, ?)", [fundingHex, Buffer.from(raw), now()], "run");
      await sql.execute("insert into ark_server_tx (txid, tx, signed, is_funding) values (?, ?, 1, 1) on conflict (txid) do nothing", [fundingHex, Buffer.from(raw)], "run");
      for (const e of exits) {
        await sql.execute("insert into ark_server_tx (txid, tx, signed, is_funding) values (?, ?, 1, 0) on conflict (txid) do nothing", [txidHex(e.tx), Buffer.from(encodeTx(e.tx))], "run");
        await sql.execute(
          "insert into ark_server_vtxo (vtxo_id, vtxo, state, user_pubkey, policy_type, created_at) values (?, ?, 'spendable', ?, 'pubkey', ?)",
          [formatOutPoint(e.vtxo.point), Buffer.from(encodeVtxo(e.vtxo)), toHex(this.pubkey), now()],
          "run",
        );
      }
    });
    this.ctx.logger.info(`vtxo pool: issued ${amounts.length} vtxo(s) (${amounts.join(", ")} sat) in ${fundingHex}`);
    await this.broadcast(fundingHex, raw);
    return fundingHex;
  }

  private async fund(outputs: readonly TxOut[]): Promise<{ tx: Transaction; coins: readonly WalletCoin[] }> {
    const coins = (await trustedWalletCoins(this.ctx, this.rounds)).sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1));
    const rate = this.ctx.config.regularFeeRateSatPerVb;
    const target = outputs.reduce((s, o) => s + o.value, 0n);
    const change: TxOut = { value: 0n, script: this.ctx.keys.walletScript };
    const picked: WalletCoin[] = [];
    let total = 0n;
    for (const c of coins) {
      picked.push(c);
      total += c.amount;
      const fee = BigInt(Math.ceil(vsize(txOf(picked, [...outputs, change])) * rate));
      if (total < target + fee) continue;
      const left = total - target - fee;
      return { tx: txOf(picked, left >= VTXO_DUST_SAT ? [...outputs, { ...change, value: left }] : [...outputs]), coins: picked };
    }
    throw new Error(`vtxo pool: the server wallet cannot fund ${target} sat of pool vtxos`);
  }

  private async unconfirmedIssues(): Promise<{ txid: string; tx: Uint8Array }[]> {
    const rows = (await this.ctx.store.read((sql) => sql.execute("select txid, tx from ark_server_ln_pool_issue where confirmed = 0", [], "all"))) as Row[];
    return rows.map((r) => ({ txid: String(r.txid), tx: r.tx as Uint8Array }));
  }

  private async rebroadcast(): Promise<void> {
    for (const r of await this.unconfirmedIssues()) {
      const status = await this.ctx.chain.getTxStatus(r.txid);
      if (status?.confirmed) {
        await this.ctx.store.write((sql) => sql.execute("update ark_server_ln_pool_issue set confirmed = 1 where txid = ?", [r.txid], "run"));
      } else if (!status) {
        await this.broadcast(r.txid, r.tx);
      }
    }
  }

  private async broadcast(txidText: string, raw: Uint8Array): Promise<void> {
    try {
      await this.ctx.chain.submitTransaction(raw);
    } catch (e) {
      this.ctx.logger.warn(`vtxo pool: broadcast of ${txidText} failed (retried later): ${String(e)}`);
    }
  }
}

function txOf(coins: readonly WalletCoin[], outputs: readonly TxOut[]): Transaction {
  return {
    version: 2,
    locktime: 0,
    inputs: coins.map((c) => ({ prevout: { txid: reverseBytes(Buffer.from(c.txid, "hex")), vout: c.vout }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] })),
    outputs: [...outputs],
  };
}

function vsize(tx: Transaction): number {
  const withSigs = { ...tx, inputs: tx.inputs.map((i) => ({ ...i, witness: [DUMMY_SIG] })) };
  return Math.ceil((encodeTx(withSigs, false).length * 3 + encodeTx(withSigs, true).length) / 4);
}
