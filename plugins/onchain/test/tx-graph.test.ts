import { expect } from "chai";
import { masterKey } from "@tender/plugin-wallet";
import { Transaction } from "bitcoinjs-lib";
import { Bip86Keychain, WalletTxGraph, type StoredTx } from "../src/index.js";

const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("wallet transaction graph: balances and which coins may be spent", () => {
  const keychain = new Bip86Keychain(masterKey(MNEMONIC), "regtest");
  keychain.deriveUpTo(4);
  const own = keychain.key(0).script;
  const foreign = Buffer.from("0014" + "22".repeat(20), "hex");
  let seq = 0;

  /** A transaction spending `from` (txid:vout, or a fresh foreign outpoint) and paying `outs`. */
  function make(graph: WalletTxGraph, opts: { from?: [string, number]; outs: [Uint8Array, bigint][]; version?: number; coinbase?: boolean;
    state?: StoredTx["state"]; origin?: StoredTx["origin"]; height?: number }): string {
    const t = new Transaction();
    t.version = opts.version ?? 2;
    if (opts.coinbase) t.addInput(new Uint8Array(32), 0xffffffff, 0xffffffff, Buffer.from([1, seq++]));
    else if (opts.from) t.addInput(Buffer.from(opts.from[0], "hex").reverse(), opts.from[1]);
    else t.addInput(new Uint8Array(32).fill(++seq), 0);
    for (const [script, value] of opts.outs) t.addOutput(script, value);
    const state = opts.state ?? "confirmed";
    graph.put({
      txid: t.getId(), hex: t.toHex(), origin: opts.origin ?? "external", state,
      block: state === "confirmed" ? { height: opts.height ?? 10, hash: "aa".repeat(32), time: 0 } : null,
      feeSat: null, isCpfp: false, firstSeenMs: seq, lastBroadcastMs: null, held: false,
    });
    return t.getId();
  }

  it("splits the balance into confirmed, immature coinbase, trusted and untrusted pending, ignoring conflicted and spent outputs", () => {
    const g = new WalletTxGraph(keychain);
    const a = make(g, { outs: [[own, 10_000n]] });
    make(g, { coinbase: true, outs: [[own, 5_000n]], height: 50 });
    make(g, { outs: [[own, 3_000n]], state: "pending" });
    const send = make(g, { from: [a, 0], outs: [[foreign, 6_000n], [own, 3_500n]], state: "pending", origin: "wallet" });
    make(g, { outs: [[own, 999n]], state: "conflicted" });
    expect(g.balance(100)).to.deep.equal({ confirmed: 0n, immature: 5_000n, trustedPending: 3_500n, untrustedPending: 3_000n });
    expect(g.balance(149).immature).to.equal(0n);
    expect(g.balance(149).confirmed).to.equal(5_000n);
    const summary = g.summaries().find((s) => s.txid === send)!;
    expect(summary.balanceChangeSat).to.equal(3_500n - 10_000n);
    expect(g.summaries()).to.have.length(4);
  });

  it("never offers others' unconfirmed payments, immature coinbase, or change of a v3 transaction; confirmedOnly offers confirmed coins only", () => {
    const g = new WalletTxGraph(keychain);
    const conf = make(g, { outs: [[own, 10_000n]] });
    make(g, { coinbase: true, outs: [[own, 5_000n]], height: 95 });
    make(g, { outs: [[own, 3_000n]], state: "pending" });
    const v2 = make(g, { outs: [[own, 4_000n]], state: "pending", origin: "wallet" });
    make(g, { outs: [[own, 4_100n]], state: "pending", origin: "wallet", version: 3 });
    expect(g.spendable(100).map((u) => u.txid).sort()).to.deep.equal([conf, v2].sort());
    expect(g.spendable(100, true).map((u) => u.txid)).to.deep.equal([conf]);
  });

  it("stops offering unconfirmed change once its chain reaches the mempool's ancestor limit", () => {
    const g = new WalletTxGraph(keychain);
    let prev = make(g, { outs: [[own, 100_000n]] });
    for (let i = 0; i < 23; i++) prev = make(g, { from: [prev, 0], outs: [[own, BigInt(99_000 - i * 100)]], state: "pending", origin: "wallet" });
    expect(g.unconfirmedAncestry(prev)).to.equal(23);
    expect(g.spendable(100).map((u) => u.txid)).to.deep.equal([prev]);
    prev = make(g, { from: [prev, 0], outs: [[own, 90_000n]], state: "pending", origin: "wallet" });
    expect(g.unconfirmedAncestry(prev)).to.equal(24);
    expect(g.spendable(100)).to.deep.equal([]);
  });
});
