/**
 * An LNURL-pay service of the simulated network's payee (LUD-06, LUD-16 Lightning addresses,
 * LUD-12 comments), mounted under the devnet control API at `/devnet/lnurl`. It speaks for a
 * made-up domain (default `lnurl.devnet`): its pay requests and callbacks are advertised as
 * `https://<domain>/…`, and a wallet on regtest maps that domain to the control API's plain-http
 * base (tender: `TENDER_LNURL_HOST_OVERRIDE=<domain>=<baseUrl>` or the lightning plugin's
 * `lnurlHostOverrides`), since a Lightning address carries neither a port nor a scheme.
 *
 * | Route | Answers |
 * |---|---|
 * | `GET /.well-known/lnurlp/{user}` | the user's `payRequest` (callback, min/max sendable, metadata, `commentAllowed`) |
 * | `GET /lnurlp/{user}/callback?amount=<msat>&comment=…` | `{pr, routes: []}`: a payee invoice for the amount, its description hash committing to the metadata |
 * | `GET /users` | the users, their modes and the payments asked of them (amount, comment, payment hash) |
 *
 * User modes: `normal`; `bad-amount` (the callback's invoice asks 1 000 sat more than asked);
 * `withdraw` (the first answer is a `withdrawRequest`, which wallets must refuse). Errors are
 * LUD-06 `{"status":"ERROR","reason":…}` with status 200 (400 for a malformed request).
 */
import { Router, type Request, type Response } from "express";
import { bech32 } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import type { SimulatedLightningNetwork } from "./simulated-network.js";

export type LnurlUserMode = "normal" | "bad-amount" | "withdraw";
export const LNURL_USER_MODES: readonly LnurlUserMode[] = ["normal", "bad-amount", "withdraw"];

/** A payment asked of a user through the callback. */
export interface LnurlRequestRecord {
  readonly amountMsat: bigint;
  readonly comment: string | undefined;
  readonly paymentHash: string;
}

export interface LnurlUser {
  readonly name: string;
  readonly mode: LnurlUserMode;
  readonly minSendableMsat: bigint;
  readonly maxSendableMsat: bigint;
  /** Longest comment accepted; 0: none. */
  readonly commentAllowed: number;
  readonly requests: LnurlRequestRecord[];
}

const BAD_AMOUNT_EXTRA_MSAT = 1_000_000n;

export class LnurlPayServer {
  private readonly users = new Map<string, LnurlUser>();

  constructor(private readonly ln: SimulatedLightningNetwork, readonly domain = "lnurl.devnet") {
    this.addUser("alice");
    this.addUser("bad-amount", { mode: "bad-amount" });
  }

  /** Adds (or replaces) a user; names are lowercase LUD-16 names. */
  addUser(name: string, o: { mode?: LnurlUserMode; minSendableMsat?: bigint; maxSendableMsat?: bigint; commentAllowed?: number } = {}): LnurlUser {
    if (!/^[a-z0-9\-_.+]+$/.test(name)) throw new Error(`${name} is not a Lightning address name`);
    const user: LnurlUser = {
      name, mode: o.mode ?? "normal", minSendableMsat: o.minSendableMsat ?? 1_000n, maxSendableMsat: o.maxSendableMsat ?? 100_000_000_000n,
      commentAllowed: o.commentAllowed ?? 140, requests: [],
    };
    this.users.set(name, user);
    return user;
  }

  user(name: string): LnurlUser | undefined {
    return this.users.get(name);
  }

  /** `name@domain`. */
  address(name: string): string {
    return `${name}@${this.domain}`;
  }

  /** The user's pay request URL encoded as an LNURL (bech32, uppercase as QR codes carry it). */
  lnurl(name: string): string {
    const url = new TextEncoder().encode(`https://${this.domain}/.well-known/lnurlp/${name}`);
    return bech32.encode("lnurl", bech32.toWords(url), false).toUpperCase();
  }

  private metadata(u: LnurlUser): string {
    return JSON.stringify([["text/plain", `Payment to ${u.name}`], ["text/identifier", this.address(u.name)]]);
  }

  router(): Router {
    const r = Router();
    const error = (res: Response, reason: string, status = 200) => res.status(status).json({ status: "ERROR", reason });
    const userOf = (req: Request, res: Response) => {
      const u = this.users.get(String(req.params.user).toLowerCase());
      if (!u) error(res, `no user ${String(req.params.user).slice(0, 64)}`, 404);
      return u;
    };
    r.get("/.well-known/lnurlp/:user", (req, res) => {
      const u = userOf(req, res);
      if (!u) return;
      if (u.mode === "withdraw") {
        res.json({ tag: "withdrawRequest", callback: `https://${this.domain}/lnurlw/${u.name}`, k1: "00", minWithdrawable: 1000, maxWithdrawable: 1000, defaultDescription: "" });
        return;
      }
      res.json({
        tag: "payRequest", callback: `https://${this.domain}/lnurlp/${u.name}/callback`,
        minSendable: Number(u.minSendableMsat), maxSendable: Number(u.maxSendableMsat), metadata: this.metadata(u),
        ...(u.commentAllowed > 0 ? { commentAllowed: u.commentAllowed } : {}),
      });
    });
    r.get("/lnurlp/:user/callback", (req, res) => {
      const u = userOf(req, res);
      if (!u) return;
      const amount = typeof req.query.amount === "string" && /^\d{1,20}$/.test(req.query.amount) ? BigInt(req.query.amount) : undefined;
      if (amount === undefined) return error(res, "amount (msat) is required", 400);
      if (amount < u.minSendableMsat || amount > u.maxSendableMsat) return error(res, `amount ${amount} msat is outside ${u.minSendableMsat}–${u.maxSendableMsat}`);
      const comment = typeof req.query.comment === "string" ? req.query.comment : undefined;
      if (comment !== undefined && [...comment].length > u.commentAllowed) return error(res, `comment longer than ${u.commentAllowed} characters`);
      const inv = this.ln.createInvoice({
        amountMsat: u.mode === "bad-amount" ? amount + BAD_AMOUNT_EXTRA_MSAT : amount,
        descriptionHash: sha256(new TextEncoder().encode(this.metadata(u))),
      });
      u.requests.push({ amountMsat: amount, comment, paymentHash: inv.paymentHash });
      res.json({ pr: inv.invoice, routes: [] });
    });
    r.get("/users", (_req, res) => {
      res.json([...this.users.values()].map((u) => ({
        name: u.name, address: this.address(u.name), lnurl: this.lnurl(u.name), mode: u.mode, comment_allowed: u.commentAllowed,
        requests: u.requests.map((q) => ({ amount_msat: q.amountMsat.toString(), comment: q.comment ?? null, payment_hash: q.paymentHash })),
      })));
    });
    return r;
  }
}
