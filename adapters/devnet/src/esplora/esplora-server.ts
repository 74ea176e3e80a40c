import express, { Router, type Express } from "express";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { DevnetNode } from "../node/devnet-node.js";
import { closeServer } from "../rpc/rpc-server.js";
import { chainRoutes } from "./chain-routes.js";
import { CONTROL_PREFIX, controlRoutes } from "./control-routes.js";
import { esploraErrorHandler } from "./esplora-errors.js";
import { mempoolRoutes } from "./mempool-routes.js";
import { ScriptHashIndex } from "./script-hash-index.js";
import { scriptRoutes } from "./script-routes.js";

/**
 * The Esplora-compatible app over `node`, with the control API under `/devnet`;
 * `controlExtensions` (mounted after the chain's controls) is where other parts of the devnet add
 * their controls.
 */
export function createEsploraApp(node: DevnetNode, index: ScriptHashIndex, controlExtensions: Router = Router()): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("json replacer", (_k: string, v: unknown) => (typeof v === "bigint" ? Number(v) : v));
  app.use(CONTROL_PREFIX, controlRoutes(node));
  app.use(CONTROL_PREFIX, controlExtensions);
  app.use(chainRoutes(node));
  app.use(scriptRoutes(node, index));
  app.use(mempoolRoutes(node));
  app.use((_req, res) => void res.status(404).type("text/plain").send("Not found"));
  app.use(esploraErrorHandler);
  return app;
}

/** A running Esplora face. */
export interface EsploraServer {
  readonly url: string;
  readonly port: number;
  /** Router mounted under the control prefix: `use(path, router)` adds controls at `<url>/devnet<path>`. */
  readonly controlExtensions: Router;
  close(): Promise<void>;
}

/** Starts the Esplora face on 127.0.0.1 (`port` 0 picks a free one). */
export async function startEsploraServer(node: DevnetNode, port = 0): Promise<EsploraServer> {
  const index = new ScriptHashIndex(node);
  const controlExtensions = Router();
  const server = createServer(createEsploraApp(node, index, controlExtensions));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    controlExtensions,
    close: async () => {
      index.close();
      await closeServer(server);
    },
  };
}
