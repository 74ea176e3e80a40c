import { BadRequestError, UnprocessableEntityError, withContext } from "@tender/core";
import type { Network } from "../config/wallet-config.js";
import type { Bip321Contributors } from "./bip321-contributors.js";
import { bip321Uri, isUppercasable, uppercaseBip321Uri, type Bip321Parts } from "./bip321-uri.js";

const UPPERCASE_REFUSED = "bad request: cannot upper-case the URI: it carries a label, message, or base58 address";

/** What `POST /api/v1/wallet/bip321` asks for. */
export interface Bip321Ask {
  amountSat?: bigint;
  onchain?: boolean;
  label?: string;
  message?: string;
  uppercase?: boolean;
}

/** barkd's `Bip321UriResponse`: absent destinations are left out. */
export interface Bip321Answer {
  bip321: string;
  ark?: string;
  bolt11?: string;
  onchain?: string;
}

/**
 * Builds the URI as barkd does: a fresh on-chain address first (when asked: the URI body on
 * mainnet, a `tb=` parameter elsewhere), then a fresh Ark address, then a BOLT11 invoice for the
 * amount (when an amount is given and a Lightning receive rail contributes one). Failures carry
 * barkd's context (`Failed to build BIP 321 URI: …`, a 500); an upper-case URI that would change
 * meaning is a 400.
 */
export async function buildBip321(contributors: Bip321Contributors, network: Network, ask: Bip321Ask): Promise<Bip321Answer> {
  if (ask.onchain && !contributors.contributor("onchain")) throw new UnprocessableEntityError("No onchain wallet configured");
  const fail = (e: unknown) => withContext("Failed to build BIP 321 URI", e);
  if (ask.amountSat !== undefined && ask.amountSat === 0n) throw fail(new Error("amount cannot be zero"));
  // a lower-case label or message is refused before any address is handed out (the addresses are checked once made)
  const text = { ...(ask.label !== undefined ? { label: ask.label } : {}), ...(ask.message !== undefined ? { message: ask.message } : {}) };
  if (ask.uppercase && !isUppercasable(text)) throw new BadRequestError(UPPERCASE_REFUSED);
  const request = ask.amountSat !== undefined ? { amountSat: ask.amountSat } : {};
  const step = async (part: "onchain" | "ark" | "lightning", context: string) => {
    try {
      return await contributors.produce(part, request);
    } catch (e) {
      throw fail(withContext(context, e));
    }
  };
  const onchain = ask.onchain ? await step("onchain", "failed to get onchain address") : undefined;
  const ark = await step("ark", "failed to generate new ark address");
  const bolt11 = ask.amountSat !== undefined ? await step("lightning", "failed to generate lightning invoice") : undefined;

  const parts: Bip321Parts = {
    ...(onchain !== undefined && network === "mainnet" ? { address: onchain } : {}),
    ...(onchain !== undefined && network !== "mainnet" ? { tb: [onchain] } : {}),
    ...(ask.amountSat !== undefined ? { amountSat: ask.amountSat } : {}),
    ...(ask.label !== undefined ? { label: ask.label } : {}),
    ...(ask.message !== undefined ? { message: ask.message } : {}),
    ...(bolt11 !== undefined ? { lightning: [bolt11] } : {}),
    ...(ark !== undefined ? { ark: [ark] } : {}),
  };
  let uri = bip321Uri(parts);
  if (ask.uppercase) {
    const upper = uppercaseBip321Uri(parts);
    if (upper === undefined) throw new BadRequestError(UPPERCASE_REFUSED);
    uri = upper;
  }
  return {
    bip321: uri,
    ...(ark !== undefined ? { ark } : {}),
    ...(bolt11 !== undefined ? { bolt11 } : {}),
    ...(onchain !== undefined ? { onchain } : {}),
  };
}
