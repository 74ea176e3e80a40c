import { isAtomicTempName } from "@tender/core";

/** Datadir file names the wallet plugin owns. */
export const MNEMONIC_FILE = "mnemonic";
export const CONFIG_FILE = "config.toml";
export const DB_FILE = "db.sqlite";
/** Written first by a wallet creation, removed last: its presence at startup means a creation was interrupted. */
export const CREATE_JOURNAL_FILE = "wallet-create.journal";

/** Files that survive a wallet deletion, as in barkd (plus tender's lock file next to barkd's). */
export const KEEP_ON_DELETE = new Set(["auth_token", "tenderd.lock", "barkd.lock"]);

/** Files a datadir may hold before a wallet is created (barkd's list, plus tender's lock file). */
const TOLERATED_ON_CREATE = new Set([
  "config.toml", "debug.log", "stdout.log", "stderr.log", "LOCK", "auth_token", "barkd.lock", "tenderd.lock",
]);

/** Whether `name` may exist in the datadir when a wallet is created without `force`. */
export function toleratedOnCreate(name: string): boolean {
  return TOLERATED_ON_CREATE.has(name) || isAtomicTempName(name);
}
