import { HttpError } from "@tender/core";

/** 409 `{"message"}`: the delivery is being attempted right now. */
export class DeliveryBusyError extends HttpError {
  readonly status = 409;
}
