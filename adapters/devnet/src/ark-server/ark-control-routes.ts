/**
 * The devnet's controls of its reference Ark server, JSON in and out, mounted under the control
 * API at `/devnet/ark`:
 *
 * | Route | Does |
 * |---|---|
 * | `GET /status` | running or not, its URLs and keys |
 * | `POST /stop` | stops both gRPC ports and closes the server (clients see UNAVAILABLE); 409 when stopped |
 * | `POST /start` | starts it again: same database, keys, settings and ports; 409 when running |
 * | `POST /trigger-round` | `RoundAdminService.TriggerRound`: a round starts now (or right after the running one) |
 * | `POST /ban {vtxo, blocks?}` | `BanAdminService.BanVtxo` until tip + blocks (default {@link DEFAULT_BAN_BLOCKS}) |
 * | `POST /unban {vtxo}` | `BanAdminService.UnbanVtxo` |
 * | `GET /bans` | `BanAdminService.ListBannedVtxos` |
 * | `GET /settings`, `POST /settings {…}` | the settings that change at run time (see `ark-settings-json.ts`) |
 * | `/faults` | the fault proxy's faults, when the server has one (see `fault-proxy/fault-control-routes.ts`) |
 *
 * Bad input is 400, an unknown VTXO 404, a control that needs the stopped server 409; errors are
 * plain text, as the rest of the control API. Requests run one at a time, so a stop never cuts a
 * ban short.
 */
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { encodeOutPoint, formatOutPoint, parseOutPoint, toHex } from "@tender/ark-protocol";
import { settingsChange, settingsJson, SettingsInputError } from "./ark-settings-json.js";
import { ServerConfigError } from "./server-config.js";
import { BadUserInputError, NotFoundError, RequestConversionError } from "./server-errors.js";
import { ArkServerRestartError, type RunningArkServer } from "./start-ark-server.js";
import { faultControlRoutes } from "./fault-proxy/fault-control-routes.js";
import type { FaultProxy } from "./fault-proxy/fault-proxy.js";

/** Blocks a ban lasts when the request does not say (one day of blocks). */
export const DEFAULT_BAN_BLOCKS = 144;

/** A refusal with its HTTP status. */
class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function body(req: Request): Record<string, unknown> {
  const b: unknown = req.body;
  if (b === undefined) return {};
  if (typeof b !== "object" || b === null || Array.isArray(b)) throw new ControlError(400, "the request body must be a JSON object");
  return b as Record<string, unknown>;
}

/** A `<txid>:<vout>` VTXO id → its 36-byte encoding and its text as the server writes it. */
function vtxoParam(v: unknown): { id: Uint8Array; text: string } {
  if (typeof v !== "string") throw new ControlError(400, "vtxo is required: a VTXO id <txid>:<vout>");
  try {
    const point = parseOutPoint(v);
    return { id: encodeOutPoint(point), text: formatOutPoint(point) };
  } catch {
    throw new ControlError(400, `vtxo must be a VTXO id <txid>:<vout>, got ${JSON.stringify(v.slice(0, 100))}`);
  }
}

function statusJson(ark: RunningArkServer): Record<string, unknown> {
  const keys = ark.server.ctx.keys;
  return { running: ark.running, url: ark.url, admin_url: ark.adminUrl, server_pubkey: toHex(keys.serverPubkey), mailbox_pubkey: toHex(keys.mailboxPubkey) };
}

function errorHandler(err: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const send = (status: number, text: string) => void res.status(status).type("text/plain").send(text);
  if (err instanceof ControlError) send(err.status, err.message);
  else if (err instanceof SettingsInputError || err instanceof ServerConfigError || err instanceof BadUserInputError || err instanceof RequestConversionError) send(400, err.message);
  else if (err instanceof NotFoundError) send(404, err.message);
  else if (err instanceof ArkServerRestartError) send(409, err.message);
  else if (typeof err === "object" && err !== null && (err as { type?: unknown }).type === "entity.parse.failed") send(400, "Invalid request body");
  else send(500, err instanceof Error ? err.message : "internal error");
}

/** The Ark server's control routes over `ark` (mount them with `Devnet.mountControl("/ark", …)`). */
export function arkControlRoutes(ark: RunningArkServer, proxy?: FaultProxy): Router {
  const r = Router();
  // the proxy's faults are armed at once, whether the server runs or not
  if (proxy) r.use("/faults", faultControlRoutes(proxy));
  r.use(express.json({ limit: "1mb" }));
  let queue: Promise<unknown> = Promise.resolve();
  /** Runs `fn` after every earlier control request; the answer is its JSON. */
  const handle = (fn: (req: Request) => Promise<unknown> | unknown) => async (req: Request, res: Response) => {
    const run = queue.then(() => fn(req));
    queue = run.catch(() => undefined);
    res.json(await run);
  };
  const running = (what: string): void => {
    if (!ark.running) throw new ControlError(409, `the Ark server is stopped: start it (POST /devnet/ark/start) to ${what}`);
  };

  r.get("/status", handle(() => statusJson(ark)));
  r.post("/stop", handle(async () => {
    if (!ark.running) throw new ControlError(409, "the Ark server is already stopped");
    await ark.stop();
    return statusJson(ark);
  }));
  r.post("/start", handle(async () => {
    if (ark.running) throw new ControlError(409, "the Ark server is already running");
    await ark.start();
    return statusJson(ark);
  }));
  r.post("/trigger-round", handle(() => {
    running("trigger a round");
    ark.server.triggerRound();
    return { triggered: true };
  }));
  r.post("/ban", handle(async (req) => {
    const b = body(req);
    const vtxo = vtxoParam(b.vtxo);
    const blocks = b.blocks ?? DEFAULT_BAN_BLOCKS;
    if (typeof blocks !== "number" || !Number.isSafeInteger(blocks) || blocks < 1 || blocks > 0xffffffff) throw new ControlError(400, "blocks must be an integer in 1..4294967295");
    running("ban a VTXO");
    const until = await ark.server.banVtxo(vtxo.id, blocks);
    return { vtxo: vtxo.text, banned_until_height: until };
  }));
  r.post("/unban", handle(async (req) => {
    const b = body(req);
    const vtxo = vtxoParam(b.vtxo);
    running("unban a VTXO");
    await ark.server.unbanVtxo(vtxo.id);
    return { vtxo: vtxo.text };
  }));
  r.get("/bans", handle(async () => {
    running("list bans");
    return (await ark.server.listBannedVtxos()).map((x) => ({ vtxo: x.id, banned_until_height: x.until }));
  }));
  r.get("/settings", handle(() => settingsJson(ark.settings.current)));
  r.post("/settings", handle((req) => {
    const change = settingsChange(req.body, ark.settings.current);
    return settingsJson(ark.settings.update(change));
  }));
  r.use(errorHandler);
  return r;
}
