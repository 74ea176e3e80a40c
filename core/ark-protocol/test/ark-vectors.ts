/**
 * Access to `test/vectors/ark-vectors.json` through a {@link VectorLedger}: the tests read inputs
 * from {@link arkVectors} and compare expected values with {@link expectVector} /
 * {@link compareVector}. Reading an expected value does not count; only a comparison does.
 *
 * The file's leaves outside the documentation keys are either inputs (listed in {@link INPUTS}:
 * they must be read) or expected values (all the rest: they must be compared). When the run
 * ends, a root hook prints `ark vectors: N/M compared, I/J inputs read`; if the run covered every
 * vector test (see {@link vectorRunScope}) and an expected value went uncompared or an input
 * unread, the hook fails the run and lists them.
 */
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";
import { VectorLedger, ledgerProblems, vectorRunScope, type SuiteLike, type VectorNode } from "./vector-ledger.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const FILE = join(HERE, "../../../../test/vectors/ark-vectors.json");

/** Keys that hold prose about the vectors, not vector values. */
const DOC_KEYS = ["what", "provenance", "field_notes", "notation", "meta", "conventions", "reference", "comment", "note", "notes", "source", "what_it_checks"];

/**
 * The input leaves: values the tests hand to the code under test, whose results are compared
 * with other leaves. Each must be read by some test; every leaf not matched here must be
 * compared. Only list a value that nothing computed can be checked against (a secret key, a
 * parameter, a label); anything the code produces — a public key, a txid, a fee, an error —
 * is an expected value. A rejection vector whose expected outcome is only described in prose
 * (bytes a decoder must refuse) is compared by asserting the refusal, not listed here.
 */
export const INPUTS: readonly string[] = [
  // Secret material: the public keys, signatures, nonces and addresses made from it are compared.
  "/keys/**/secret_key",
  "/vtxo_encoding/*/{server_key,arkoor3_user_key}",
  "/addresses/cases/*/user_vtxo_secret_key",
  "/message_signing/secret_key",
  "/key_derivation/mnemonic",
  "/related_vectors_other_areas/hash_locked_forfeit_bundle/server_secret_nonce_libsecp_internal",
  // Names that identify a case.
  "/vtxo_encoding/*/vtxos/*/name",
  "/{arkoor_construction,arkoor_dust_isolation,attestations}/cases/*/name",
  "/arkoor_package_allocation/{cases,rejections}/*/name",
  // Parameters of the construction under test.
  "/policy_taproots/{server_pubkey,exit_delta,expiry_height}",
  "/board/board_builder_test/{amount,fee,expiry_height,exit_delta}",
  "/addresses/cases/*/{server_pubkey,server_mailbox_pubkey,mailbox_id}",
  "/addresses/decode_failures/*/payload_hex",
  "/key_derivation/example_ark_address/{server_pubkey,server_mailbox_pubkey}",
  "/attestations/vtxo_id",
  "/message_signing/message_ascii",
  "/arkoor_construction/cases/*/use_checkpoint",
  "/arkoor_construction/cases/*/outputs/*/amount",
  "/arkoor_change_split/cases/*/{change,pay,split_factor}",
  "/arkoor_dust_isolation/cases/*/outputs/*",
  "/arkoor_package_allocation/{cases,rejections}/*/{input_amounts,outputs}/**",
  // Fee schedules and the inputs they price; each case's expected fee is compared.
  "/fees/board/*/{amount,base_fee,min_fee,ppm}",
  "/fees/lightning_receive/*/{amount,base_fee,ppm}",
  "/fees/lightning_send/*/{amount,base_fee,min_fee}",
  "/fees/offboard/*/{amount,base_fee,destination_script_hex,fee_rate_sat_per_vb,fixed_additional_vb}",
  "/fees/ppm_expiry_fee/*/chargeable_amount",
  "/fees/refresh/*/base_fee",
  "/fees/{lightning_send,offboard,ppm_expiry_fee,refresh}/*/{table,vtxos}/**",
  "/fees/fee_rate_conversions/amount_from_msat/*/msat",
  "/fees/fee_rate_conversions/from_amount_and_weight_ceil/*/{fee,weight_wu}",
  "/fees/fee_rate_conversions/from_amount_per_kvb_ceil/*/0",
];

/** The vector ledger of `ark-vectors.json`. */
export const arkLedger = new VectorLedger(JSON.parse(readFileSync(FILE, "utf8")), { docKeys: DOC_KEYS, inputs: INPUTS });

/** The whole vector file, tracked: reading a leaf records it as read, not as compared. */
export const arkVectors: VectorNode = arkLedger.tree;

/** Asserts that `actual` deep-equals `node[key]` (a bigint against `BigInt(expected)`) and records it as compared. */
export function expectVector(actual: unknown, node: VectorNode, key: string | number, message?: string): void {
  arkLedger.expect(actual, node, key, message);
}

/** Runs `check` (which must assert) with the leaf `node[key]` and records it as compared. */
export function compareVector(node: VectorNode, key: string | number, check: (expected: VectorNode) => void): void {
  arkLedger.compare(node, key, check);
}

/** The compiled test files that use this ledger: a run that loaded and ran all of them is complete. */
function vectorTestFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...vectorTestFiles(p));
    else if (e.name.endsWith(".test.js") && /from\s+["'](?:\.\.?\/)+ark-vectors\.js["']/.test(readFileSync(p, "utf8"))) out.push(resolve(p));
  }
  return out;
}

after(function () {
  const r = arkLedger.report();
  console.log(`ark vectors: ${r.compared}/${r.expected} compared, ${r.read}/${r.inputs} inputs read`);
  const problems = ledgerProblems("ark vectors", r);
  if (!problems) return;
  let root = this.test!.parent!;
  while (root.parent) root = root.parent;
  const scope = vectorRunScope(root as unknown as SuiteLike, vectorTestFiles(HERE));
  if (scope.enforce) throw new Error(problems);
  console.log(`  not enforced (${scope.reason}): ${r.uncompared.length} not compared, ${r.unread.length} inputs not read`);
});
