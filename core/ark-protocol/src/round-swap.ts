/**
 * The hArk swap after a round (bark's `hark_vtxo_swap`), wallet side: the leaf co-signature of
 * each new VTXO, the forfeit bundles of the inputs, and the unlock that makes the new VTXOs
 * spendable. Every step can be repeated; only the forfeits give something away.
 *
 * | Step | Function | What |
 * |---|---|---|
 * | leaf nonce | {@link leafCosignNonce} | nonce bound to the leaf tx's hash-lock script-spend sighash, for `RequestLeafVtxoCosign` |
 * | leaf signature | {@link completeLeafSignature} | verifies the server's partial, adds ours, verifies the final signature |
 * | forfeits | {@link forfeitBundles} | one hash-locked forfeit bundle per input, with the server's forfeit nonce |
 * | unlock | {@link finalizeRoundVtxo} | inserts the leaf signature and the preimage (must hash to the unlock hash), full validation |
 *
 * Errors are {@link RoundSwapError}; secret nonces stay in memory-only holders.
 *
 * @example
 * ```ts
 * const { request, secNonce } = leafCosignNonce({ vtxo, secretKey });
 * const leafSig = completeLeafSignature({ vtxo, secretKey, secNonce, response: await server.requestLeafVtxoCosign(request), serverPubkey });
 * const preimage = await server.forfeitVtxos(forfeitBundles({ inputs, unlockHash, serverNonces }));
 * const spendable = finalizeRoundVtxo({ vtxo, leafSignature: leafSig, preimage, unlockHash, fundingTx });
 * ```
 */
import { randomBytes } from "@noble/hashes/utils.js";
import { bytesEqual, toHex } from "./encoding.js";
import { sha256 } from "./hashes.js";
import { pubkeyFromSecret } from "./keys.js";
import { decodeTx } from "./tx.js";
import { createForfeitBundle, encodeForfeitBundle } from "./forfeit.js";
import { MUSIG_PARTIAL_SIG_SIZE, MUSIG_PUB_NONCE_SIZE, musigAggregateKey, musigCompleteCosign, musigNonceGen, type MusigNonce } from "./musig.js";
import { verifySchnorr } from "./schnorr.js";
import { vtxoId, vtxoIdString, type Vtxo } from "./vtxo.js";
import { exitChain, type ExitChainTx } from "./vtxo-exit.js";
import { validateVtxo } from "./vtxo-validate.js";
import type { HashLockedTransition } from "./vtxo-genesis.js";
import type { LeafVtxoCosignRequest, LeafVtxoCosignResponse } from "./server/round-messages.js";
import { MemoryOnly, RoundSwapError, type OwnedRoundInput } from "./round-client.js";

/** The server caps the VTXO ids of one `RequestForfeitNonces` at this many. */
export const MAX_FORFEIT_NONCE_IDS = 1000;

/** The leaf tx of a round VTXO: its hash-locked transition and its exit-chain entry. */
function leafOf(vtxo: Vtxo): { entry: ExitChainTx; transition: HashLockedTransition } {
  let chain: ExitChainTx[];
  try {
    chain = exitChain(vtxo);
  } catch (e) {
    throw new RoundSwapError(`VTXO ${vtxoIdString(vtxo)} has an invalid genesis: ${(e as Error).message}`);
  }
  const entry = chain.at(-1);
  const t = entry?.item.transition;
  if (!entry || !t || (t.kind !== "hash-locked-cosigned" && t.kind !== "hash-locked-cosigned-v1")) {
    throw new RoundSwapError(`VTXO ${vtxoIdString(vtxo)} is not a round leaf (its last transition is not hash-locked)`);
  }
  return { entry, transition: t };
}

function checkKey(vtxo: Vtxo, secretKey: Uint8Array, userPubkey: Uint8Array): Uint8Array {
  let pk: Uint8Array;
  try {
    pk = pubkeyFromSecret(secretKey);
  } catch {
    throw new RoundSwapError(`invalid secret key for VTXO ${vtxoIdString(vtxo)}`);
  }
  if (!bytesEqual(pk, userPubkey)) throw new RoundSwapError(`keypair ${toHex(userPubkey)} not found for VTXO ${vtxoIdString(vtxo)}`);
  return pk;
}

/** A secret nonce held in memory only (serializing it throws). */
export class MemoryOnlyNonce extends MemoryOnly implements MusigNonce {
  readonly #secNonce: Uint8Array;
  readonly pubNonce: Uint8Array;

  constructor(nonce: MusigNonce) {
    super();
    this.#secNonce = nonce.secNonce;
    this.pubNonce = nonce.pubNonce;
  }

  get secNonce(): Uint8Array {
    return this.#secNonce;
  }
}

/**
 * A nonce for the leaf co-signature of a round VTXO, bound to its leaf tx's hash-lock
 * script-spend sighash and the untweaked agg(user, server) key.
 */
export function leafCosignNonce(p: { vtxo: Vtxo; secretKey: Uint8Array; rand?: (n: number) => Uint8Array }): { request: LeafVtxoCosignRequest; secNonce: MemoryOnlyNonce } {
  const { entry, transition } = leafOf(p.vtxo);
  const userPubkey = checkKey(p.vtxo, p.secretKey, transition.userPubkey);
  const nonce = musigNonceGen({
    pubkey: userPubkey,
    secretKey: p.secretKey,
    aggregateKey: musigAggregateKey([userPubkey, p.vtxo.serverPubkey]),
    message: entry.sighash,
    rand: (p.rand ?? randomBytes)(32),
  });
  return { request: { vtxoId: vtxoId(p.vtxo), pubNonce: nonce.pubNonce }, secNonce: new MemoryOnlyNonce(nonce) };
}

/**
 * Completes the leaf co-signature: verifies the server's partial signature, adds ours (using
 * up `secNonce`) and returns the final 64-byte signature after verifying it over the leaf
 * sighash. Throws {@link RoundSwapError}.
 */
export function completeLeafSignature(p: { vtxo: Vtxo; secretKey: Uint8Array; secNonce: MusigNonce; response: LeafVtxoCosignResponse; serverPubkey: Uint8Array }): Uint8Array {
  const id = vtxoIdString(p.vtxo);
  const { entry, transition } = leafOf(p.vtxo);
  if (!bytesEqual(p.serverPubkey, p.vtxo.serverPubkey)) throw new RoundSwapError(`VTXO ${id} belongs to another server key`);
  const userPubkey = checkKey(p.vtxo, p.secretKey, transition.userPubkey);
  if (p.response.pubNonce.length !== MUSIG_PUB_NONCE_SIZE || p.response.partialSig.length !== MUSIG_PARTIAL_SIG_SIZE) {
    throw new RoundSwapError(`bad leaf vtxo cosign response for VTXO ${id}: malformed nonce or partial signature`);
  }
  let signature: Uint8Array;
  try {
    signature = musigCompleteCosign({
      secretKey: p.secretKey,
      pubkey: userPubkey,
      nonce: p.secNonce,
      otherPubkey: p.serverPubkey,
      response: p.response,
      message: entry.sighash,
    });
  } catch (e) {
    throw new RoundSwapError(`failed to finalize VTXO leaf signature for VTXO ${id}: ${(e as Error).message}`);
  }
  if (!verifySchnorr(signature, entry.sighash, entry.spent.signingKey)) throw new RoundSwapError(`failed to finalize VTXO leaf signature for VTXO ${id}`);
  return signature;
}

/**
 * The encoded forfeit bundle of each input (in input order) for `unlockHash`, each against the
 * server's forfeit nonce of the same position. Throws {@link RoundSwapError}.
 */
export function forfeitBundles(p: { inputs: readonly OwnedRoundInput[]; unlockHash: Uint8Array; serverNonces: readonly Uint8Array[] }): Uint8Array[] {
  if (p.unlockHash.length !== 32) throw new RoundSwapError("unlock hash must be 32 bytes");
  if (p.serverNonces.length !== p.inputs.length) throw new RoundSwapError(`server sent ${p.serverNonces.length} nonce pairs, expected ${p.inputs.length}`);
  return p.inputs.map(({ vtxo, secretKey }, i) => {
    const nonce = p.serverNonces[i]!;
    if (nonce.length !== MUSIG_PUB_NONCE_SIZE) throw new RoundSwapError("invalid forfeit nonces");
    checkKey(vtxo, secretKey, vtxo.policy.userPubkey);
    try {
      return encodeForfeitBundle(createForfeitBundle(vtxo, p.unlockHash, secretKey, nonce));
    } catch (e) {
      throw new RoundSwapError(`failed to sign the forfeit of VTXO ${vtxoIdString(vtxo)}: ${(e as Error).message}`);
    }
  });
}

/**
 * The spendable round VTXO: `vtxo` with the leaf signature and the unlock preimage in its last
 * transition, fully validated against `fundingTx` (consensus bytes). The preimage must hash to
 * `unlockHash`, which must be the leaf's. Throws {@link RoundSwapError}.
 */
export function finalizeRoundVtxo(p: { vtxo: Vtxo; leafSignature: Uint8Array; preimage: Uint8Array; unlockHash: Uint8Array; fundingTx: Uint8Array }): Vtxo {
  const id = vtxoIdString(p.vtxo);
  const { transition } = leafOf(p.vtxo);
  const leafHash = transition.unlock.type === "hash" ? transition.unlock.hash : sha256(transition.unlock.preimage);
  if (!bytesEqual(leafHash, p.unlockHash)) throw new RoundSwapError(`VTXO ${id} is locked by another unlock hash than ${toHex(p.unlockHash)}`);
  if (p.preimage.length !== 32) throw new RoundSwapError("invalid preimage length");
  if (!bytesEqual(sha256(p.preimage), p.unlockHash)) throw new RoundSwapError(`invalid preimage for vtxo ${id} with supposed unlock hash ${toHex(p.unlockHash)}`);
  if (p.leafSignature.length !== 64) throw new RoundSwapError(`leaf signature of VTXO ${id} must be 64 bytes`);
  const last = p.vtxo.genesis.at(-1)!;
  const unlocked: HashLockedTransition = { ...transition, signature: p.leafSignature, unlock: { type: "preimage", preimage: p.preimage } };
  const vtxo: Vtxo = { ...p.vtxo, genesis: [...p.vtxo.genesis.slice(0, -1), { ...last, transition: unlocked }] };
  try {
    validateVtxo(vtxo, decodeTx(p.fundingTx));
  } catch (e) {
    throw new RoundSwapError(`new VTXO ${id} does not pass validation after hArk forfeit protocol: ${(e as Error).message}`);
  }
  return vtxo;
}

/** Splits input ids into `RequestForfeitNonces` chunks of at most {@link MAX_FORFEIT_NONCE_IDS}. */
export function forfeitNonceChunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += MAX_FORFEIT_NONCE_IDS) out.push(items.slice(i, i + MAX_FORFEIT_NONCE_IDS));
  return out;
}
