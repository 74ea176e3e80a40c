/**
 * The server's keys, all derived from one 32-byte seed that is created on first
 * start and kept in the server's database, so they survive restarts:
 *
 * | Key | Derivation | Use |
 * |---|---|---|
 * | server key | `taggedHash("tender/ark-server/key", seed ‖ "server")` | every VTXO co-signature; `ArkInfo.server_pubkey` |
 * | mailbox key | same tag, `"mailbox"` | unblinding mailbox ids; `ArkInfo.mailbox_pubkey` |
 * | wallet key | same tag, `"wallet"` | the server's on-chain wallet (BIP-86-style key-path P2TR) |
 */
import { randomBytes } from "node:crypto";
import { p2trAddress, pubkeyFromSecret, taggedHash, taprootOutput, toXOnly, utf8 } from "@tender/ark-protocol";

/** Key material of one server instance. */
export interface ServerKeys {
  readonly seed: Uint8Array;
  readonly serverSecret: Uint8Array;
  readonly serverPubkey: Uint8Array;
  readonly mailboxSecret: Uint8Array;
  readonly mailboxPubkey: Uint8Array;
  readonly walletSecret: Uint8Array;
  /** x-only internal key of the wallet output. */
  readonly walletInternalKey: Uint8Array;
  /** scriptPubKey of the wallet's single receive address. */
  readonly walletScript: Uint8Array;
  readonly walletAddress: string;
  /** TapTweak of the wallet output (for key-path signing). */
  readonly walletTweak: Uint8Array;
}

const TAG = "tender/ark-server/key";

function derive(seed: Uint8Array, role: string): Uint8Array {
  const sk = taggedHash(TAG, seed, utf8(role));
  pubkeyFromSecret(sk); // throws for the (negligible) out-of-range scalar
  return sk;
}

/** A fresh random seed. */
export function newServerSeed(): Uint8Array {
  return new Uint8Array(randomBytes(32));
}

/** Derives every key of the server from its seed. */
export function deriveServerKeys(seed: Uint8Array): ServerKeys {
  if (seed.length !== 32) throw new RangeError("server seed must be 32 bytes");
  const serverSecret = derive(seed, "server");
  const mailboxSecret = derive(seed, "mailbox");
  const walletSecret = derive(seed, "wallet");
  const walletInternalKey = toXOnly(pubkeyFromSecret(walletSecret));
  const out = taprootOutput(walletInternalKey, null);
  return {
    seed,
    serverSecret,
    serverPubkey: pubkeyFromSecret(serverSecret),
    mailboxSecret,
    mailboxPubkey: pubkeyFromSecret(mailboxSecret),
    walletSecret,
    walletInternalKey,
    walletScript: out.scriptPubKey,
    walletAddress: p2trAddress(out.outputKey, "regtest"),
    walletTweak: out.tweak,
  };
}
