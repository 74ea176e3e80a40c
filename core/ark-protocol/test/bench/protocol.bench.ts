/**
 * Ark protocol core throughput next to raw Schnorr, so the protocol overhead reads as a ratio:
 * VTXO decode + full validation (every exit-chain signature checked), an arkoor package built
 * and MuSig2 co-signed end to end (user and server in-process), and tiny-secp256k1 BIP-340
 * sign / verify measured in the same run.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import * as ecc from "tiny-secp256k1";
import { measure, type BenchReport } from "@tender/core";
import { fromHex, toHex } from "../../src/encoding.js";
import { decodeTx } from "../../src/tx.js";
import { decodeVtxo } from "../../src/vtxo.js";
import { validateVtxo } from "../../src/vtxo-validate.js";
import { sha256 } from "../../src/hashes.js";
import { arkoorPackageVtxos, arkoorPubNonces, arkoorServerCosign, arkoorUserFinish, arkoorUserNonces, buildArkoorPackage } from "../../src/arkoor-package.js";

interface KeyVector { secret_key: string; public_key: string }
const FILE = join(dirname(fileURLToPath(import.meta.url)), "../../../../../test/vectors/ark-vectors.json");

export default async function protocolBench(): Promise<BenchReport> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const vectors: any = JSON.parse(readFileSync(FILE, "utf8"));
  const v2 = vectors.vtxo_encoding.encoding_version_2;
  const keys = vectors.keys.vtxo_vector_generation as Record<string, KeyVector>;
  const byName = (n: string): string => (v2.vtxos as { name: string; hex: string }[]).find((v) => v.name === n)!.hex;
  const anchor = decodeTx(fromHex(v2.anchor_tx.hex));
  const deepHex = fromHex(byName("arkoor2_vtxo")); // exit depth 5: five signatures per validation
  const depth = decodeVtxo(deepHex).genesis.length;

  const secrets = new Map(Object.values(keys).map((k) => [k.public_key, fromHex(k.secret_key)]));
  const keyFor = (pk: Uint8Array): Uint8Array => secrets.get(toHex(pk))!;
  const board = decodeVtxo(fromHex(byName("board_vtxo")));
  const bob = fromHex(keys.arkoor2_user_key!.public_key);
  const outputs = [
    { amount: 6_000n, policy: { type: "pubkey" as const, userPubkey: bob } },
    { amount: board.amount - 6_000n, policy: { type: "pubkey" as const, userPubkey: board.policy.userPubkey } },
  ];
  const serverSk = keyFor(board.serverPubkey);
  const arkoorRound = (): number => {
    const pkg = buildArkoorPackage([board], outputs);
    const nonces = arkoorUserNonces(pkg, keyFor);
    const sigs = arkoorUserFinish(pkg, keyFor, nonces, arkoorServerCosign(pkg, serverSk, arkoorPubNonces(nonces)));
    return arkoorPackageVtxos(pkg, sigs).length;
  };
  const nbSigs = buildArkoorPackage([board], outputs).parts[0]!.signing.length;

  const sk = fromHex(keys.server_key!.secret_key);
  const xonly = (ecc.pointFromScalar(sk, true) as Uint8Array).slice(1);
  const msg = sha256(new TextEncoder().encode("bench"));
  const sig = ecc.signSchnorr(msg, sk);

  const validate = await measure(() => validateVtxo(decodeVtxo(deepHex), anchor));
  const arkoor = await measure(arkoorRound);
  const build = await measure(() => buildArkoorPackage([board], outputs));
  const sign = await measure(() => ecc.signSchnorr(msg, sk));
  const verify = await measure(() => ecc.verifySchnorr(msg, xonly, sig));

  return {
    title: "Ark protocol core (plugins/ark)",
    rows: [
      { name: `VTXO decode+validate (depth ${depth})`, opsPerSec: validate, note: `= ${(verify / validate).toFixed(1)} raw verifies (${depth} signatures checked)` },
      { name: `arkoor package build+sign (${nbSigs} MuSig2 sigs)`, opsPerSec: arkoor, note: `= ${(sign / arkoor).toFixed(0)} raw signs; user+server in-process, scure MuSig2` },
      { name: "arkoor package build only (txs + sighashes)", opsPerSec: build, note: `MuSig2 is ${((1 / arkoor - 1 / build) * arkoor * 100).toFixed(0)}% of build+sign` },
      { name: "Schnorr sign (tiny-secp256k1)", opsPerSec: sign },
      { name: "Schnorr verify (tiny-secp256k1)", opsPerSec: verify },
    ],
  };
}
