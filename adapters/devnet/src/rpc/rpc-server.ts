import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { DevnetNode } from "../node/devnet-node.js";
import { blockchainMethods } from "./blockchain-methods.js";
import { toCoreJson } from "./core-amount.js";
import { nodeMethods } from "./node-methods.js";
import { RpcAuthenticator } from "./rpc-auth.js";
import { dispatch } from "./rpc-dispatch.js";
import { RpcErrorCode } from "./rpc-error.js";
import type { RpcContext, RpcMethodTable } from "./rpc-method.js";
import { transactionMethods } from "./transaction-methods.js";

/** Every method the devnet's bitcoind face answers. */
export const RPC_METHODS: RpcMethodTable = { ...blockchainMethods, ...transactionMethods, ...nodeMethods };

/** Settings of {@link startRpcServer}. */
export interface RpcServerOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  readonly port?: number;
  /** Accepted `user:password` pairs (the cookie's, and/or rpcuser/rpcpassword). */
  readonly credentials: readonly string[];
}

/** A running bitcoind face. */
export interface RpcServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;

/** Starts a bitcoind-compatible JSON-RPC server over `node`, bound to 127.0.0.1. */
export async function startRpcServer(node: DevnetNode, options: RpcServerOptions): Promise<RpcServer> {
  const auth = new RpcAuthenticator(options.credentials);
  const ctx: RpcContext = { node, startedAt: Date.now() };
  const server = createServer((req, res) => void handle(req, res, auth, ctx));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, close: () => closeServer(server) };
}

async function handle(req: IncomingMessage, res: ServerResponse, auth: RpcAuthenticator, ctx: RpcContext): Promise<void> {
  if (!auth.check(req.headers.authorization)) {
    res.writeHead(401, { "www-authenticate": 'Basic realm="jsonrpc"' }).end();
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(405, { "content-type": "text/plain" }).end("JSONRPC server handles only POST requests");
    return;
  }
  let text: string;
  try {
    text = await readBody(req);
  } catch {
    res.writeHead(413).end();
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    send(res, 500, { result: null, error: { code: RpcErrorCode.PARSE_ERROR, message: "Parse error" }, id: null });
    return;
  }
  if (Array.isArray(parsed)) {
    const replies = parsed.map((r) => dispatch(RPC_METHODS, ctx, r).body).filter((b) => b !== null);
    send(res, 200, replies);
    return;
  }
  const reply = dispatch(RPC_METHODS, ctx, parsed);
  if (reply.body === null) res.writeHead(204).end();
  else send(res, reply.httpStatus, reply.body);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(`${toCoreJson(body)}\n`);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error("body too large"));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Closes a server, dropping idle keep-alive connections so it ends promptly. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
