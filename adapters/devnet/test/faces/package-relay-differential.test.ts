import { BitcoindRpc } from "@tender/chain-bitcoind";
import { expect } from "chai";
import { TestWallet, sat, startBitcoind, type Coin } from "@tender/core/testing";
import { startDevnet, type Devnet } from "../../src/devnet.js";

const exe = process.env.BITCOIND_EXE;
const P2A = "51024e73";

/** The answer of a node to one case, reduced to what must be equal on both. */
type Verdict = Record<string, unknown>;

/** A node's RPC with mature coins of `w` to spend, one per case. */
interface Node {
  readonly rpc: BitcoindRpc;
  readonly coins: Coin[];
}

async function prepare(rpc: BitcoindRpc, w: TestWallet): Promise<Node> {
  const hashes = (await rpc.call("generatetoaddress", [130, w.address])) as string[];
  const coins: Coin[] = [];
  for (const h of hashes.slice(0, 30)) {
    const block = (await rpc.call("getblock", [h, 2])) as { tx: Array<{ txid: string; vout: Array<{ value: number }> }> };
    coins.push({ txid: block.tx[0]!.txid, vout: 0, valueSat: sat(block.tx[0]!.vout[0]!.value) });
  }
  return { rpc, coins };
}

/** What a call answered: its result, or bitcoind's error code and the reason before any detail. */
async function outcome(rpc: BitcoindRpc, method: string, params: unknown[]): Promise<{ ok: true; result: unknown } | { ok: false; code: number; reason: string }> {
  try {
    return { ok: true, result: await rpc.call(method, params) };
  } catch (e) {
    const err = e as { code?: number; rpcMessage?: string };
    return { ok: false, code: err.code ?? 0, reason: (err.rpcMessage ?? String(e)).split(",")[0]! };
  }
}

/** `submitpackage`'s answer without txids: the package message and each transaction's error, in package order. */
async function submitPackage(rpc: BitcoindRpc, hexes: string[], txids: string[]): Promise<Verdict> {
  const r = await outcome(rpc, "submitpackage", [hexes]);
  if (!r.ok) return { code: r.code, reason: r.reason };
  const res = r.result as { package_msg: string; "tx-results": Record<string, { txid: string; error?: string; fees?: { base: number; "effective-feerate"?: number } }> };
  const byTxid = new Map(Object.values(res["tx-results"]).map((t) => [t.txid, t]));
  return {
    msg: res.package_msg,
    results: txids.map((t) => {
      const x = byTxid.get(t);
      return x === undefined ? "absent" : (x.error ?? { base: x.fees?.base, effective: x.fees?.["effective-feerate"] });
    }),
  };
}

async function inMempool(rpc: BitcoindRpc, txids: string[]): Promise<boolean[]> {
  const pool = new Set((await rpc.call("getrawmempool")) as string[]);
  return txids.map((t) => pool.has(t));
}

/**
 * Package relay as the exits depend on it, compared between the devnet's bitcoind-RPC face and a
 * real Bitcoin Core: TRUC (v3) parents with pay-to-anchor outputs, ephemeral dust, `submitpackage`,
 * CPFP of a parent already in the mempool, TRUC sibling eviction. Each case builds the same
 * transactions on both nodes (from coins of the same wallet) and expects the same verdicts.
 */
describe("devnet package relay compared with a real bitcoind (TRUC, P2A anchors, submitpackage, CPFP)", function () {
  this.timeout(120_000);
  if (!exe) {
    it("gives Core's verdicts on TRUC packages with anchors", function () {
      console.log("      skipped: BITCOIND_EXE is not set, so there is no Bitcoin Core to compare the devnet's package relay with");
      this.skip();
    });
    return;
  }
  let devnet: Devnet;
  let core: Awaited<ReturnType<typeof startBitcoind>>;
  let dev: Node;
  let real: Node;
  const w = new TestWallet("package-relay-diff");

  before(async () => {
    devnet = await startDevnet({ seed: "package-relay-diff", premineBlocks: 0 });
    // Core master relays from 0.1 sat/vB; the devnet keeps the 1 sat/vB floor of the nodes most
    // Esplora servers run, so Core is started with that floor and the rules themselves are compared.
    core = await startBitcoind(exe, { args: ["-minrelaytxfee=0.00001", "-incrementalrelayfee=0.00001"] });
    dev = await prepare(new BitcoindRpc(devnet.rpcUrl, { url: devnet.rpcUrl, auth: { cookieFile: devnet.cookieFile } }), w);
    real = await prepare(new BitcoindRpc(core.url, { url: core.url, auth: { cookieFile: core.cookieFile } }), w);
  });
  after(async () => {
    await devnet?.stop();
    await core?.stop();
  });

  /** Runs `scenario` on both nodes and expects equal verdicts; returns Core's. */
  const same = async (name: string, scenario: (n: Node) => Promise<Verdict>): Promise<Verdict> => {
    // The nodes' coinbases differ, so do the txids in their messages; a zero-fee parent's relay
    // minimum is its size in sat, and its ECDSA signatures (71 or 72 bytes) may differ by 1 vB.
    const norm = (v: Verdict): Verdict =>
      JSON.parse(JSON.stringify(v).replace(/[0-9a-f]{64}/g, "<id>").replace(/min relay fee not met, 0 < \d+/g, "min relay fee not met, 0 < <its size>")) as Verdict;
    const a = norm(await scenario(real));
    const b = norm(await scenario(dev));
    console.log(`      ${name}: core ${JSON.stringify(a)}`);
    expect(b, `${name}: devnet vs core`).to.deep.equal(a);
    return a;
  };
  /** A zero-fee TRUC parent paying the wallet all of `coin` and a 0-sat anchor (ephemeral dust). */
  const zeroFeeParent = (coin: Coin, anchorSat = 0n) => {
    const tx = w.spend([coin], [{ address: w.address, valueSat: coin.valueSat - anchorSat }, { scriptHex: P2A, valueSat: anchorSat }], { version: 3 });
    return { ...tx, out: { txid: tx.txid, vout: 0, valueSat: coin.valueSat - anchorSat }, anchor: { txid: tx.txid, vout: 1, valueSat: anchorSat, anchor: true } };
  };

  it("accepts a zero-fee TRUC parent with a P2A anchor and its CPFP child spending the anchor as a package; the parent alone is refused", async () => {
    const v = await same("zero-fee parent + anchor child", async (n) => {
      const parent = zeroFeeParent(n.coins.shift()!);
      const fee = n.coins.shift()!;
      const child = w.spend([parent.anchor, fee], [{ address: w.address, valueSat: fee.valueSat - 3_000n }], { version: 3 });
      const alone = await outcome(n.rpc, "sendrawtransaction", [parent.hex]);
      const pkg = await submitPackage(n.rpc, [parent.hex, child.hex], [parent.txid, child.txid]);
      const entry = (await n.rpc.call("getmempoolentry", [child.txid])) as { ancestorcount: number; vsize: number; fees: { base: number; ancestor: number } };
      return { alone: alone.ok ? "accepted" : alone.reason, pkg, pool: await inMempool(n.rpc, [parent.txid, child.txid]), child: { ancestors: entry.ancestorcount, vsize: entry.vsize, fees: entry.fees } };
    });
    expect(v.pool).to.deep.equal([true, true]);
    expect((v.pkg as { msg: string }).msg).to.equal("success");
  });

  it("refuses a child that leaves the parent's ephemeral anchor unspent", async () => {
    await same("anchor left unspent", async (n) => {
      const parent = zeroFeeParent(n.coins.shift()!);
      const child = w.spend([parent.out], [{ address: w.address, valueSat: parent.out.valueSat - 5_000n }], { version: 3 });
      return { pkg: await submitPackage(n.rpc, [parent.hex, child.hex], [parent.txid, child.txid]), pool: await inMempool(n.rpc, [parent.txid, child.txid]) };
    });
  });

  it("refuses a version-2 child of a TRUC parent", async () => {
    await same("v2 child of a v3 parent", async (n) => {
      const parent = zeroFeeParent(n.coins.shift()!);
      const fee = n.coins.shift()!;
      const child = w.spend([parent.anchor, fee], [{ address: w.address, valueSat: fee.valueSat - 3_000n }], { version: 2 });
      return { pkg: await submitPackage(n.rpc, [parent.hex, child.hex], [parent.txid, child.txid]), pool: await inMempool(n.rpc, [parent.txid, child.txid]) };
    });
  });

  it("refuses a TRUC child above 1000 vB", async () => {
    await same("oversized TRUC child", async (n) => {
      const parent = zeroFeeParent(n.coins.shift()!);
      const fee = n.coins.shift()!;
      const outs = Array.from({ length: 36 }, () => ({ address: w.address, valueSat: 1_000n }));
      const child = w.spend([parent.anchor, fee], [...outs, { address: w.address, valueSat: fee.valueSat - 36_000n - 10_000n }], { version: 3 });
      return { pkg: await submitPackage(n.rpc, [parent.hex, child.hex], [parent.txid, child.txid]), pool: await inMempool(n.rpc, [parent.txid, child.txid]) };
    });
  });

  // Core master words this refusal differently from Core 28, which the devnet follows
  // (`package-fee-too-low`); the decision is compared, both answers are printed.
  it("refuses a package whose child does not pay for both (the decision; the wording is printed)", async () => {
    await same("package below the relay feerate", async (n) => {
      const parent = zeroFeeParent(n.coins.shift()!);
      const fee = n.coins.shift()!;
      const child = w.spend([parent.anchor, fee], [{ address: w.address, valueSat: fee.valueSat - 150n }], { version: 3 });
      const pkg = await submitPackage(n.rpc, [parent.hex, child.hex], [parent.txid, child.txid]);
      console.log(`      ${n === real ? "core" : "devnet"} answers ${JSON.stringify(pkg).replace(/[0-9a-f]{64}/g, "<id>")}`);
      // the minimum is the parent's size in sat: its signatures are ECDSA (71 or 72 bytes), so the two nodes' parents may differ by 1 vB
      const parentReason = String((pkg.results as unknown[])[0]).replace(/ < \d+$/, " < (its size in sat)");
      return { accepted: pkg.msg === "success", parent: parentReason, pool: await inMempool(n.rpc, [parent.txid, child.txid]) };
    });
  });

  it("refuses an ephemeral-dust parent that pays a fee, alone and in a package", async () => {
    await same("dust parent with a fee", async (n) => {
      const coin = n.coins.shift()!;
      const parent = w.spend([coin], [{ address: w.address, valueSat: coin.valueSat - 1_000n }, { scriptHex: P2A, valueSat: 0n }], { version: 3 });
      const fee = n.coins.shift()!;
      const child = w.spend([{ txid: parent.txid, vout: 1, valueSat: 0n, anchor: true }, fee], [{ address: w.address, valueSat: fee.valueSat - 3_000n }], { version: 3 });
      const alone = await outcome(n.rpc, "sendrawtransaction", [parent.hex]);
      return { alone: alone.ok ? "accepted" : { code: alone.code, reason: alone.reason }, pkg: await submitPackage(n.rpc, [parent.hex, child.hex], [parent.txid, child.txid]) };
    });
  });

  it("bumps a TRUC parent already in the mempool by a CPFP child spending its 240-sat anchor (ancestor fees, package feerate)", async () => {
    await same("CPFP of a mempool parent", async (n) => {
      const coin = n.coins.shift()!;
      const parent = w.spend([coin], [{ address: w.address, valueSat: coin.valueSat - 240n - 200n }, { scriptHex: P2A, valueSat: 240n }], { version: 3 });
      const first = await outcome(n.rpc, "sendrawtransaction", [parent.hex]);
      const fee = n.coins.shift()!;
      const child = w.spend([{ txid: parent.txid, vout: 1, valueSat: 240n, anchor: true }, fee], [{ address: w.address, valueSat: fee.valueSat + 240n - 4_000n }], { version: 3 });
      const second = await outcome(n.rpc, "sendrawtransaction", [child.hex]);
      const parentEntry = (await n.rpc.call("getmempoolentry", [parent.txid])) as { descendantcount: number; fees: { base: number; descendant: number } };
      const childEntry = (await n.rpc.call("getmempoolentry", [child.txid])) as { ancestorcount: number; fees: { base: number; ancestor: number } };
      return {
        parent: first.ok ? "accepted" : first.reason, child: second.ok ? "accepted" : second.reason,
        parentFees: parentEntry.fees, descendants: parentEntry.descendantcount, childFees: childEntry.fees, ancestors: childEntry.ancestorcount,
      };
    });
  });

  it("evicts a TRUC parent's child for a sibling paying more, and refuses one paying too little", async () => {
    await same("TRUC sibling eviction", async (n) => {
      const coin = n.coins.shift()!;
      const half = (coin.valueSat - 1_000n) / 2n;
      const parent = w.spend([coin], [{ address: w.address, valueSat: half }, { address: w.address, valueSat: half }], { version: 3 });
      await n.rpc.call("sendrawtransaction", [parent.hex]);
      const first = w.spend([{ txid: parent.txid, vout: 0, valueSat: half }], [{ address: w.address, valueSat: half - 1_000n }], { version: 3 });
      await n.rpc.call("sendrawtransaction", [first.hex]);
      const poor = w.spend([{ txid: parent.txid, vout: 1, valueSat: half }], [{ address: w.address, valueSat: half - 1_000n }], { version: 3 });
      const refused = await outcome(n.rpc, "sendrawtransaction", [poor.hex]);
      const rich = w.spend([{ txid: parent.txid, vout: 1, valueSat: half }], [{ address: w.address, valueSat: half - 5_000n }], { version: 3 });
      const evicting = await outcome(n.rpc, "sendrawtransaction", [rich.hex]);
      return {
        poor: refused.ok ? "accepted" : { code: refused.code, reason: refused.reason },
        rich: evicting.ok ? "accepted" : { code: evicting.code, reason: evicting.reason },
        pool: await inMempool(n.rpc, [parent.txid, first.txid, rich.txid]),
      };
    });
  });

  it("gives testmempoolaccept's verdict on a TRUC parent and its anchor child tested as a package, keeping nothing", async () => {
    await same("testmempoolaccept of a package", async (n) => {
      const parent = zeroFeeParent(n.coins.shift()!);
      const fee = n.coins.shift()!;
      const child = w.spend([parent.anchor, fee], [{ address: w.address, valueSat: fee.valueSat - 3_000n }], { version: 3 });
      const r = (await n.rpc.call("testmempoolaccept", [[parent.hex, child.hex]])) as Array<{ allowed?: boolean; "reject-reason"?: string; "package-error"?: string }>;
      // The child is not judged once its parent failed; Core master leaves its entry bare where
      // Core 28 (and the devnet) say `package-not-validated`.
      console.log(`      ${n === real ? "core" : "devnet"} child entry ${JSON.stringify(r[1]).replace(/[0-9a-f]{64}/g, "<id>")}`);
      return { parent: { allowed: r[0]?.allowed, reason: r[0]?.["reject-reason"] }, childAllowed: r[1]?.allowed === true, pool: await inMempool(n.rpc, [parent.txid, child.txid]) };
    });
  });
});
