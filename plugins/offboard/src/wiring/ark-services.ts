/**
 * The Ark rail's services (connection, keys, VTXO store and locks) as the offboard action's
 * ports. The connection and the keys are wallet services: each call takes the loaded wallet's
 * (waiting while the wallet loads), so an offboard resumed at wallet load finds them ready.
 */
import type { Logger, WalletService } from "@tender/core";
import { encodeOutPoint, parseOutPoint, satPerKvbToSatPerKwuCeil, toHex } from "@tender/ark-protocol";
import type { ArkServer } from "@tender/ark-protocol/server";
import { mailboxAuthorization, type ArkKeys, type StoredVtxo, type VtxoLocks, type VtxoStore } from "@tender/plugin-ark";
import type { OffboardKeys, OffboardServer, OffboardVtxo, OffboardVtxos } from "../offboard-ports.js";

/** Validity of the recovery mailbox authorization, as the Ark rail uses it. */
const RECOVERY_AUTH_SECS = 60;
/** Most ids one recovery post carries. */
const MAX_RECOVERY_IDS = 20;

/** {@link OffboardServer} over the wallet's Ark server connection. */
export function arkOffboardServer(connection: WalletService<ArkServer>, keys: WalletService<ArkKeys>, logger: Logger): OffboardServer {
  const server = () => connection.get();
  return {
    async info() {
      const i = (await (await server()).connect()).arkInfo;
      return { serverPubkey: i.serverPubkey, maxOffboardInputs: i.maxOffboardInputs, maxVtxoExitDepth: i.maxVtxoExitDepth, fees: i.fees.offboard };
    },
    feeRateSatPerKwu: async () => satPerKvbToSatPerKwuCeil(await (await server()).offboardFeeRateSatPerKvb()),
    prepare: async (r) => (await server()).prepareOffboard(r),
    finish: async (r) => (await server()).finishOffboard(r),
    registerVtxos: async (v) => (await server()).registerVtxoTransactions(v),
    arkoorCosign: async (parts) => (await server()).requestArkoorCosign(parts),
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

/** {@link OffboardKeys} over the wallet's Ark keys. */
export function arkOffboardKeys(keys: WalletService<ArkKeys>): OffboardKeys {
  let current: ArkKeys | undefined;
  const sync = (): ArkKeys => {
    current = keys.current;
    if (!current) throw new Error("the wallet's Ark keys are not loaded");
    return current;
  };
  return {
    async next() {
      const k = await (await keys.get()).nextVtxoKey();
      return { index: k.index, publicKey: k.publicKey };
    },
    publicKeyAt: (index) => sync().deriveVtxoKey(index).publicKey,
    async secretFor(pubkey) {
      const k = await sync().keyByPubkey(pubkey);
      if (!k) throw new Error(`VTXO key ${toHex(pubkey)} is not one of the wallet's keys`);
      return k.secretKey;
    },
  };
}

const asOffboardVtxo = (v: StoredVtxo): OffboardVtxo => ({ id: v.id, vtxo: v.vtxo, amountSat: v.amountSat, state: v.state, lockedBy: v.lockedBy });

/** {@link OffboardVtxos} over the Ark rail's VTXO store and its shared locks. */
export function arkOffboardVtxos(store: VtxoStore, locks: VtxoLocks): OffboardVtxos {
  return {
    get: async (id) => {
      const v = await store.get(id);
      return v ? asOffboardVtxo(v) : undefined;
    },
    select: (choose) => locks.select((spendable) => choose(spendable.map(asOffboardVtxo))),
    lock: (ids, holder) => locks.lock(ids, holder),
    release: (holder) => locks.release(holder),
    holdNew: (vtxo, holder) => locks.holdNew(vtxo, holder),
    markSpent: (ids) => store.markSpent(ids),
  };
}
