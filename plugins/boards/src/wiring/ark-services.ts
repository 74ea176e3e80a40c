/**
 * The Ark rail's services (connection, keys, VTXO store) as the board action's ports.
 */
import { encodeOutPoint, parseOutPoint, toHex, type Vtxo } from "@tender/ark-protocol";
import { mailboxAuthorization, type ArkConnection, type ArkKeys, type VtxoStore } from "@tender/plugin-ark";

/** Validity of the recovery mailbox authorization, as the Ark rail uses it. */
const RECOVERY_AUTH_SECS = 60;
import type { BoardKeys, BoardServer, BoardVtxoStore } from "../board-ports.js";

/**
 * Waits until the Ark rail has attached the loaded wallet (it does so on `WalletLoaded`, which
 * also resumes unfinished actions: a resumed board must not run before it). Gives up after
 * `timeoutMs`, and then the caller's call throws its own "No wallet set".
 */
export async function whenAttached(isAttached: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!isAttached() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
}

/** {@link BoardServer} over the wallet's Ark server connection. */
export function arkBoardServer(connection: ArkConnection, keys: ArkKeys): BoardServer {
  const server = async () => {
    await whenAttached(() => connection.isAttached);
    return connection.server;
  };
  return {
    async info() {
      await whenAttached(() => connection.isAttached);
      const i = await connection.arkInfo();
      const fees = i.fees.board;
      return {
        serverPubkey: i.serverPubkey, vtxoLifetime: i.vtxoLifetime, vtxoExitDelta: i.vtxoExitDelta,
        minBoardAmountSat: i.minBoardAmount, maxVtxoAmountSat: i.maxVtxoAmount, requiredBoardConfirmations: i.requiredBoardConfirmations,
        boardFees: { minFeeSat: fees.minFeeSat, baseFeeSat: fees.baseFeeSat, ppm: fees.ppm },
      };
    },
    async requestBoardCosign(c) {
      return (await server()).requestBoardCosign({
        amount: c.amountSat, utxo: c.utxo, expiryHeight: c.expiryHeight, userPubkey: c.userPubkey, pubNonce: c.pubNonce, fundingTx: c.fundingTx,
      });
    },
    async registerBoardVtxo(vtxo) {
      await (await server()).registerBoardVtxo(vtxo);
    },
    async backupVtxoId(vtxoId) {
      const s = await server();
      const key = keys.recoveryMailboxKey();
      await s.postRecoveryVtxoIds({
        mailboxId: key.publicKey, vtxoIds: [encodeOutPoint(parseOutPoint(vtxoId))],
        authorization: mailboxAuthorization({ mailboxKey: () => key }, RECOVERY_AUTH_SECS),
      });
    },
  };
}

/** {@link BoardKeys} over the wallet's Ark keys. */
export function arkBoardKeys(keys: ArkKeys): BoardKeys {
  return {
    async nextVtxoKey() {
      await whenAttached(() => keys.isAttached);
      return (await keys.nextVtxoKey()).publicKey;
    },
    async secretKeyFor(pubkey) {
      await whenAttached(() => keys.isAttached);
      const k = keys.keyByPubkey(pubkey);
      if (!k) throw new Error(`VTXO key ${toHex(pubkey)} is not one of the wallet's keys`);
      return k.secretKey;
    },
  };
}

/**
 * {@link BoardVtxoStore} over the Ark rail's VTXO store: the board VTXO is stored `locked` by the
 * board action (never spendable before registration), and the action's lock is released when the
 * server registered it.
 */
export function arkBoardVtxos(store: VtxoStore): BoardVtxoStore {
  return {
    async storeLocked(vtxo: Vtxo, actionId: string) {
      await store.add(vtxo, "locked", actionId);
    },
    async markSpendable(vtxoId) {
      const v = await store.get(vtxoId);
      if (v?.state === "locked" && v.lockedBy) await store.unlock(v.lockedBy);
    },
    async markSpent(vtxoId) {
      await store.markSpent([vtxoId]);
    },
    async isExited(vtxoId) {
      return (await store.get(vtxoId))?.state === "exited";
    },
  };
}
