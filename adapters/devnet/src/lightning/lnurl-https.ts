/**
 * The devnet's LNURL service over HTTPS: the {@link LnurlPayServer}'s routes at the root of an
 * https server on 127.0.0.1 (port 0: the OS picks), with a certificate for the LNURL domain signed
 * by a CA made at start ({@link makeLnurlTlsMaterial}). The CA's PEM is written to
 * `<dir>/lnurl-ca.pem` (the devnet datadir, else a temporary directory removed at stop) for
 * wallets to trust; a new CA is made at every start and the file replaced.
 *
 * A regtest wallet maps the domain to this server's address (tender: `TENDER_LNURL_HOST_OVERRIDE=
 * lnurl.devnet=https://127.0.0.1:<port>` plus `TENDER_LNURL_CA_FILE=<ca file>`) and still checks
 * the certificate for the domain name (SNI and verification use the domain, not the address).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express, { type Router } from "express";
import { makeLnurlTlsMaterial } from "./lnurl-tls.js";

/** File name of the CA certificate in the directory. */
export const LNURL_CA_FILE_NAME = "lnurl-ca.pem";

/** A running LNURL https server. */
export interface LnurlHttpsServer {
  /** `https://127.0.0.1:<port>`: what a regtest wallet maps the LNURL domain to. */
  readonly url: string;
  /** Path of the CA certificate (PEM) a wallet trusts. */
  readonly caFile: string;
  /** The CA certificate itself. */
  readonly caPem: string;
  /** Host names the server certificate is valid for. */
  readonly hosts: readonly string[];
  /** Requests served so far (any path). */
  readonly requestCount: number;
  stop(): Promise<void>;
}

/** Starts the https server answering `router` for `hosts`; the CA file goes to `dir` (or a temporary directory). */
export async function startLnurlHttpsServer(opts: { router: Router; hosts: readonly string[]; dir?: string; port?: number }): Promise<LnurlHttpsServer> {
  const tls = await makeLnurlTlsMaterial(opts.hosts);
  const tempDir = opts.dir === undefined ? await mkdtemp(join(tmpdir(), "tender-lnurl-tls-")) : undefined;
  const caFile = join(opts.dir ?? tempDir!, LNURL_CA_FILE_NAME);
  await writeFile(caFile, tls.caPem, { mode: 0o644 });
  let requestCount = 0;
  const app = express();
  app.disable("x-powered-by");
  app.use((_req, _res, next) => {
    requestCount++;
    next();
  });
  app.use(opts.router);
  const server: Server = createServer({ key: tls.keyPem, cert: tls.certPem }, app);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
    });
  } catch (e) {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
    throw e;
  }
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    caPem: tls.caPem,
    hosts: tls.hosts,
    get requestCount() {
      return requestCount;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    },
  };
}
