/**
 * The Ark rail's services (connection, keys, VTXO store) as the board action's ports. The
 * connection and the keys are wallet services: each call takes the loaded wallet's (waiting while
 * the wallet loads), so a board resumed at wallet load finds them ready.
 */
import type { WalletService } from "@tender/core";
import type { WalletSettings } from "@tender/plugin-wallet";
import { encodeOutPoint, parseOutPoint, toHex, type Vtxo } from "@tender/ark-protocol";
import type { ArkServer } from "@tender/ark-protocol/server";
import { mailboxAuthorization, type ArkKeys, type HeldVtxoExits, type VtxoLocks, type VtxoStore } from "@tender/plugin-ark";
import type { BoardExits, BoardKeys, BoardServer, BoardVtxoStore } from "../board-ports.js";

/** Validity of the recovery mailbox authorization, as the Ark rail uses it. */
const RECOVERY_AUTH_SECS = 60;

/** {@link BoardServer} over the wallet's Ark server connection. */
export function arkBoardServer(connection: WalletService<ArkServer>, keys: WalletService<ArkKeys>): BoardServer {
  return {
    async info() {
      const i = (await (await connection.get()).connect()).arkInfo;
      const fees = i.fees.board;
      return {
        serverPubkey: i.serverPubkey, vtxoLifetime: i.vtxoLifetime, vtxoExitDelta: i.vtxoExitDelta,
        minBoardAmountSat: i.minBoardAmount, maxVtxoAmountSat: i.maxVtxoAmount, requiredBoardConfirmations: i.requiredBoardConfirmations,
        boardFees: { minFeeSat: fees.minFeeSat, baseFeeSat: fees.baseFeeSat, ppm: fees.ppm },
      };
    },
    async requestBoardCosign(c) {
      return (await connection.get()).requestBoardCosign({
        amount: c.amountSat, utxo: c.utxo, expiryHeight: c.expiryHeight, userPubkey: c.userPubkey, pubNonce: c.pubNonce, fundingTx: c.fundingTx,
      });
    },
    async registerBoardVtxo(vtxo) {
      await (await connection.get()).registerBoardVtxo(vtxo);
    },
    async backupVtxoId(vtxoId) {
      const server = await connection.get();
      const key = (await keys.get()).recoveryMailboxKey();
      await server.postRecoveryVtxoIds({
        mailboxId: key.publicKey, vtxoIds: [encodeOutPoint(parseOutPoint(vtxoId))],
        authorization: mailboxAuthorization({ mailboxKey: () => key }, RECOVERY_AUTH_SECS),
      });
    },
  };
}

/** {@link BoardKeys} over the wallet's Ark keys. */
export function arkBoardKeys(keys: WalletService<ArkKeys>): BoardKeys {
  return {
    async nextVtxoKey() {
      return (await (await keys.get()).nextVtxoKey()).publicKey;
    },
    async secretKeyFor(pubkey) {
      const k = await (await keys.get()).keyByPubkey(pubkey);
      if (!k) throw new Error(`VTXO key ${toHex(pubkey)} is not one of the wallet's keys`);
      return k.secretKey;
    },
  };
}

/**
 * {@link BoardVtxoStore} over the Ark rail's VTXO store and locks: the board VTXO is held by the
 * board action through the rails' shared {@link VtxoLocks} (never spendable before registration),
 * and the action releases it when the server registered it.
 */
export function arkBoardVtxos(store: VtxoStore, locks: VtxoLocks): BoardVtxoStore {
  return {
    async storeLocked(vtxo: Vtxo, actionId: string) {
      await locks.holdNew(vtxo, actionId);
    },
    async markSpendable(vtxoId) {
      const v = await store.get(vtxoId);
      if (v?.state === "locked" && v.lockedBy) await locks.release(v.lockedBy);
    },
    async markSpent(vtxoId) {
      await store.markSpent([vtxoId]);
    },
    async isExited(vtxoId) {
      return (await store.get(vtxoId))?.state === "exited";
    },
  };
}

/**
 * {@link BoardExits} over the Ark rail's extension point for exits of held VTXOs (the exits rail
 * registers its handler there when it is loaded) and the wallet's refresh threshold.
 */
export function heldBoardExits(held: HeldVtxoExits, settings: WalletService<WalletSettings>): BoardExits {
  return {
    async threshold() {
      return held.handler ? (await settings.get()).vtxo_refresh_expiry_threshold : undefined;
    },
    async start(vtxoId, actionId) {
      const handler = held.handler;
      if (!handler) throw new Error("no exits rail is loaded to exit the board");
      await handler.exitHeld({ vtxoIds: [vtxoId], holder: actionId });
    },
    async outcome(vtxoId) {
      return held.handler ? held.handler.outcome(vtxoId) : "none";
    },
  };
}
