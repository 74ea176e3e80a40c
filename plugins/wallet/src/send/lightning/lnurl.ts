/**
 * An LNURL reader (LUD-01): the bech32 string in, the URL out, or a {@link LightningDecodeError}.
 * Pure (no I/O; nothing is fetched).
 *
 * An LNURL is a URL encoded in bech32 (BIP 173 checksum, one case only, no length limit) with the
 * human-readable part `lnurl`; the data is the URL's UTF-8 bytes. LUD-01 accepts two kinds of URL:
 * `https://` (clearnet) and `http://` on an onion service (a host ending in `.onion`). LNURL-pay
 * (LUD-06) starts by a GET of that URL, which must answer a `payRequest`; whether it does is only
 * known then, so any such URL is accepted here.
 */
import { bech32 } from "@scure/base";
import { LightningDecodeError } from "./decode-error.js";
import { utf8Strict, wordsToBytes } from "./encoding.js";

/** A decoded LNURL. */
export interface Lnurl {
  /** The bech32 string in lowercase. */
  readonly lnurl: string;
  /** The URL it encodes, as given. */
  readonly url: string;
  /** The `tag` query parameter, when the URL has one (LUD-01: it then says what the LNURL is for without a request). */
  readonly tag: string | undefined;
}

const fail = (code: string, message: string): never => {
  throw new LightningDecodeError("lnurl", code, message);
};

/** Reads an LNURL (`lnurl1…`, without a `lightning:` prefix). Throws {@link LightningDecodeError}. */
export function decodeLnurl(input: string): Lnurl {
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32.decode(input as `${string}1${string}`, false);
  } catch (e) {
    return fail("bech32", (e as Error).message);
  }
  if (decoded.prefix.toLowerCase() !== "lnurl") fail("prefix", `human-readable part ${JSON.stringify(decoded.prefix)} is not lnurl`);
  let text: string;
  try {
    text = utf8Strict(wordsToBytes(decoded.words));
  } catch (e) {
    return fail("payload", `data is not UTF-8 bytes: ${(e as Error).message}`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail("url", "data is not a URL");
  }
  const onion = url.hostname.endsWith(".onion");
  if (!(url.protocol === "https:" || (url.protocol === "http:" && onion))) {
    fail("url", `${url.protocol}// URL${url.protocol === "http:" ? " on a clearnet host" : ""}: LNURL takes https, or http on an onion service`);
  }
  return { lnurl: input.toLowerCase(), url: text, tag: url.searchParams.get("tag") ?? undefined };
}
