import type { Request, Response } from "express";
import { BadRequestError } from "./errors.js";
import { z } from "./zod.js";

/** The header carrying the next page's cursor (the body stays barkd's array). */
export const NEXT_CURSOR_HEADER = "Tender-Next-Cursor";
export const LINK_HEADER = "Link";
export const MAX_PAGE_LIMIT = 1000;
/** Page size when only `cursor` is given. */
export const DEFAULT_PAGE_LIMIT = 100;

/** The `limit` and `cursor` query parameters, for a route's query schema. */
export const pageQueryFields = {
  limit: z.string().optional().openapi({
    description: `tender: page size, 1 to ${MAX_PAGE_LIMIT}. With \`limit\` or \`cursor\` the answer is one page and the next page's cursor is in the \`${NEXT_CURSOR_HEADER}\` header; without both, the whole list as barkd answers it.`,
  }),
  cursor: z.string().optional().openapi({ description: `tender: the \`${NEXT_CURSOR_HEADER}\` of the previous page.` }),
};

/** A position in a list: the sort key of the last item of the previous page. */
export type PageKey = readonly (string | number)[];

/** How one list is paged. */
export interface PageOrder<T> {
  /** Names the list in its cursors, so a cursor of another list is refused. */
  list: string;
  /** The item's sort key; keys are unique and the items come in the list's order. */
  keyOf(item: T): PageKey;
  /** Compares two keys in the list's order (negative when `a` comes first). */
  compare(a: PageKey, b: PageKey): number;
}

/** Whether the request asked for a page (barkd's whole list otherwise). */
export function wantsPage(query: { limit?: string | undefined; cursor?: string | undefined }): boolean {
  return query.limit !== undefined || query.cursor !== undefined;
}

function parseLimit(limit: string | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_LIMIT;
  const n = /^[0-9]{1,7}$/.test(limit) ? Number(limit) : NaN;
  if (!(n >= 1 && n <= MAX_PAGE_LIMIT)) throw new BadRequestError(`invalid limit: must be an integer from 1 to ${MAX_PAGE_LIMIT}`);
  return n;
}

export function encodeCursor(list: string, key: PageKey): string {
  return Buffer.from(JSON.stringify({ l: list, k: key }), "utf8").toString("base64url");
}

function parseCursor(list: string, cursor: string | undefined): PageKey | undefined {
  if (cursor === undefined) return undefined;
  const bad = () => new BadRequestError("invalid cursor: pass the Tender-Next-Cursor value of a previous page of this list unchanged");
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(cursor)) throw bad();
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  const o = v as { l?: unknown; k?: unknown };
  if (!o || typeof o !== "object" || o.l !== list || !Array.isArray(o.k) || o.k.length === 0) throw bad();
  if (!o.k.every((x) => typeof x === "string" || (typeof x === "number" && Number.isFinite(x)))) throw bad();
  return o.k as PageKey;
}

/**
 * Checks `limit` and `cursor` (400 before anything is read when either is bad) and returns the
 * page parser; `take` cuts one page out of the whole ordered list and sets the next-page headers.
 * Keyset paging: a cursor is the key of the last item sent, so items added or removed meanwhile
 * never make a page repeat or skip the others.
 */
export function pageRequest<T>(query: { limit?: string | undefined; cursor?: string | undefined }, order: PageOrder<T>) {
  const limit = parseLimit(query.limit);
  const after = parseCursor(order.list, query.cursor);
  return {
    take(items: readonly T[], req: Request, res: Response): T[] {
      const start = after === undefined ? 0 : items.findIndex((i) => order.compare(order.keyOf(i), after) > 0);
      const from = start < 0 ? items.length : start;
      const page = items.slice(from, from + limit);
      if (from + limit < items.length) {
        const next = encodeCursor(order.list, order.keyOf(page[page.length - 1]!));
        res.setHeader(NEXT_CURSOR_HEADER, next);
        const url = new URL(req.originalUrl, "http://localhost");
        url.searchParams.set("cursor", next);
        url.searchParams.set("limit", String(limit));
        res.setHeader(LINK_HEADER, `<${url.pathname}${url.search}>; rel="next"`);
      }
      return page;
    },
  };
}

/** Compares keys element by element, each element ascending (`desc` flips the order of each). */
export function compareKeys(a: PageKey, b: PageKey, desc = false): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const c = typeof x === "number" && typeof y === "number" ? x - y : String(x) < String(y) ? -1 : 1;
    return desc ? -c : c;
  }
  return 0;
}
