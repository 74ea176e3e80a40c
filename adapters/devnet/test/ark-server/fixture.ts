/** Shared set-up of the server tests: a devnet node and a domain-level server (test profile). */
import { DevnetNode } from "../../src/node/devnet-node.js";
import { ArkServer, type ArkServerOptions } from "../../src/ark-server/ark-server.js";
import type { ArkApi } from "./wallet-kit.js";

/** A node and a server; call `close()` after the test. */
export interface ServerFixture {
  node: DevnetNode;
  server: ArkServer;
  api: ArkApi;
  close(): Promise<void>;
}

/** Adapts the domain server to the kit's {@link ArkApi}. */
export function domainApi(server: ArkServer): ArkApi {
  return {
    arkInfo: () => server.arkInfo(),
    requestBoardCosign: (req, pver) => server.requestBoardCosign(req, pver),
    registerBoardVtxo: (v) => server.registerBoardVtxo(v),
    requestArkoorCosign: (parts) => server.requestArkoorCosign(parts),
    registerVtxoTransactions: (v) => server.registerVtxoTransactions(v),
    postArkoorMessage: (b, v) => server.postArkoorMessage(b, v),
  };
}

/** A fresh in-memory node and server. */
export async function serverFixture(opts: Partial<ArkServerOptions> = {}, node = new DevnetNode({ seed: "ark-server-test" })): Promise<ServerFixture> {
  const server = await ArkServer.open({ chain: node, profile: "test", ...opts });
  return {
    node,
    server,
    api: domainApi(server),
    close: async () => {
      await server.close();
    },
  };
}

/** Awaits a promise that must reject; returns the error. */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection, but the call succeeded");
}
