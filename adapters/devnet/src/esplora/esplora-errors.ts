import type { NextFunction, Request, Response } from "express";
import { ControlError, DevnetNodeError, InvalidInputError, PolicyError } from "../node/devnet-node.js";

/** An Esplora-style error answer: an HTTP status with a plain-text body. */
export class EsploraHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "EsploraHttpError";
  }
}

/** 404 with Esplora's text. */
export const notFound = (what: "Block" | "Transaction" | "Output" | "Address"): EsploraHttpError => new EsploraHttpError(404, `${what} not found`);

/** Checks a 64-hex hash/txid path parameter (400 `Invalid hex string` otherwise, as Esplora). */
export function hashParam(value: unknown): string {
  if (typeof value !== "string" || !/^[0-9a-fA-F]{64}$/.test(value)) throw new EsploraHttpError(400, "Invalid hex string");
  return value.toLowerCase();
}

/** Checks a non-negative integer path parameter. */
export function intParam(value: unknown, what: string): number {
  const n = typeof value === "string" && /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new EsploraHttpError(400, `Invalid ${what}`);
  return n;
}

/** Error middleware: typed errors to their status, node input errors to 400, the rest to 500. */
export function esploraErrorHandler(err: unknown, _req: Request, res: Response, _next: NextFunction): void {
  if (err instanceof EsploraHttpError) {
    res.status(err.status).type("text/plain").send(err.message);
  } else if (err instanceof InvalidInputError || err instanceof ControlError || err instanceof PolicyError) {
    res.status(400).type("text/plain").send(err.message);
  } else if (err instanceof DevnetNodeError) {
    res.status(400).type("text/plain").send(err.message);
  } else if (typeof err === "object" && err !== null && (err as { type?: unknown }).type === "entity.parse.failed") {
    res.status(400).type("text/plain").send("Invalid request body");
  } else {
    res.status(500).type("text/plain").send(err instanceof Error ? err.message : "internal error");
  }
}
