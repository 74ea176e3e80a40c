/** The wallet kit's {@link ArkApi} over real gRPC, through `@tender/ark-grpc`'s `ArkServerClient`. */
import { ArkServerClient, type ArkInfo as ArkInfoMessage } from "@tender/ark-grpc";
import type { FeeSchedule } from "@tender/ark-protocol";
import type { ArkApi, KitArkInfo } from "./wallet-kit.js";

/** Converts the client's `ArkInfo` message to what the kit needs. */
export function kitArkInfo(i: ArkInfoMessage): KitArkInfo {
  if (!i.fees) throw new Error("missing fees");
  return {
    serverPubkey: i.serverPubkey,
    mailboxPubkey: i.mailboxPubkey,
    vtxoLifetime: i.vtxoLifetime,
    vtxoExitDelta: i.vtxoExitDelta,
    requiredBoardConfirmations: i.requiredBoardConfirmations,
    fees: i.fees as unknown as FeeSchedule,
  };
}

/** A connected client for `url` (regtest). */
export function grpcClient(url: string): ArkServerClient {
  return new ArkServerClient({ url, network: "regtest", userAgent: "tender-test/0.1.0" });
}

/** Adapts a client to the kit's interface (`pver` is the negotiated version; the kit's value is ignored). */
export function grpcApi(client: ArkServerClient): ArkApi {
  return {
    arkInfo: async () => kitArkInfo(await client.arkInfo()),
    requestBoardCosign: (req) => client.ark("requestBoardCosign", req),
    registerBoardVtxo: async (boardVtxo) => {
      await client.ark("registerBoardVtxo", { boardVtxo });
    },
    requestArkoorCosign: async (parts) => (await client.ark("requestArkoorCosign", { parts })).parts,
    registerVtxoTransactions: async (vtxos) => {
      await client.ark("registerVtxoTransactions", { vtxos });
    },
    postArkoorMessage: async (blindedId, vtxos) => {
      await client.mailbox("postArkoorMessage", { blindedId, vtxos });
    },
  };
}
