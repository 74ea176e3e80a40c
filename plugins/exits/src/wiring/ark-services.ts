/**
 * The Ark rail's VTXO store, shared VTXO locks and keys as the exits' ports. An exiting VTXO is
 * held by the exit's lock (`exit.<n>`), so no other action spends it while its exit chain may
 * go on chain; from `awaiting-delta` on it is `exited`.
 */
import type { WalletService } from "@tender/core";
import { toHex } from "@tender/ark-protocol";
import { VtxoNotSpendableError, type ArkKeys, type StoredVtxo, type VtxoLocks, type VtxoStore } from "@tender/plugin-ark";
import type { ExitKeys, ExitVtxoView, ExitVtxos } from "../exit-ports.js";

const view = (v: StoredVtxo): ExitVtxoView => ({ id: v.id, vtxo: v.vtxo, state: v.state, lockedBy: v.lockedBy });

export function arkExitVtxos(store: VtxoStore, locks: VtxoLocks): ExitVtxos {
  return {
    async get(id) {
      const v = await store.get(id);
      return v ? view(v) : undefined;
    },
    async listUnspent() {
      return (await store.list(["spendable", "locked"])).map(view);
    },
    async tryLock(id, lockId) {
      try {
        await locks.lock([id], lockId);
        return true;
      } catch (e) {
        if (e instanceof VtxoNotSpendableError) return false;
        throw e;
      }
    },
    async release(lockId) {
      await locks.release(lockId);
    },
    async markExited(id) {
      await store.markExited([id]);
    },
  };
}

export function arkExitKeys(keys: WalletService<ArkKeys>): ExitKeys {
  return {
    async secretKeyFor(pubkey) {
      return (await (await keys.get()).keyByPubkey(toHex(pubkey)))?.secretKey;
    },
  };
}
