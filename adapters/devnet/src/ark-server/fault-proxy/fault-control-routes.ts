/**
 * The fault proxy's controls, mounted under the Ark server's (`/devnet/ark/faults`), JSON in and
 * out; bad input is 400 with a plain-text reason, an unknown fault 404:
 *
 * | Route | Does |
 * |---|---|
 * | `GET /` | `{proxy_url, faults: [{id, kind, …, hits}]}` |
 * | `POST /` | arms one fault (see `fault-rules.ts`) → it, with its `id` and `hits: 0` |
 * | `DELETE /` | disarms every fault → `{proxy_url, faults: []}` |
 * | `DELETE /:id` | disarms one → `{disarmed: id}` |
 */
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { FaultInputError } from "./fault-rules.js";
import type { FaultProxy } from "./fault-proxy.js";

/** The controls of `proxy`. */
export function faultControlRoutes(proxy: FaultProxy): Router {
  const r = Router();
  r.use(express.json({ limit: "1mb" }));
  const state = () => ({ proxy_url: proxy.url, faults: proxy.faults.list() });
  r.get("/", (_req, res) => void res.json(state()));
  r.post("/", (req, res) => void res.json(proxy.faults.arm(req.body)));
  r.delete("/", (_req, res) => {
    proxy.faults.clear();
    res.json(state());
  });
  r.delete("/:id", (req, res) => {
    const id = Number(req.params.id);
    if (!Number.isSafeInteger(id) || !proxy.faults.disarm(id)) return void res.status(404).type("text/plain").send(`no armed fault ${req.params.id}`);
    res.json({ disarmed: id });
  });
  r.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const send = (status: number, text: string) => void res.status(status).type("text/plain").send(text);
    if (err instanceof FaultInputError) send(400, err.message);
    else if (typeof err === "object" && err !== null && (err as { type?: unknown }).type === "entity.parse.failed") send(400, "Invalid request body");
    else send(500, err instanceof Error ? err.message : "internal error");
  });
  return r;
}
