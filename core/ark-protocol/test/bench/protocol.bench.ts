/**
 * Ark protocol core throughput next to raw Schnorr, so the protocol overhead reads as a ratio:
 * VTXO decode + full validation (every exit-chain signature checked), an arkoor package built
 * and MuSig2 co-signed end to end (user and server in-process), and BIP-340 sign / verify
 * measured in the same run. The crypto rows run on both backends (`crypto-backend.ts`):
 * libsecp256k1 (the default) and the pure-JS one (`@scure/btc-signer` MuSig2, `@noble/curves`
 * Schnorr), so the speed-up reads directly from one table.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import * as ecc from "tiny-secp256k1";
import { measure, type BenchReport, type BenchRow } from "@tender/core";
import { useCryptoBackend, type CryptoBackendName } from "../../src/crypto-backend.js";
import { musigCompleteCosign, musigNonceGen, musigRespondCosign, musigRespondCosignDeterministic, musigTweakedKey } from "../../src/musig.js";
import { forgetSchnorrVerifications, signSchnorr, verifySchnorr } from "../../src/schnorr.js";
import { forgetExitChainSteps } from "../../src/vtxo-exit.js";
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
  const pk = ecc.pointFromScalar(sk, true) as Uint8Array;
  const xonly = pk.slice(1);
  const msg = sha256(new TextEncoder().encode("bench"));
  const sig = ecc.signSchnorr(msg, sk);
  const userSk = keyFor(board.policy.userPubkey);
  const userPk = board.policy.userPubkey;
  const tweak = sha256(new TextEncoder().encode("bench tweak"));
  const userPubNonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, message: msg }).pubNonce;
  // One 2-of-2 co-signature as arkoor makes it: user nonce, server nonce + partial, user verifies + completes.
  const cosign = (): Uint8Array => {
    const nonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, aggregateKey: musigTweakedKey([userPk, pk], tweak), message: msg });
    const response = musigRespondCosign({ secretKey: sk, pubkey: pk, otherPubkey: userPk, otherPubNonce: nonce.pubNonce, message: msg, tweak });
    return musigCompleteCosign({ secretKey: userSk, pubkey: userPk, nonce, otherPubkey: pk, response, message: msg, tweak });
  };

  const on = async (backend: CryptoBackendName, fn: () => unknown, minMs?: number): Promise<number> => {
    const prev = useCryptoBackend(backend);
    try {
      return await measure(fn, minMs);
    } finally {
      useCryptoBackend(prev);
    }
  };
  /** The same operation on both backends: two rows, the speed-up in the first one's note. */
  const pair = async (name: string, fn: () => unknown, note = ""): Promise<BenchRow[]> => {
    const fast = await on("libsecp256k1", fn);
    const pure = await on("pure-js", fn);
    return [
      { name: `${name} [libsecp256k1]`, opsPerSec: fast, note: `${(fast / pure).toFixed(1)}× the pure-JS backend${note ? `; ${note}` : ""}` },
      { name: `${name} [pure-JS]`, opsPerSec: pure },
    ];
  };

  const sign = await on("libsecp256k1", () => signSchnorr(msg, sk));
  // verified afresh each time: the core remembers signatures that verified (and rebuilt exit-chain
  // steps), which a loop over one signature would measure instead
  const freshVerify = (): boolean => { forgetSchnorrVerifications(); return verifySchnorr(sig, msg, xonly); };
  const freshValidate = (): unknown => { forgetSchnorrVerifications(); forgetExitChainSteps(); return validateVtxo(decodeVtxo(deepHex), anchor); };
  const verify = await on("libsecp256k1", freshVerify);
  const validate = await on("libsecp256k1", freshValidate);
  const arkoor = await on("libsecp256k1", arkoorRound);
  const build = await on("libsecp256k1", () => buildArkoorPackage([board], outputs));

  return {
    title: "Ark protocol core (plugins/ark)",
    rows: [
      { name: `VTXO decode+validate (depth ${depth})`, opsPerSec: validate, note: `= ${(verify / validate).toFixed(1)} raw verifies (${depth} signatures checked)` },
      { name: `arkoor package build+sign (${nbSigs} MuSig2 sigs)`, opsPerSec: arkoor, note: `= ${(sign / arkoor).toFixed(0)} raw signs; user+server in-process` },
      { name: "arkoor package build only (txs + sighashes)", opsPerSec: build, note: `MuSig2 is ${((1 / arkoor - 1 / build) * arkoor * 100).toFixed(0)}% of build+sign` },
      { name: "Schnorr sign (libsecp256k1, checked)", opsPerSec: sign },
      { name: "Schnorr verify (libsecp256k1)", opsPerSec: verify },
      ...(await pair(`arkoor package build+sign (${nbSigs} sigs)`, arkoorRound)),
      ...(await pair("MuSig2 2-of-2 co-signature (tweaked)", cosign, "nonce, server partial, verify, own partial, aggregate")),
      ...(await pair("MuSig2 deterministic partial sign (server)", () =>
        musigRespondCosignDeterministic({ secretKey: sk, pubkey: pk, otherPubkey: userPk, otherPubNonce: userPubNonce, message: msg, tweak }),
      )),
      ...(await pair("MuSig2 tweaked key aggregation (2 keys)", () => musigTweakedKey([userPk, pk], tweak), "KeyAgg memoised per key list")),
      ...(await pair("Schnorr sign", () => signSchnorr(msg, sk), "both check the signature before returning it")),
      ...(await pair("Schnorr verify", freshVerify)),
      ...(await pair(`VTXO decode+validate (depth ${depth})`, freshValidate)),
    ],
  };
}
