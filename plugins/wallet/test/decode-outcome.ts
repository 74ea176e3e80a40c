import { LightningDecodeError } from "../src/index.js";

/** The code of the {@link LightningDecodeError} `f` throws, or `"decoded"` when it decodes. */
export function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof LightningDecodeError) return e.code;
    throw e;
  }
  return "decoded";
}
