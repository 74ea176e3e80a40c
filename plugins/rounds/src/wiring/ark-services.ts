/**
 * The Ark rail's services (connection, keys, VTXO store and locks) as the rounds rail's ports. The
 * connection and the keys are wallet services: each call takes the loaded wallet's (waiting while
 * it loads), so work resumed at wallet load finds them ready.
 */
import type { WalletService } from "@tender/core";
import { encodeOutPoint, encodeVtxo, parseOutPoint } from "@tender/ark-protocol";
import type { ArkServer } from "@tender/ark-protocol/server";
import { mailboxAuthorization, type ArkKeys, type VtxoLocks, type VtxoStore } from "@tender/plugin-ark";
import type { Logger } from "@tender/core";
import type { RoundKeys, RoundServer, RoundVtxos } from "../round-ports.js";

/** Validity of a recovery mailbox authorization, as the Ark rail uses it. */
const RECOVERY_AUTH_SECS = 60;
/** Most ids one recovery post carries. */
const MAX_RECOVERY_IDS = 20;

/** {@link RoundServer} over the wallet's Ark server connection. */
export function arkRoundServer(connection: WalletService<ArkServer>, keys: WalletService<ArkKeys>, logger: Logger): RoundServer {
  const server = () => connection.get();
  return {
    async info() {
      const i = (await (await server()).connect()).arkInfo;
      return {
        serverPubkey: i.serverPubkey, vtxoExitDelta: i.vtxoExitDelta, vtxoLifetime: i.vtxoLifetime, nbRoundNonces: i.nbRoundNonces,
        maxVtxoExitDepth: i.maxVtxoExitDepth, refreshFees: i.fees.refresh,
      };
    },
    registerVtxos: async (vtxos) => (await server()).registerVtxoTransactions(vtxos.map((v) => encodeVtxo(v))),
    submitPayment: async (r) => (await server()).submitPayment(r),
    provideVtxoSignatures: async (r) => (await server()).provideVtxoSignatures(r),
    submitRoundParticipation: async (r) => (await server()).submitRoundParticipation(r),
    roundParticipationStatus: async (h) => (await server()).roundParticipationStatus(h),
    requestLeafVtxoCosign: async (r) => (await server()).requestLeafVtxoCosign(r),
    requestForfeitNonces: async (h, ids) => (await server()).requestForfeitNonces(h, ids),
    forfeitVtxos: async (b) => (await server()).forfeitVtxos(b),
    lastRoundEvent: async () => (await server()).lastRoundEvent(),
    async backupVtxoIds(ids) {
      try {
        const s = await server();
        const key = (await keys.get()).recoveryMailboxKey();
        for (let i = 0; i < ids.length; i += MAX_RECOVERY_IDS) {
          await s.postRecoveryVtxoIds({
            mailboxId: key.publicKey, vtxoIds: ids.slice(i, i + MAX_RECOVERY_IDS).map((id) => encodeOutPoint(parseOutPoint(id))),
            authorization: mailboxAuthorization({ mailboxKey: () => key }, RECOVERY_AUTH_SECS),
          });
        }
      } catch (e) {
        logger.warn(`posting ${ids.length} VTXO id(s) to the recovery mailbox failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  };
}

/** {@link RoundKeys} over the wallet's Ark keys. */
export function arkRoundKeys(keys: WalletService<ArkKeys>): RoundKeys {
  return {
    nextVtxoKey: async () => (await keys.get()).nextVtxoKey(),
    keyAt: async (index) => (await keys.get()).deriveVtxoKey(index),
    secretKeyFor: async (pubkey) => (await (await keys.get()).keyByPubkey(pubkey))?.secretKey,
    isOwn: async (pubkey) => (await keys.get()).isOwnPubkey(pubkey),
    mailboxId: async () => (await keys.get()).mailboxKey().publicKey,
  };
}

/** {@link RoundVtxos} over the Ark rail's VTXO store and the shared locks. */
export function arkRoundVtxos(store: VtxoStore, locks: VtxoLocks): RoundVtxos {
  const view = (v: Awaited<ReturnType<VtxoStore["get"]>>) => (v ? { id: v.id, vtxo: v.vtxo, state: v.state, lockedBy: v.lockedBy } : undefined);
  return {
    get: async (id) => view(await store.get(id)),
    spendable: async () => (await store.list(["spendable"])).map((v) => view(v)!),
    lock: (ids, owner) => locks.lock(ids, owner),
    release: (owner) => locks.release(owner),
    async storeSpendable(vtxos) {
      for (const v of vtxos) await store.add(v, "spendable");
    },
    markSpent: (ids) => store.markSpent(ids),
  };
}
