import { expect } from "chai";
import { silentLogger, type ChainSource, type Database, type Logger } from "@tender/core";
import {
  displayHex, encodeOutPoint, encodeTx, encodeVtxo, parseOutPoint, toHex, txid, verifyAttestation, vtxoIdString, vtxoStatusAttestation,
  type Transaction, type Vtxo,
} from "@tender/ark-protocol";
import type { MailboxMessage, MailboxPage, MailboxReadRequest, VtxoSpendState } from "@tender/ark-protocol/server";
import { ArkKeys } from "../../src/daemon/keys/ark-keys.js";
import { RecoveryContributors } from "../../src/daemon/recovery/recovery-contributors.js";
import { RECOVERY_GAP_LIMIT } from "../../src/daemon/recovery/owner-matching.js";
import { recoverFromSeed, RECOVERY_RETRIES } from "../../src/daemon/recovery/seed-recovery.js";
import type { RecoveryReport } from "../../src/daemon/recovery/recovery-report.js";
import { VtxoStore } from "../../src/daemon/vtxos/vtxo-store.js";
import { MNEMONIC, masterOf, memoryDb, randomKey, signedBoard } from "./fixtures.js";

/** A recovery mailbox and the server's VTXOs, as the recovery sees them. */
class FakeRecoveryServer {
  messages: MailboxMessage[] = [];
  pageSize = 100;
  readonly vtxos = new Map<string, Uint8Array>();
  readonly states = new Map<string, VtxoSpendState>();
  failFetches = new Map<string, number>();
  reads: MailboxReadRequest[] = [];
  getVtxoCalls = 0;

  post(ids: readonly string[]): void {
    const checkpoint = BigInt(this.messages.length + 1) * 10n;
    this.messages.push({ kind: "recovery-vtxo-ids", checkpoint, vtxoIds: ids.map((id) => encodeOutPoint(parseOutPoint(id))) });
  }

  async readMailbox(r: MailboxReadRequest): Promise<MailboxPage> {
    this.reads.push(r);
    const after = this.messages.filter((m) => m.checkpoint > r.checkpoint);
    return { messages: after.slice(0, this.pageSize), haveMore: after.length > this.pageSize };
  }

  async getVtxo(id: Uint8Array): Promise<Uint8Array> {
    this.getVtxoCalls++;
    const key = toHex(id);
    const failing = this.failFetches.get(key) ?? 0;
    if (failing > 0) {
      this.failFetches.set(key, failing - 1);
      throw new Error("server unreachable");
    }
    const v = this.vtxos.get(key);
    if (!v) throw new Error("not found: vtxo not found");
    return v;
  }

  async getVtxoStatus(id: Uint8Array, attestation: Uint8Array): Promise<VtxoSpendState> {
    const v = this.owners.get(toHex(id));
    if (!v || !verifyAttestation(attestation, vtxoStatusAttestation(id), v)) throw new Error("bad user input: invalid VTXO status attestation");
    return this.states.get(toHex(id)) ?? "spendable";
  }

  readonly owners = new Map<string, Uint8Array>();

  /** Makes `vtxo` known to the server (fetchable, attested by its owner). */
  know(vtxo: Vtxo, state: VtxoSpendState = "spendable"): string {
    const id = vtxoIdString(vtxo);
    const key = toHex(encodeOutPoint(vtxo.point));
    this.vtxos.set(key, encodeVtxo(vtxo));
    this.owners.set(key, vtxo.policy.userPubkey);
    this.states.set(key, state);
    return id;
  }
}

describe("recovery from the seed: the recovery mailbox read back", () => {
  let db: Database;
  let keys: ArkKeys;
  let store: VtxoStore;
  let server: FakeRecoveryServer;
  let contributors: RecoveryContributors;
  const txs = new Map<string, { tx: Transaction; confirmedAt?: number }>();
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (m: string) => void warnings.push(m), child: () => logger };
  let checkpoint = 0n;
  const chain = {
    getTx: async (id: string) => {
      const t = txs.get(id);
      return t ? { txid: id, hex: toHex(encodeTx(t.tx)), status: { confirmed: false } } : null;
    },
    getTxStatus: async (id: string) => {
      const t = txs.get(id);
      if (!t) return null;
      return t.confirmedAt !== undefined ? { confirmed: true, block: { height: t.confirmedAt, hash: "00".repeat(32) }, blockTime: 0 } : { confirmed: false };
    },
  } as unknown as ChainSource;

  /** A board of the seed's key `index`, anchored on chain and known to the server. */
  const ownBoard = (index: number, amount: bigint, state: VtxoSpendState = "spendable", expiry = 900): string => {
    const k = keys.deriveVtxoKey(index);
    const b = signedBoard({ sk: k.secretKey, pk: k.publicKey }, amount, expiry);
    txs.set(displayHex(txid(b.funding)), { tx: b.funding });
    return server.know(b.vtxo, state);
  };
  const recover = (k: ArkKeys = keys) =>
    recoverFromSeed({ server, keys: k, chain, vtxos: store, contributors, logger, storeCheckpoint: async (cp) => void (checkpoint = cp) });
  const outcome = (r: RecoveryReport) => ({
    recovered: r.ids("recovered").sort(), skipped: r.ids("skipped").sort(), failed: r.ids("failed").sort(),
    foreign: r.ids("foreign").sort(), exited: r.ids("exited").sort(),
  });
  const none = { recovered: [], skipped: [], failed: [], foreign: [], exited: [] };

  beforeEach(async () => {
    db = await memoryDb();
    keys = await ArkKeys.load(db, masterOf(MNEMONIC));
    store = new VtxoStore(db);
    server = new FakeRecoveryServer();
    contributors = new RecoveryContributors();
    txs.clear();
    warnings.length = 0;
    checkpoint = 0n;
  });
  afterEach(() => db.close());

  it("stores the spendable VTXOs as spendable, skips those the server says spent, unclaimed or unregistered, and reports their sats", async () => {
    const a = ownBoard(0, 10_000n);
    const b = ownBoard(1, 20_000n);
    const spent = ownBoard(2, 30_000n, "spent");
    const unregistered = ownBoard(3, 40_000n, "unregistered");
    const unclaimed = ownBoard(4, 50_000n, "unclaimed");
    server.post([a, spent]);
    server.post([b, unregistered, unclaimed, a]);
    const report = await recover();
    expect(outcome(report)).to.deep.equal({ ...none, recovered: [a, b].sort(), skipped: [spent, unregistered, unclaimed].sort() });
    expect(report.totalSat("recovered")).to.equal(30_000n);
    expect(report.complete).to.equal(true);
    expect((await store.list(["spendable"])).map((v) => v.id).sort()).to.deep.equal([a, b].sort());
    expect(await store.get(spent)).to.equal(undefined);
    expect(checkpoint).to.equal(20n);
    // the keys up to the highest match are now handed out: the next address does not reuse them
    expect(keys.nextUnusedIndex).to.equal(5);
    expect((await keys.nextVtxoKey()).index).to.equal(5);
  });

  it("reads the mailbox page by page (page size 1), de-duplicating ids", async () => {
    server.pageSize = 1;
    const ids = [ownBoard(0, 10_000n), ownBoard(1, 11_000n), ownBoard(2, 12_000n)];
    for (const id of ids) server.post([id, ids[0]!]);
    const report = await recover();
    expect(report.ids("recovered").sort()).to.deep.equal([...ids].sort());
    expect(server.reads.map((r) => r.checkpoint)).to.deep.equal([0n, 10n, 20n]);
    expect(checkpoint).to.equal(30n);
  });

  it("stops paging when a page says more follow but moves the checkpoint nowhere", async () => {
    const id = ownBoard(0, 10_000n);
    server.post([id]);
    server.readMailbox = async (r) => {
      server.reads.push(r);
      return { messages: server.messages, haveMore: true };
    };
    const report = await recover();
    expect(report.ids("recovered")).to.deep.equal([id]);
    expect(server.reads).to.have.length(2);
    expect(warnings.some((w) => w.includes("moved past no checkpoint"))).to.equal(true);
  });

  it("finds VTXOs up to the gap limit past the last match, the window moving with each match; one beyond is foreign and leaves no key behind", async () => {
    const near = ownBoard(RECOVERY_GAP_LIMIT, 10_000n);
    const chained = ownBoard(2 * RECOVERY_GAP_LIMIT, 20_000n);
    const beyond = ownBoard(3 * RECOVERY_GAP_LIMIT + 2, 30_000n);
    server.post([chained, beyond, near]); // order does not matter
    const report = await recover();
    expect(outcome(report)).to.deep.equal({ ...none, recovered: [near, chained].sort(), foreign: [beyond] });
    expect(report.complete).to.equal(false);
    expect(keys.nextUnusedIndex).to.equal(2 * RECOVERY_GAP_LIMIT + 1);
    expect(warnings.some((w) => w.includes(beyond) && w.includes("gap limit"))).to.equal(true);
  });

  it("a VTXO of another seed in the mailbox is foreign; an undecodable id is ignored; both leave the wallet's own VTXO found", async () => {
    const own = ownBoard(0, 10_000n);
    const stranger = randomKey();
    const b = signedBoard(stranger, 5_000n, 900);
    txs.set(displayHex(txid(b.funding)), { tx: b.funding });
    const foreign = server.know(b.vtxo);
    server.post([own, foreign]);
    server.messages.push({ kind: "recovery-vtxo-ids", checkpoint: 30n, vtxoIds: [new Uint8Array([0xde, 0xad, 0xbe, 0xef])] });
    const report = await recover();
    expect(outcome(report)).to.deep.equal({ ...none, recovered: [own], foreign: [foreign] });
    expect(warnings.some((w) => w.includes("undecodable VTXO id of 4 bytes"))).to.equal(true);
  });

  it("a VTXO that fails validation (signature missing, anchor not on chain) is failed and not stored", async () => {
    const k = keys.deriveVtxoKey(0);
    const unsigned = signedBoard({ sk: k.secretKey, pk: k.publicKey }, 10_000n, 900, false);
    txs.set(displayHex(txid(unsigned.funding)), { tx: unsigned.funding });
    const bad = server.know(unsigned.vtxo);
    const k1 = keys.deriveVtxoKey(1);
    const unanchored = server.know(signedBoard({ sk: k1.secretKey, pk: k1.publicKey }, 10_000n, 900).vtxo);
    server.post([bad, unanchored]);
    const report = await recover();
    expect(outcome(report)).to.deep.equal({ ...none, failed: [bad, unanchored].sort() });
    expect(await store.listAll()).to.deep.equal([]);
    expect(warnings.some((w) => w.includes(bad) && /signature/.test(w))).to.equal(true);
  });

  it("retries failed fetches: a server that recovers within the retries gives the VTXO; one that never answers leaves it failed after 1 + 3 attempts", async () => {
    const flaky = ownBoard(0, 10_000n);
    const down = ownBoard(1, 20_000n);
    server.failFetches.set(toHex(encodeOutPoint(parseOutPoint(flaky))), 2);
    server.failFetches.set(toHex(encodeOutPoint(parseOutPoint(down))), 100);
    server.post([flaky, down]);
    const report = await recover();
    expect(outcome(report)).to.deep.equal({ ...none, recovered: [flaky], failed: [down] });
    expect(server.getVtxoCalls).to.equal(3 + (1 + RECOVERY_RETRIES));
  });

  it("a VTXO whose own transaction is confirmed is stored as exited and handed to the contributors; every contributor sees the report", async () => {
    const k = keys.deriveVtxoKey(0);
    const b = signedBoard({ sk: k.secretKey, pk: k.publicKey }, 10_000n, 900);
    txs.set(displayHex(txid(b.funding)), { tx: b.funding });
    txs.set(displayHex(b.vtxo.point.txid), { tx: b.funding, confirmedAt: 150 });
    const exitedId = server.know(b.vtxo);
    const live = ownBoard(1, 20_000n);
    server.post([exitedId, live]);
    const seen: { exited?: string[]; finished?: number } = {};
    contributors.register("exits", { exited: async (vs) => void (seen.exited = vs.map(vtxoIdString)) });
    contributors.register("other", {
      finished: async (r) => {
        seen.finished = r.count("recovered");
      },
    });
    contributors.register("broken", { finished: async () => Promise.reject(new Error("boom")) });
    const report = await recover();
    expect(outcome(report)).to.deep.equal({ ...none, recovered: [live], exited: [exitedId] });
    expect((await store.get(exitedId))?.state).to.equal("exited");
    expect(seen).to.deep.equal({ exited: [exitedId], finished: 1 });
    expect(warnings.some((w) => w.includes("plugin broken's contribution failed: boom"))).to.equal(true);
    expect(() => contributors.register("exits", {})).to.throw("plugin exits already contributes to recovery");
  });

  it("no spend state from the server is a failure, not a skip", async () => {
    const id = ownBoard(0, 10_000n, "unspecified");
    server.post([id]);
    expect(outcome(await recover())).to.deep.equal({ ...none, failed: [id] });
  });

  it("is repeatable: a second recovery into a fresh wallet of the same seed finds the same VTXOs and keys; run again on the same wallet it changes nothing", async () => {
    const ids = [ownBoard(0, 10_000n), ownBoard(7, 20_000n), ownBoard(3, 30_000n, "spent")];
    server.post(ids);
    const first = outcome(await recover());
    const firstKeys = keys.nextUnusedIndex;
    const again = outcome(await recover());
    expect(again).to.deep.equal(first);
    expect(keys.nextUnusedIndex).to.equal(firstKeys);
    const other = await memoryDb();
    try {
      const otherKeys = await ArkKeys.load(other, masterOf(MNEMONIC));
      const otherStore = new VtxoStore(other);
      const second = await recoverFromSeed({ server, keys: otherKeys, chain, vtxos: otherStore, contributors, logger, storeCheckpoint: async () => undefined });
      expect(outcome(second)).to.deep.equal(first);
      expect(otherKeys.nextUnusedIndex).to.equal(firstKeys);
      expect((await otherStore.listAll()).map((v) => v.id).sort()).to.deep.equal((await store.listAll()).map((v) => v.id).sort());
    } finally {
      await other.close();
    }
  });
});
