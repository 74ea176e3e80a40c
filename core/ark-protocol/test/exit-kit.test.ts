/** The portable exit kit: what it holds, and refusing kits that were tampered with. */
import { expect } from "chai";
import { arkVectors } from "./ark-vectors.js";
import { fromHex, formatOutPoint, toHex } from "../src/encoding.js";
import { decodeVtxo } from "../src/vtxo.js";
import { exitPlan } from "../src/exit.js";
import { ExitKitError, buildExitKit, type ExitKit } from "../src/exit-kit.js";
import { parseExitKit, parseExitKitText } from "../src/exit-kit-parse.js";
import { KitSpendError, fundingKey, signKitChild, signKitClaim } from "../src/exit-kit-spend.js";
import { decodeTx, encodeTx, txidHex } from "../src/tx.js";
import { P2A_SCRIPT } from "../src/script.js";
import { taprootSighash } from "../src/sighash.js";
import { verifySchnorr } from "../src/schnorr.js";

const V2 = arkVectors.vtxo_encoding.encoding_version_2;
const vtxo = (n: string) => decodeVtxo(fromHex((V2.vtxos as { name: string; hex: string }[]).find((v) => v.name === n)!.hex));
const kitOf = (...names: string[]): ExitKit => JSON.parse(JSON.stringify(buildExitKit("regtest", names.map((n, i) => ({ vtxo: vtxo(n), keyIndex: i + 7 }))))) as ExitKit;

/** Flips a byte of a hex string at `at` (from the end when negative). */
function flip(hex: string, at: number): string {
  const i = at < 0 ? hex.length + at * 2 : at * 2;
  const b = (parseInt(hex.slice(i, i + 2), 16) ^ 1).toString(16).padStart(2, "0");
  return hex.slice(0, i) + b + hex.slice(i + 2);
}

describe("exit kit", () => {
  it("holds every signed exit tx anchor first with its anchor, and the claim of the VTXO output", () => {
    const v = vtxo("arkoor2_vtxo");
    const kit = kitOf("arkoor2_vtxo");
    expect(kit).to.include({ format: "tender-exit-kit", version: 1, network: "regtest" });
    const entry = kit.vtxos[0]!;
    const plan = exitPlan(v);
    expect(entry.vtxo_id).to.equal(formatOutPoint(v.point));
    expect(entry.amount_sat).to.equal(Number(v.amount));
    expect(entry.exit_transactions.map((t) => t.txid)).to.deep.equal(plan.map((s) => s.txid));
    expect(entry.exit_transactions.map((t) => t.parent_txid)).to.deep.equal(plan.map((s) => s.parentTxid));
    for (const t of entry.exit_transactions) {
      const tx = decodeTx(fromHex(t.tx));
      expect(txidHex(tx)).to.equal(t.txid);
      expect(toHex(tx.outputs[t.anchor.vout]!.script)).to.equal(toHex(P2A_SCRIPT));
    }
    expect(entry.claim).to.include({ outpoint: entry.vtxo_id, clause: "delayed-sign", csv_delta: v.exitDelta, cltv_height: 0, key_path: "m/350'/0'/7" });
    expect(entry.claim.pubkey).to.equal(toHex((v.policy as { userPubkey: Uint8Array }).userPubkey));
    const parsed = parseExitKit(kit, "regtest");
    expect(parsed.vtxos[0]!.claim.keyIndex).to.equal(7);
    expect(parsed.vtxos[0]!.steps.map((s) => s.txid)).to.deep.equal(plan.map((s) => s.txid));
  });

  it("holds nothing but the documented fields: no key material besides public keys", () => {
    const kit = kitOf("arkoor2_vtxo", "board_vtxo");
    const fields = new Set<string>();
    const walk = (o: unknown, at: string): void => {
      if (Array.isArray(o)) o.forEach((x) => walk(x, `${at}[]`));
      else if (o && typeof o === "object") for (const [k, x] of Object.entries(o)) (fields.add(`${at}.${k}`), walk(x, `${at}.${k}`));
    };
    walk(kit, "kit");
    expect([...fields].sort()).to.deep.equal([
      "kit.created_at", "kit.format", "kit.network", "kit.version", "kit.vtxos",
      "kit.vtxos[].amount_sat", "kit.vtxos[].claim", "kit.vtxos[].claim.amount_sat", "kit.vtxos[].claim.clause", "kit.vtxos[].claim.cltv_height",
      "kit.vtxos[].claim.control_block", "kit.vtxos[].claim.csv_delta", "kit.vtxos[].claim.key_path", "kit.vtxos[].claim.leaf_script",
      "kit.vtxos[].claim.outpoint", "kit.vtxos[].claim.pubkey", "kit.vtxos[].claim.script_pubkey",
      "kit.vtxos[].exit_transactions", "kit.vtxos[].exit_transactions[].anchor", "kit.vtxos[].exit_transactions[].anchor.amount_sat",
      "kit.vtxos[].exit_transactions[].anchor.vout", "kit.vtxos[].exit_transactions[].parent_txid", "kit.vtxos[].exit_transactions[].tx",
      "kit.vtxos[].exit_transactions[].txid", "kit.vtxos[].vtxo_id",
    ]);
    // an added field (a secret a tool might have slipped in) is refused, not carried along
    const withSecret = kitOf("board_vtxo");
    (withSecret.vtxos[0]!.claim as unknown as Record<string, unknown>).secret_key = "11".repeat(32);
    expect(() => parseExitKit(withSecret)).to.throw(ExitKitError, "unknown field secret_key");
  });

  it("refuses a tampered exit transaction, a broken chain link or a wrong anchor", () => {
    const tampered = kitOf("arkoor2_vtxo");
    const t1 = tampered.vtxos[0]!.exit_transactions[1]!;
    const decoded = decodeTx(fromHex(t1.tx));
    t1.tx = toHex(encodeTx({ ...decoded, outputs: decoded.outputs.map((o, i) => (i === 0 ? { ...o, value: o.value + 1n } : o)) }));
    expect(() => parseExitKit(tampered)).to.throw(ExitKitError, "its txid is");

    // the witness is not in the txid: a forged signature is caught by verifying it
    const forged = kitOf("arkoor2_vtxo");
    const t2 = forged.vtxos[0]!.exit_transactions[2]!;
    t2.tx = flip(t2.tx, -5); // the last signature byte (the locktime is the last 4 bytes)
    expect(() => parseExitKit(forged)).to.throw(ExitKitError, "exit_transactions[2]: its signature does not verify");

    const reordered = kitOf("arkoor2_vtxo");
    const txs = reordered.vtxos[0]!.exit_transactions;
    [txs[1], txs[2]] = [txs[2]!, txs[1]!];
    expect(() => parseExitKit(reordered)).to.throw(ExitKitError, "does not spend the previous exit transaction");

    const badAnchor = kitOf("arkoor2_vtxo");
    badAnchor.vtxos[0]!.exit_transactions[0]!.anchor.vout = 0;
    expect(() => parseExitKit(badAnchor)).to.throw(ExitKitError, "not a P2A output");

    const unsignedTx = kitOf("arkoor2_vtxo");
    const first = unsignedTx.vtxos[0]!.exit_transactions[0]!;
    const stripped = decodeTx(fromHex(first.tx));
    const bare = { ...stripped, inputs: stripped.inputs.map((i) => ({ ...i, witness: [] })) };
    first.tx = toHex(encodeTx(bare));
    expect(() => parseExitKit(unsignedTx)).to.throw(ExitKitError, "not signed");
  });

  it("refuses a claim whose script, delay, key, control block or amount does not match the VTXO output", () => {
    const cases: [string, (k: ExitKit) => void, string][] = [
      ["csv", (k) => (k.vtxos[0]!.claim.csv_delta += 1), "leaf_script"],
      ["pubkey", (k) => (k.vtxos[0]!.claim.pubkey = k.vtxos[0]!.exit_transactions[0]!.txid.replace(/^../, "02")), "claim"],
      ["control block", (k) => (k.vtxos[0]!.claim.control_block = flip(k.vtxos[0]!.claim.control_block, -1)), "control_block"],
      ["amount", (k) => ((k.vtxos[0]!.claim.amount_sat += 1), (k.vtxos[0]!.amount_sat += 1)), "amount_sat"],
      ["outpoint", (k) => (k.vtxos[0]!.claim.outpoint = `${k.vtxos[0]!.exit_transactions[0]!.txid}:0`), "outpoint"],
      ["key path", (k) => (k.vtxos[0]!.claim.key_path = "m/86'/1'/0'/0/0"), "key_path"],
    ];
    for (const [name, edit, where] of cases) {
      const kit = kitOf("arkoor2_vtxo");
      edit(kit);
      expect(() => parseExitKit(kit), name).to.throw(ExitKitError, where);
    }
  });

  it("refuses a kit for another network, another format version, or not JSON", () => {
    expect(() => parseExitKit(kitOf("board_vtxo"), "bitcoin")).to.throw(ExitKitError, "the kit is for regtest, the chain is bitcoin");
    expect(() => parseExitKit({ ...kitOf("board_vtxo"), network: "moonnet" })).to.throw(ExitKitError, "unknown network");
    expect(() => parseExitKit({ ...kitOf("board_vtxo"), version: 2 })).to.throw(ExitKitError, "unsupported version 2");
    expect(() => parseExitKitText("{")).to.throw(ExitKitError, "not JSON");
  });

  it("refuses a VTXO whose only user clause needs a hash preimage", () => {
    expect(() => buildExitKit("regtest", [{ vtxo: vtxo("round2_vtxo"), keyIndex: 0 }])).to.throw(ExitKitError, "preimage");
  });

  it("the claim refuses a key that is not the VTXO's (wrong seed)", () => {
    const parsed = parseExitKit(kitOf("board_vtxo"));
    expect(() => signKitClaim([{ vtxo: parsed.vtxos[0]!, secretKey: new Uint8Array(32).fill(3) }], fundingKey(new Uint8Array(32).fill(4)).scriptPubKey, 1000, 250n))
      .to.throw(KitSpendError, "wrong seed");
  });

  it("the CPFP child spends the anchor and funding coins, pays the package rate and signs its key-path inputs", () => {
    const step = parseExitKit(kitOf("board_vtxo")).vtxos[0]!.steps[0]!;
    const funding = fundingKey(new Uint8Array(32).fill(9));
    const coin = { outpoint: { txid: new Uint8Array(32).fill(1), vout: 1 }, value: 50_000n };
    const child = signKitChild(step.tx, [coin], funding, 2_500n);
    expect(child.tx.inputs[0]!.prevout).to.deep.include({ vout: step.anchorVout });
    expect(txidHex({ ...step.tx })).to.equal(step.txid);
    expect(child.tx.outputs).to.have.length(1);
    expect(child.tx.outputs[0]!.value).to.equal(step.anchorValue + coin.value - child.fee);
    const prevouts = [step.tx.outputs[step.anchorVout]!, { value: coin.value, script: funding.scriptPubKey }];
    const sig = child.tx.inputs[1]!.witness[0]!;
    expect(verifySchnorr(sig, taprootSighash(child.tx, 1, prevouts), funding.outputKey)).to.equal(true);
    expect(() => signKitChild(step.tx, [], funding, 2_500n)).to.throw("insufficient confirmed funds");
  });
});
