/**
 * Destinations the operator refuses to pay (captaind's `bitcoin_address_blocklist`): the
 * addresses of the `bitcoinAddressBlocklist` setting (changed at run time through the devnet's
 * controls) and those listed in the `bitcoinAddressBlocklistFile` (one address per line, `#`
 * comments; read on each check, so an edit takes effect at once). Matched by output script.
 */
import { readFileSync } from "node:fs";
import { bytesEqual } from "@tender/ark-protocol";
import { scriptOf } from "../../node/address.js";
import type { ArkServerConfig } from "../server-config.js";

/** The addresses a blocklist file lists. A missing file lists none. */
export function blocklistFileAddresses(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  return text.split(/\r?\n/).map((l) => l.replace(/#.*/, "").trim()).filter((l) => l.length > 0);
}

/** The blocked address `script` pays, if any. */
export function blockedAddressOf(config: Pick<ArkServerConfig, "bitcoinAddressBlocklist" | "bitcoinAddressBlocklistFile">, script: Uint8Array): string | undefined {
  const listed = [...(config.bitcoinAddressBlocklist ?? []), ...(config.bitcoinAddressBlocklistFile ? blocklistFileAddresses(config.bitcoinAddressBlocklistFile) : [])];
  for (const a of listed) {
    try {
      if (bytesEqual(scriptOf(a), script)) return a;
    } catch {
      // not a regtest address: it cannot match a destination of this server's network
    }
  }
  return undefined;
}
