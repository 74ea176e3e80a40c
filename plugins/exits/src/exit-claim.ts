/**
 * Claiming: one transaction sweeps every selected claimable exit output to a destination
 * (`buildClaimTx`: each input through the first exit clause the wallet can sign). It is stored
 * before its broadcast — and, when the destination is the on-chain wallet's own, held by the
 * wallet, which lists and counts it once it is out. A refusal drops it and frees nothing else
 * (the exits stay claimable); an outage after which it may be out keeps it, and every progress
 * pass submits a stored claim again until the chain has it or one of its inputs is spent
 * elsewhere.
 */
import { ChainSourceRejectedError, InternalServerError, certainlyNotProcessed, faultPoint, type Logger } from "@tender/core";
import { ClaimError, buildClaimTx, encodeTx, toHex, txVsize, txidHex, type ClaimInput } from "@tender/ark-protocol";
import { exitErrors, failedTo } from "./exit-errors.js";
import type { ExitPorts } from "./exit-ports.js";
import type { ExitRecord, ExitStore } from "./exit-records.js";
import { claimInputOf, outpointOf } from "./exit-progress.js";
import type { ExitService } from "./exit-service.js";

/** sat/kvB → sat/kwu, rounded up. */
export const kvbToKwu = (satPerKvb: bigint): bigint => (satPerKvb + 3n) / 4n;

/** The signed claim of `exits` to `destination` at `satPerKvb` (barkd's drain). */
export async function buildClaim(ports: ExitPorts, store: ExitStore, exits: readonly ExitRecord[], destination: Uint8Array, satPerKvb: bigint, tipHeight: number) {
  if (exits.length === 0) throw exitErrors.claimMissingInputs();
  const inputs: ClaimInput[] = [];
  for (const e of exits) {
    if (e.state.type !== "claimable") throw new Error(`VTXO Not Spendable Error: Attempted to claim a VTXO which is not in a spendable state: ${e.vtxoId}`);
    const view = await ports.vtxos.get(e.vtxoId);
    if (!view) throw exitErrors.internal(`VTXO for exit couldn't be found: ${e.vtxoId}`);
    inputs.push(await claimInputOf(ports, store, view.vtxo, e.vtxoId));
  }
  try {
    return buildClaimTx({ inputs, destinationScript: destination, tipHeight, feeRateSatPerKwu: kvbToKwu(satPerKvb) });
  } catch (e) {
    if (e instanceof ClaimError) {
      const m = /claim fee (\d+) leaves less than (\d+) sat of (\d+)/.exec(e.message);
      if (m) throw exitErrors.claimFeeExceedsOutput(BigInt(m[1]!) + BigInt(m[2]!), BigInt(m[3]!));
      if (/no exit clause/.test(e.message)) throw exitErrors.missingSignableClause(exits[0]!.vtxoId);
    }
    throw exitErrors.claimSigning(e);
  }
}

/**
 * Claims `which` (VTXO ids already checked to be claimable, or every claimable exit) to the
 * address whose script is `destination`. Answers once the claim is broadcast (or may be out).
 */
export function claimExits(service: ExitService, which: readonly string[] | "all", destination: Uint8Array, satPerKvb: bigint | undefined): Promise<void> {
  const { ports, store, logger } = service;
  return service.lock.run(async () => {
    // a claim stored earlier that may be out first: its exits are no longer claimable
    await settleClaims(ports, store, logger);
    const claimable = (await store.exits()).filter((r) => r.state.type === "claimable");
    const exits = which === "all" ? claimable : which.map((id) => claimable.find((r) => r.vtxoId === id)).filter((r): r is ExitRecord => !!r);
    let claim;
    try {
      const tip = await ports.chain.tip().catch((e: unknown) => {
        throw exitErrors.tipRetrieval(e);
      });
      const rate = satPerKvb ?? (await ports.wallet.feeRates()).regularSatPerKvb;
      claim = await buildClaim(ports, store, exits, destination, rate, tip.height);
    } catch (e) {
      throw failedTo("Failed to drain exits", e);
    }
    const hex = toHex(encodeTx(claim.tx));
    const txid = txidHex(claim.tx);
    const own = await ports.wallet.ownsScript(destination);
    const record = { txid, hex, vtxoIds: exits.map((e) => e.vtxoId), feeSat: claim.fee, ownDestination: own, status: "built" as const, createdAtMs: service.now() };
    await store.saveClaim(record);
    if (own) await ports.wallet.holdClaim({ txid, hex, feeSat: claim.fee, vsize: txVsize(claim.tx) });
    faultPoint("exit-claim:recorded");
    try {
      await ports.chain.broadcast(hex);
    } catch (e) {
      // a refusal of a transaction the chain already has is no refusal
      const known = e instanceof ChainSourceRejectedError ? await ports.chain.txStatus(txid).then((st) => st !== null, () => false) : false;
      if (!known && (e instanceof ChainSourceRejectedError || certainlyNotProcessed(e))) {
        if (own) await ports.wallet.release(txid);
        await store.saveClaim({ ...record, status: "dropped" });
        throw new InternalServerError(`Failed to broadcast transaction: ${e instanceof ChainSourceRejectedError ? e.reason : e instanceof Error ? e.message : String(e)}`);
      }
      if (!known) {
        logger.warn(`claim ${txid} may not have reached a node (${e instanceof Error ? e.message : String(e)}); it is submitted again by the next progress`);
        return;
      }
    }
    faultPoint("exit-claim:broadcast");
    await noteClaimOut(ports, store, record);
    logger.info(`claim transaction ${txid} broadcast for ${exits.length} exit(s)`);
  });
}

/** A claim is out: the wallet lists it, and its exits are `claim-in-progress`. */
async function noteClaimOut(ports: ExitPorts, store: ExitStore, claim: { txid: string; vtxoIds: readonly string[]; ownDestination: boolean } & Parameters<ExitStore["saveClaim"]>[0]): Promise<void> {
  if (claim.ownDestination) await ports.wallet.noteBroadcast(claim.txid);
  const tip = await ports.chain.tip().catch(() => undefined);
  await ports.atomically(async () => {
    await store.saveClaim({ ...claim, status: "broadcast" });
    for (const id of claim.vtxoIds) {
      const r = await store.exit(id);
      if (r?.state.type !== "claimable") continue;
      await store.saveExit({
        ...r, history: [...r.history, r.state],
        state: { type: "claim-in-progress", tipHeight: tip?.height ?? r.state.tipHeight, claimableSince: r.state.claimableSince, claimTxid: claim.txid },
      });
    }
  });
}

/**
 * Stored claims whose broadcast may not have happened: out already → noted; otherwise submitted
 * again while every input is unspent; an input spent elsewhere → dropped.
 */
export async function settleClaims(ports: ExitPorts, store: ExitStore, logger: Logger): Promise<void> {
  for (const c of await store.claims()) {
    if (c.status !== "built") continue;
    try {
      if ((await ports.chain.txStatus(c.txid)) !== null) {
        await noteClaimOut(ports, store, c);
        continue;
      }
      let spentElsewhere = false;
      for (const id of c.vtxoIds) {
        const view = await ports.vtxos.get(id);
        if (!view) continue;
        const p = outpointOf(view.vtxo);
        const spend = await ports.chain.outspend(p.txid, p.vout);
        if (spend.spent && spend.txid !== c.txid) spentElsewhere = true;
      }
      if (spentElsewhere) {
        if (c.ownDestination) await ports.wallet.release(c.txid);
        await store.saveClaim({ ...c, status: "dropped" });
        continue;
      }
      await ports.chain.broadcast(c.hex);
      await noteClaimOut(ports, store, c);
    } catch (e) {
      if (e instanceof ChainSourceRejectedError) {
        if (c.ownDestination) await ports.wallet.release(c.txid);
        await store.saveClaim({ ...c, status: "dropped" });
      }
      logger.warn(`stored claim ${c.txid}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
