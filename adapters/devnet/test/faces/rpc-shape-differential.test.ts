import { BitcoindRpc } from "@tender/chain-bitcoind";
import { expect } from "chai";
import { startDevnet, type Devnet } from "../../src/devnet.js";
import { TestWallet, sat, startBitcoind } from "@tender/core/testing";

const exe = process.env.BITCOIND_EXE;

/** Every key path of a JSON value (`a.b[].c`), arrays collapsed to their first element. */
function keyPaths(v: unknown, prefix = ""): string[] {
  if (Array.isArray(v)) return v.length ? keyPaths(v[0], `${prefix}[]`) : [];
  if (typeof v !== "object" || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => {
    const key = /^[0-9a-f]{64}$/.test(k) ? "<txid>" : k; // objects keyed by txid/wtxid
    return [`${prefix}.${key}`, ...keyPaths(x, `${prefix}.${key}`)];
  });
}

/** Builds the same small history on a node: 101 blocks to `w`, one confirmed and one mempool spend. */
interface Scenario {
  confirmed: string;
  pending: string;
  fresh: string;
  hashes: string[];
  /** Transactions to test for acceptance, by case name. */
  cases: Record<string, string>;
}

async function scenario(rpc: BitcoindRpc, w: TestWallet, payee: TestWallet): Promise<Scenario> {
  const hashes = (await rpc.call("generatetoaddress", [102, w.address])) as string[];
  const coin = async (i: number) => {
    const block = (await rpc.call("getblock", [hashes[i], 2])) as { tx: Array<{ txid: string; vout: Array<{ value: number }> }> };
    const cb = block.tx[0]!;
    return { txid: cb.txid, vout: 0, valueSat: sat(cb.vout[0]!.value) };
  };
  const a = await coin(0);
  const confirmedTx = w.spend([a], [{ address: payee.address, valueSat: 100_000n }, { address: w.address, valueSat: a.valueSat - 102_000n }]);
  await rpc.call("sendrawtransaction", [confirmedTx.hex]);
  await rpc.call("generatetoaddress", [1, w.address]);
  const b = await coin(1);
  const pendingTx = w.spend([b], [{ address: payee.address, valueSat: 50_000n }, { address: w.address, valueSat: b.valueSat - 52_000n }]);
  await rpc.call("sendrawtransaction", [pendingTx.hex]);
  const c = await coin(2);
  const freshTx = w.spend([c], [{ address: payee.address, valueSat: 20_000n }, { address: w.address, valueSat: c.valueSat - 22_000n }]);
  const tip = (await rpc.call("getblockcount")) as number;
  const pendingChange = { txid: pendingTx.txid, vout: 1, valueSat: b.valueSat - 52_000n };
  const cases: Record<string, string> = {
    valid: freshTx.hex,
    "zero fee": w.spend([c], [{ address: w.address, valueSat: c.valueSat }]).hex,
    "dust output": w.spend([c], [{ address: payee.address, valueSat: 100n }, { address: w.address, valueSat: c.valueSat - 5_000n }]).hex,
    "missing input": w.spend([{ txid: "55".repeat(32), vout: 0, valueSat: 10_000n }], [{ address: w.address, valueSat: 9_000n }]).hex,
    "already in mempool": pendingTx.hex,
    "conflict paying no more": w.spend([b], [{ address: payee.address, valueSat: 50_000n }, { address: payee.address, valueSat: b.valueSat - 52_000n }]).hex,
    "non-final locktime": w.spend([c], [{ address: w.address, valueSat: c.valueSat - 2_000n }], { locktime: tip + 10 }).hex,
    "immature coinbase": w.spend([await coin(101)], [{ address: w.address, valueSat: 1_000_000n }]).hex,
    "v3 child of a v2 mempool parent": w.spend([pendingChange], [{ address: w.address, valueSat: pendingChange.valueSat - 2_000n }], { version: 3 }).hex,
    "op_return over 83 bytes": w.spend([c], [{ scriptHex: `6a4c64${"ab".repeat(100)}`, valueSat: 0n }, { address: w.address, valueSat: c.valueSat - 2_000n }]).hex,
  };
  for (let i = 0; i < 100; i++) {
    const info = (await rpc.call("getindexinfo")) as { txindex?: { synced?: boolean } };
    if (info.txindex?.synced) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { confirmed: confirmedTx.txid, pending: pendingTx.txid, fresh: freshTx.hex, hashes, cases };
}

describe("devnet RPC face: shapes compared with a real bitcoind", function () {
  this.timeout(120_000);
  if (!exe) {
    it("prints every key a real bitcoind prints", function () {
      console.log("      skipped: BITCOIND_EXE is not set, so there is no Bitcoin Core to compare the devnet's RPC shapes with");
      this.skip();
    });
    return;
  }
  let devnet: Devnet;
  let core: Awaited<ReturnType<typeof startBitcoind>>;
  let devRpc: BitcoindRpc;
  let coreRpc: BitcoindRpc;
  let dev: Scenario;
  let real: Scenario;
  const w = new TestWallet("shape-diff");
  const payee = new TestWallet("shape-diff-payee");

  before(async () => {
    devnet = await startDevnet({ seed: "shape-diff", premineBlocks: 0 });
    core = await startBitcoind(exe);
    devRpc = new BitcoindRpc(devnet.rpcUrl, { url: devnet.rpcUrl, auth: { cookieFile: devnet.cookieFile } });
    coreRpc = new BitcoindRpc(core.url, { url: core.url, auth: { cookieFile: core.cookieFile } });
    dev = await scenario(devRpc, w, payee);
    real = await scenario(coreRpc, w, payee);
  });
  after(async () => {
    await devnet?.stop();
    await core?.stop();
  });

  type Args = (s: Scenario) => unknown[];
  const calls: Array<[string, Args]> = [
    ["getblockchaininfo", () => []],
    ["getblockheader", (s) => [s.hashes[5]]],
    ["getblock", (s) => [s.hashes[5], 1]],
    ["getblock", (s) => [s.hashes[5], 2]],
    ["getblock", (s) => [s.hashes[5], 3]],
    ["getrawtransaction", (s) => [s.confirmed, 1]],
    ["getrawtransaction", (s) => [s.confirmed, 2]],
    ["getrawtransaction", (s) => [s.pending, 1]],
    ["gettxout", (s) => [s.pending, 0]],
    ["getmempoolentry", (s) => [s.pending]],
    ["getrawmempool", () => [true]],
    ["getmempoolinfo", () => []],
    ["testmempoolaccept", (s) => [[s.fresh]]],
    ["testmempoolaccept", (s) => [[s.fresh.slice(0, -8) + "ffffffff"]]],
    ["gettxspendingprevout", (s) => [[{ txid: s.confirmed, vout: 1 }]]],
    ["validateaddress", () => [payee.address]],
    ["validateaddress", () => ["nope"]],
    ["getindexinfo", () => []],
    ["getnetworkinfo", () => []],
  ];
  for (const [method, args] of calls) {
    it(`${method} ${JSON.stringify(args({ confirmed: "C", pending: "P", fresh: "F", hashes: Array(6).fill("H"), cases: {} })).slice(0, 40)}: the devnet prints every key Core prints`, async () => {
      const [a, b] = await Promise.all([coreRpc.call(method, args(real)), devRpc.call(method, args(dev))]);
      const corePaths = keyPaths(a);
      const devPaths = keyPaths(b);
      const extra = devPaths.filter((p) => !corePaths.includes(p));
      if (extra.length) console.log(`      devnet-only keys: ${extra.join(", ")}`);
      expect(corePaths.filter((p) => !devPaths.includes(p)), "keys Core prints that the devnet lacks").to.deep.equal([]);
    });
  }

  const errors: Array<[string, Args]> = [
    ["getblockhash", () => [9999]],
    ["getblock", () => ["00".repeat(32)]],
    ["getrawtransaction", () => ["00".repeat(32), true]],
    ["getmempoolentry", (s) => [s.confirmed]],
    ["sendrawtransaction", () => ["zz"]],
    ["estimatesmartfee", () => [0]],
    ["generatetoaddress", () => [1, "nope"]],
    ["nosuchmethod", () => []],
  ];
  for (const [method, args] of errors) {
    it(`${method} fails with Core's code and message`, async () => {
      const grab = (rpc: BitcoindRpc, s: typeof dev) => rpc.call(method, args(s)).then(() => null, (e: { code?: number; rpcMessage?: string }) => ({ code: e.code, message: e.rpcMessage }));
      const [a, b] = await Promise.all([grab(coreRpc, real), grab(devRpc, dev)]);
      expect(b?.code).to.equal(a?.code);
      if (a?.message !== b?.message) console.log(`      message differs: core ${JSON.stringify(a?.message)} / devnet ${JSON.stringify(b?.message)}`);
    });
  }

  it("testmempoolaccept gives Core's verdicts and reject reasons for the same transactions", async () => {
    const rows: string[] = [];
    for (const name of Object.keys(real.cases)) {
      const verdict = async (rpc: BitcoindRpc, s: Scenario) => {
        const [r] = (await rpc.call("testmempoolaccept", [[s.cases[name]]])) as Array<{ allowed?: boolean; "reject-reason"?: string }>;
        return { allowed: r?.allowed, reason: r?.["reject-reason"] };
      };
      const [a, b] = await Promise.all([verdict(coreRpc, real), verdict(devRpc, dev)]);
      rows.push(`${name}: core ${JSON.stringify(a)} devnet ${JSON.stringify(b)}`);
      expect(b, name).to.deep.equal(a);
    }
    console.log(rows.map((r) => `      ${r}`).join("\n"));
  });

  it("sendrawtransaction refuses the same transactions with Core's codes and reasons", async () => {
    for (const name of Object.keys(real.cases).filter((n) => n !== "valid" && n !== "op_return over 83 bytes")) {
      const send = (rpc: BitcoindRpc, s: Scenario) =>
        rpc.call("sendrawtransaction", [s.cases[name]]).then((txid) => ({ txid }), (e: { code?: number; rpcMessage?: string }) => ({ code: e.code, reason: e.rpcMessage?.split(",")[0] }));
      const [a, b] = await Promise.all([send(coreRpc, real), send(devRpc, dev)]);
      if ("txid" in a) expect("txid" in b, name).to.equal(true);
      else expect(b, name).to.deep.equal(a);
    }
  });

  it("submitpackage accepts a zero-fee TRUC parent with its child on both, and both refuse the parent alone", async () => {
    const submit = async (rpc: BitcoindRpc, s: Scenario) => {
      const coin = (await rpc.call("getrawtransaction", [s.confirmed, true])) as { vout: Array<{ value: number; scriptPubKey: { hex: string } }> };
      const n = coin.vout.findIndex((o) => o.scriptPubKey.hex === w.scriptHex);
      const value = sat(coin.vout[n]!.value);
      const parent = w.spend([{ txid: s.confirmed, vout: n, valueSat: value }], [{ address: w.address, valueSat: value }], { version: 3 });
      const child = w.spend([{ txid: parent.txid, vout: 0, valueSat: value }], [{ address: w.address, valueSat: value - 4_000n }], { version: 3 });
      const alone = await rpc.call("sendrawtransaction", [parent.hex]).then(() => "accepted", (e: { rpcMessage?: string }) => e.rpcMessage?.split(",")[0]);
      const pkg = (await rpc.call("submitpackage", [[parent.hex, child.hex]])) as { package_msg: string; "tx-results": Record<string, { error?: string }> };
      return { alone, msg: pkg.package_msg, errors: Object.values(pkg["tx-results"]).map((r) => r.error ?? null) };
    };
    const [a, b] = await Promise.all([submit(coreRpc, real), submit(devRpc, dev)]);
    expect(a).to.deep.equal({ alone: "min relay fee not met", msg: "success", errors: [null, null] });
    expect(b).to.deep.equal(a);
  });
});
