/**
 * The devnet's controls of the payee's BOLT12 offers and LNURL-pay users, JSON in and out,
 * mounted under the control API at `/devnet/ln-offers`:
 *
 * | Route | Does |
 * |---|---|
 * | `POST /offers {amount_msat?, description?, mode?}` | a new offer of the payee (`lno1…`); no amount: any amount; `mode` `honest` (default), `inflated-amount` (its invoices ask 1 000 sat more than requested) or `wrong-key` (its invoices are signed by another key) |
 * | `GET /offers/{offer}` | the offer, its mode, and the payment hashes of the invoices it answered (see `GET /devnet/ln/invoices/{hash}` for each) |
 * | `POST /lnurl-users {name, mode?, min_sendable_msat?, max_sendable_msat?, comment_allowed?}` | adds an LNURL-pay user (`normal`, `bad-amount`, `withdraw`); answers its Lightning address and LNURL |
 *
 * The LNURL users, their addresses and the payments asked of them are listed at `GET /devnet/lnurl/users`.
 * Bad input is 400, an unknown offer 404; errors are plain text.
 */
import express, { Router, type Request, type Response } from "express";
import { LNURL_USER_MODES, type LnurlPayServer, type LnurlUserMode } from "./lnurl-server.js";
import type { SimulatedLightningNetwork } from "./simulated-network.js";
import { OFFER_MODES, type SimulatedOffer, type SimulatedOfferMode } from "./simulated-offers.js";

function amount(v: unknown, name: string): bigint | undefined {
  if (v === undefined || v === null) return undefined;
  if ((typeof v === "number" && Number.isSafeInteger(v) && v > 0) || (typeof v === "string" && /^[1-9]\d{0,19}$/.test(v))) return BigInt(v);
  throw new Error(`${name} must be a positive integer`);
}

const offerJson = (o: SimulatedOffer) => ({
  offer: o.offer, mode: o.mode, amount_msat: o.amountMsat?.toString() ?? null, description: o.description, invoices: o.invoices,
});

export function offerControlRoutes(ln: SimulatedLightningNetwork, lnurl: LnurlPayServer): Router {
  const r = Router();
  r.use(express.json());
  const wrap = (fn: (req: Request) => unknown) => (req: Request, res: Response) => {
    try {
      res.json(fn(req));
    } catch (e) {
      res.status(e instanceof NotFound ? 404 : 400).type("text/plain").send((e as Error).message);
    }
  };
  const body = (req: Request): Record<string, unknown> => {
    const b: unknown = req.body ?? {};
    if (typeof b !== "object" || b === null || Array.isArray(b)) throw new Error("the request body must be a JSON object");
    return b as Record<string, unknown>;
  };
  r.post("/offers", wrap((req) => {
    const b = body(req);
    const mode = (b.mode ?? "honest") as SimulatedOfferMode;
    if (!OFFER_MODES.includes(mode)) throw new Error(`mode must be one of ${OFFER_MODES.join(", ")}`);
    if (b.description !== undefined && typeof b.description !== "string") throw new Error("description must be a string");
    const amountMsat = amount(b.amount_msat, "amount_msat");
    return offerJson(ln.offers.createOffer({
      mode, ...(amountMsat !== undefined ? { amountMsat } : {}), ...(typeof b.description === "string" ? { description: b.description } : {}),
    }));
  }));
  r.get("/offers/:offer", wrap((req) => {
    const o = ln.offers.offer(String(req.params.offer));
    if (!o) throw new NotFound("no such offer of the payee");
    return offerJson(o);
  }));
  r.post("/lnurl-users", wrap((req) => {
    const b = body(req);
    if (typeof b.name !== "string") throw new Error("name must be a string");
    const mode = (b.mode ?? "normal") as LnurlUserMode;
    if (!LNURL_USER_MODES.includes(mode)) throw new Error(`mode must be one of ${LNURL_USER_MODES.join(", ")}`);
    const min = amount(b.min_sendable_msat, "min_sendable_msat");
    const max = amount(b.max_sendable_msat, "max_sendable_msat");
    const comments = b.comment_allowed;
    if (comments !== undefined && !(typeof comments === "number" && Number.isSafeInteger(comments) && comments >= 0)) throw new Error("comment_allowed must be a non-negative integer");
    const u = lnurl.addUser(b.name, {
      mode, ...(min !== undefined ? { minSendableMsat: min } : {}), ...(max !== undefined ? { maxSendableMsat: max } : {}),
      ...(comments !== undefined ? { commentAllowed: comments } : {}),
    });
    return { name: u.name, mode: u.mode, address: lnurl.address(u.name), lnurl: lnurl.lnurl(u.name) };
  }));
  return r;
}

class NotFound extends Error {}
