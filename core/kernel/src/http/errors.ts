/**
 * Typed HTTP errors. Plugins throw these at their edge; the kernel maps them once to barkd's
 * JSON error bodies (`{"message"}`, plus `resources` on 404; no discriminator). Any other
 * thrown value becomes a 500 whose message is the cause chain joined with ": ".
 */
export abstract class HttpError extends Error {
  abstract readonly status: number;
  /** The JSON body sent to the client. */
  body(): Record<string, unknown> {
    return { message: this.message };
  }
}

/** 400 `{"message"}`. */
export class BadRequestError extends HttpError {
  readonly status = 400;
}

/** 401 `{"message"}`. */
export class UnauthorizedError extends HttpError {
  readonly status = 401;
}

/** 404 `{"resources": [...], "message"}`. */
export class NotFoundError extends HttpError {
  readonly status = 404;
  constructor(message: string, readonly resources: string[] = []) {
    super(message);
  }
  override body(): Record<string, unknown> {
    return { resources: this.resources, message: this.message };
  }
}

/** 422 `{"message"}` (`No wallet set`). */
export class UnprocessableEntityError extends HttpError {
  readonly status = 422;
}

/** 500 `{"message"}` with an explicit message (otherwise any Error maps to 500). */
export class InternalServerError extends HttpError {
  readonly status = 500;
}

/** The message barkd gives a 500: the cause chain, outermost first, joined with ": ". */
export function causeChainMessage(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur !== undefined && cur !== null && depth < 16; depth++) {
    if (cur instanceof Error) {
      if (cur.message) parts.push(cur.message);
      cur = cur.cause;
    } else {
      parts.push(String(cur));
      break;
    }
  }
  return parts.join(": ") || "internal error";
}

/** Wraps a failure with an outer context, keeping the inner error as `cause`. */
export function withContext(context: string, err: unknown): Error {
  return new Error(context, { cause: err });
}
