import {
  ancestorIdStrings, decodeTx, decodeVtxo, displayHex, encodeOutPoint, exitDepth, fromHex, parseOutPoint, signAttestation, validateVtxo,
  vtxoIdString, vtxoStatusAttestation, type DerivedKey, type Vtxo,
} from "@tender/ark-protocol";
import type { ArkServer } from "@tender/ark-protocol/server";
import type { ChainSource, Logger } from "@tender/core";
import type { VtxoKey } from "../keys/ark-keys.js";
import type { VtxoStore } from "../vtxos/vtxo-store.js";
import { matchOwners, type OwnerKeys } from "./owner-matching.js";
import type { RecoveryContributors } from "./recovery-contributors.js";
import { readRecoveryMailbox } from "./recovery-mailbox.js";
import { RecoveryReport } from "./recovery-report.js";

/** Passes over the ids that failed, after the first one. */
export const RECOVERY_RETRIES = 3;

/** What a recovery from the seed works with. */
export interface SeedRecoveryPorts {
  readonly server: Pick<ArkServer, "readMailbox" | "getVtxo" | "getVtxoStatus">;
  readonly keys: OwnerKeys & { recoveryMailboxKey(): DerivedKey };
  readonly chain: Pick<ChainSource, "getTx" | "getTxStatus">;
  readonly vtxos: Pick<VtxoStore, "get" | "add" | "markRecoveryRegistered">;
  /** Moves the wallet's mailbox checkpoint to at least `checkpoint`. */
  readonly storeCheckpoint: (checkpoint: bigint) => Promise<void>;
  readonly contributors: RecoveryContributors;
  readonly logger: Logger;
}

const text = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Rebuilds the wallet's VTXOs from its recovery mailbox (a wallet just created from its seed):
 *
 * 1. every id the mailbox holds (backed-up ids, arkoor deliveries), each once;
 * 2. the full VTXO of each from the server (`GetVtxo`); a fetch that fails is `failed`;
 * 3. its key: known keys first, then a scan with the gap limit (unmatched: `foreign`);
 * 4. validated against its chain anchor from the chain source (invalid or not found: `failed`);
 * 5. walked newest first, by (expiry, exit depth): a VTXO spent into one already walked is `skipped`;
 * 6. its own transaction confirmed on chain: stored as `exited`, and handed to the contributors;
 * 7. otherwise the server's spend state (`GetVtxoStatus`, attested with its key): spendable is
 *    stored as spendable (marked as backed up: it is in the mailbox, its chain on the server), spent / unclaimed / unregistered / unclaimed HTLC
 *    receive are `skipped`, anything else `failed`.
 *
 * Failed ids get {@link RECOVERY_RETRIES} more passes. The mailbox checkpoint then moves to the
 * recovery mailbox's, so the wallet's mailbox is not replayed from the start (old arkoor deliveries
 * of since spent VTXOs would come back as spendable). The report goes to the log and to the
 * contributors. Throws only when the recovery mailbox cannot be read.
 */
export async function recoverFromSeed(p: SeedRecoveryPorts): Promise<RecoveryReport> {
  const report = new RecoveryReport();
  const recoveryKey = p.keys.recoveryMailboxKey();
  const { ids, checkpoint } = await readRecoveryMailbox(p.server, { mailboxKey: () => recoveryKey }, p.logger);
  p.logger.info(`recovery: ${ids.length} distinct VTXO id(s) in the recovery mailbox`);
  const exited: Vtxo[] = [];
  await recoverIds(p, report, ids, exited);
  for (let pass = 0; pass < RECOVERY_RETRIES && report.count("failed") > 0; pass++) await recoverIds(p, report, report.ids("failed"), exited);
  await p.storeCheckpoint(checkpoint);

  if (report.count("foreign") > 0) {
    p.logger.warn(`recovery: ${report.count("foreign")} VTXO(s) of the recovery mailbox belong to no key of this seed within the gap limit; if they are ours they were not recovered: ${report.ids("foreign").join(", ")}`);
  }
  if (report.count("failed") > 0) {
    p.logger.warn(`recovery incomplete: ${report.count("failed")} VTXO(s) could not be checked, funds may be missing: ${report.ids("failed").join(", ")}`);
  }
  p.logger.info(`recovery ${report.complete ? "complete" : "incomplete"}: ${report.summary()}`);

  for (const { plugin, contributor } of p.contributors.list()) {
    try {
      if (exited.length > 0 && contributor.exited) await contributor.exited(exited);
      if (contributor.finished) await contributor.finished(report);
    } catch (e) {
      p.logger.warn(`recovery: plugin ${plugin}'s contribution failed: ${text(e)}`);
    }
  }
  return report;
}

/** One pass over `ids`. */
async function recoverIds(p: SeedRecoveryPorts, report: RecoveryReport, ids: readonly string[], exited: Vtxo[]): Promise<void> {
  const fetched: Vtxo[] = [];
  for (const id of ids) {
    try {
      const vtxo = decodeVtxo(await p.server.getVtxo(encodeOutPoint(parseOutPoint(id))));
      if (vtxoIdString(vtxo) !== id) throw new Error(`the server answered VTXO ${vtxoIdString(vtxo)}`);
      fetched.push(vtxo);
    } catch (e) {
      p.logger.warn(`recovery: could not fetch VTXO ${id}: ${text(e)}`);
      report.record("failed", id);
    }
  }

  const { owned, foreign } = await matchOwners(fetched, p.keys);
  for (const v of foreign) report.record("foreign", vtxoIdString(v), v.amount);
  const valid: { vtxo: Vtxo; key: VtxoKey }[] = [];
  for (const o of owned) {
    try {
      await validateAgainstAnchor(o.vtxo, p.chain);
      valid.push(o);
    } catch (e) {
      p.logger.warn(`recovery: VTXO ${vtxoIdString(o.vtxo)} is not valid: ${text(e)}`);
      report.record("failed", vtxoIdString(o.vtxo), o.vtxo.amount);
    }
  }

  // newest first: a VTXO spent into one already walked is among that one's ancestors
  valid.sort((a, b) => b.vtxo.expiryHeight - a.vtxo.expiryHeight || exitDepth(b.vtxo) - exitDepth(a.vtxo));
  const spentInto = new Set<string>();
  for (const { vtxo, key } of valid) {
    const id = vtxoIdString(vtxo);
    if (spentInto.has(id)) {
      report.record("skipped", id, vtxo.amount);
      continue;
    }
    for (const a of ancestorIdStrings(vtxo)) spentInto.add(a);
    await decide(p, report, vtxo, key, exited);
  }
}

async function validateAgainstAnchor(vtxo: Vtxo, chain: SeedRecoveryPorts["chain"]): Promise<void> {
  const anchorTxid = displayHex(vtxo.anchorPoint.txid);
  const anchor = await chain.getTx(anchorTxid);
  if (!anchor) throw new Error(`chain anchor ${anchorTxid} not found`);
  validateVtxo(vtxo, decodeTx(fromHex(anchor.hex)));
}

/** Where one owned, valid VTXO stands: already known, exited on chain, or as the server says. */
async function decide(p: SeedRecoveryPorts, report: RecoveryReport, vtxo: Vtxo, key: VtxoKey, exited: Vtxo[]): Promise<void> {
  const id = vtxoIdString(vtxo);
  const known = await p.vtxos.get(id);
  if (known) {
    // a recovery run again on this wallet keeps what it has
    report.record(known.state === "exited" ? "exited" : known.state === "spent" ? "skipped" : "recovered", id, vtxo.amount);
    return;
  }
  // A VTXO's own transaction is on chain only when it was exited; the server's spend state does
  // not show unilateral exits. A chain source that cannot tell leaves it to the server's state.
  const status = await p.chain.getTxStatus(displayHex(vtxo.point.txid)).catch(() => null);
  if (status?.confirmed) {
    await p.vtxos.add(vtxo, "exited");
    // found in the recovery mailbox, fully signed on the server: nothing for the sync to catch up
    await p.vtxos.markRecoveryRegistered([id]);
    exited.push(vtxo);
    report.record("exited", id, vtxo.amount);
    p.logger.info(`recovery: VTXO ${id} was exited on chain at height ${status.block.height}`);
    return;
  }
  const idBytes = encodeOutPoint(vtxo.point);
  let state;
  try {
    state = await p.server.getVtxoStatus(idBytes, signAttestation(vtxoStatusAttestation(idBytes), key.secretKey));
  } catch (e) {
    p.logger.warn(`recovery: could not get the status of VTXO ${id}: ${text(e)}`);
    report.record("failed", id, vtxo.amount);
    return;
  }
  switch (state) {
    case "spendable":
      try {
        await p.vtxos.add(vtxo, "spendable");
        await p.vtxos.markRecoveryRegistered([id]);
        report.record("recovered", id, vtxo.amount);
      } catch (e) {
        p.logger.warn(`recovery: could not store VTXO ${id}: ${text(e)}`);
        report.record("failed", id, vtxo.amount);
      }
      return;
    case "spent":
    case "unclaimed":
    case "unregistered":
    case "htlc-recv-unclaimed":
      p.logger.debug(`recovery: VTXO ${id} is ${state} on the server; skipped`);
      report.record("skipped", id, vtxo.amount);
      return;
    case "unspecified":
      p.logger.warn(`recovery: the server gave no spend state for VTXO ${id}`);
      report.record("failed", id, vtxo.amount);
      return;
  }
}
