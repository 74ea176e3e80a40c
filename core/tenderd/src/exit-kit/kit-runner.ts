/**
 * Carries the exits of a kit to the end with nothing but a chain source (Esplora): every exit
 * transaction goes out in order in a package with a CPFP child paid by the funding key, then,
 * once the last one is confirmed and the clause's delays have passed, one claim sweeps the VTXO
 * outputs to the destination. The chain is the only state: a run that stops anywhere continues,
 * when started again, from what the chain shows (confirmed txs are skipped, txs in the mempool
 * are waited for, a claim already out is waited for). The mnemonic is asked for only when a
 * claim can be signed.
 */
import { ChainSourceRejectedError, type ChainSource } from "@tender/core";
import {
  CpfpError, WalletKeys, displayHex, signKitChild, signKitClaim, type FundingKey, type KitStep, type KitVtxo, type ParsedExitKit,
} from "@tender/ark-protocol";

/** What a run needs besides the kit. */
export interface KitRunOptions {
  kit: ParsedExitKit;
  chain: ChainSource;
  destinationScript: Uint8Array;
  destinationLabel: string;
  funding: FundingKey;
  fundingAddress: string;
  /** Package and claim fee rate in sat/vB; default the chain's 1-block (children) and 3-block (claim) estimates. */
  satPerVb?: number;
  /** The wallet's BIP-39 mnemonic, asked for only when a claim is to be signed. */
  mnemonic: () => Promise<string>;
  print: (line: string) => void;
  pollMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/** How a VTXO stands on chain. */
type VtxoStand = { kind: "claimed"; txid: string } | { kind: "claim-pending"; txid: string } | { kind: "claimable" } | { kind: "waiting"; reason: string };

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs until every VTXO of the kit is claimed with a confirmed claim; answers the claim txids. */
export async function runExitKit(o: KitRunOptions): Promise<string[]> {
  const sleep = o.sleep ?? wait;
  let last = "";
  const say = (line: string) => {
    if (line !== last) o.print(line);
    last = line;
  };
  let keys: WalletKeys | undefined;
  for (;;) {
    const tip = (await o.chain.getTip()).height;
    const stands = new Map<string, VtxoStand>();
    const statuses = new Map<string, Awaited<ReturnType<ChainSource["getTxStatus"]>>>();
    const status = async (txid: string) => {
      if (!statuses.has(txid)) statuses.set(txid, await o.chain.getTxStatus(txid));
      return statuses.get(txid)!;
    };
    const spentCoins = new Set<string>();
    for (const v of o.kit.vtxos) stands.set(v.id, await standOf(o, v, tip, status, spentCoins, say));
    const claimed = [...stands.values()].filter((s): s is { kind: "claimed"; txid: string } => s.kind === "claimed");
    if (claimed.length === o.kit.vtxos.length) {
      const txids = [...new Set(claimed.map((c) => c.txid))];
      o.print(`done: every VTXO of the kit is claimed (claim ${txids.join(", ")})`);
      return txids;
    }
    const ready = o.kit.vtxos.filter((v) => stands.get(v.id)!.kind === "claimable");
    if (ready.length > 0) {
      if (!keys) {
        o.print(`${ready.length} VTXO(s) can be claimed now: the mnemonic is needed to sign the claim`);
        keys = WalletKeys.fromMnemonic((await o.mnemonic()).trim());
      }
      await claim(o, ready, keys, tip);
      continue;
    }
    await sleep(o.pollMs);
  }
}

/** Where one VTXO stands; broadcasts the next exit tx of its chain when it can go out. */
async function standOf(
  o: KitRunOptions, v: KitVtxo, tip: number, status: (txid: string) => ReturnType<ChainSource["getTxStatus"]>, spentCoins: Set<string>, say: (l: string) => void,
): Promise<VtxoStand> {
  const out = v.claim.outpoint;
  const spend = await o.chain.getOutspend(displayHex(out.txid), out.vout);
  if (spend.spent) {
    const st = await status(spend.txid);
    if (st?.confirmed) return { kind: "claimed", txid: spend.txid };
    say(`VTXO ${v.id}: claim ${spend.txid} is in the mempool, waiting for a block`);
    return { kind: "claim-pending", txid: spend.txid };
  }
  for (const [i, step] of v.steps.entries()) {
    const st = await status(step.txid);
    if (st?.confirmed) continue;
    const where = `VTXO ${v.id}: exit tx ${i + 1}/${v.steps.length} ${step.txid}`;
    if (st) {
      say(`${where} is in the mempool, waiting for a block`);
      return { kind: "waiting", reason: "mempool" };
    }
    const parent = await status(step.parentTxid);
    if (!parent?.confirmed) {
      say(`${where}: waiting for its parent ${step.parentTxid} to confirm`);
      return { kind: "waiting", reason: "parent" };
    }
    await broadcastStep(o, step, where, spentCoins, say);
    return { kind: "waiting", reason: "broadcast" };
  }
  const lastStep = v.steps[v.steps.length - 1]!;
  const lastStatus = await status(lastStep.txid);
  const confirmedAt = lastStatus?.confirmed ? lastStatus.block.height : tip;
  // a CSV input is valid in the block at confirmedAt + csv; the claim goes into the next block
  const csvFrom = confirmedAt + v.claim.csvDelta;
  const from = Math.max(csvFrom, v.claim.cltvHeight + 1);
  if (tip + 1 < from) {
    say(`VTXO ${v.id}: exit chain confirmed at height ${confirmedAt}; claimable from height ${from} (tip ${tip}, ${from - tip - 1} block(s) to go)`);
    return { kind: "waiting", reason: "delay" };
  }
  return { kind: "claimable" };
}

async function feeRate(o: KitRunOptions, target: number): Promise<bigint> {
  if (o.satPerVb !== undefined) return BigInt(Math.ceil(o.satPerVb * 250));
  const est = await o.chain.getFeeEstimates([target]);
  const rate = est.get(target);
  if (rate === undefined) throw new Error(`the chain source has no fee estimate for ${target} block(s): pass --fee-rate`);
  return BigInt(Math.ceil(rate * 250));
}

/** Submits an exit tx with its CPFP child funded by the funding key's confirmed coins. */
async function broadcastStep(o: KitRunOptions, step: KitStep, where: string, spentCoins: Set<string>, say: (l: string) => void): Promise<void> {
  const utxos = (await o.chain.getScriptUtxos({ scriptPubKeyHex: Buffer.from(o.funding.scriptPubKey).toString("hex") }))
    .filter((u) => u.status.confirmed && !spentCoins.has(`${u.txid}:${u.vout}`));
  const coins = utxos.map((u) => ({ outpoint: { txid: Uint8Array.from(Buffer.from(u.txid, "hex").reverse()), vout: u.vout }, value: BigInt(u.valueSat) }));
  let child;
  try {
    child = signKitChild(step.tx, coins, o.funding, await feeRate(o, 1));
  } catch (e) {
    if (e instanceof CpfpError) {
      say(`${where}: ${e.message}; send confirmed coins to the funding address ${o.fundingAddress}`);
      return;
    }
    throw e;
  }
  for (const inp of child.tx.inputs.slice(1)) spentCoins.add(`${displayHex(inp.prevout.txid)}:${inp.prevout.vout}`);
  try {
    await o.chain.broadcastPackage([step.hex, child.hex]);
    o.print(`${where}: broadcast with CPFP child ${child.txid} (fee ${child.fee} sat)`);
  } catch (e) {
    if (!(e instanceof ChainSourceRejectedError)) throw e;
    // a refusal of a package the chain has meanwhile is no refusal; anything else is reported and retried
    if ((await o.chain.getTxStatus(step.txid)) === null) say(`${where}: the package was refused (${e.reason}); retrying`);
  }
}

/** Signs and broadcasts one claim of `ready` to the destination. */
async function claim(o: KitRunOptions, ready: readonly KitVtxo[], keys: WalletKeys, tip: number): Promise<void> {
  const inputs = ready.map((vtxo) => ({ vtxo, secretKey: keys.vtxoKey(vtxo.claim.keyIndex).secretKey }));
  const tx = signKitClaim(inputs, o.destinationScript, tip, await feeRate(o, 3));
  try {
    await o.chain.broadcast(tx.hex);
  } catch (e) {
    if (!(e instanceof ChainSourceRejectedError)) throw e;
    throw new Error(`the claim ${tx.txid} was refused: ${e.reason}`);
  }
  const total = ready.reduce((t, v) => t + v.amount, 0n);
  o.print(`claim ${tx.txid} broadcast: ${total - tx.fee} sat to ${o.destinationLabel} (fee ${tx.fee} sat) for ${ready.map((v) => v.id).join(", ")}`);
}
