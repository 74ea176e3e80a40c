import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb, type ScryptOptions } from "node:crypto";

/** What the first bytes of an encrypted seed file say, so a reader never mistakes it for a mnemonic. */
export const ENCRYPTED_SEED_FORMAT = "tender-encrypted-seed";
const VERSION = 1;

/** scrypt's cost parameters as stored in the file, so a later version can raise them and still read old files. */
export interface ScryptParams {
  name: "scrypt";
  /** CPU/memory cost (a power of two). */
  N: number;
  r: number;
  p: number;
  /** Random per file, base64. */
  salt: string;
}

/** The stored file (JSON). Everything but `ciphertext` and `tag` is authenticated as associated data. */
export interface EncryptedSeedFile {
  format: typeof ENCRYPTED_SEED_FORMAT;
  version: number;
  /** The wallet's fingerprint: lets the daemon check the database before the seed is unlocked. Not secret. */
  fingerprint: string;
  kdf: ScryptParams;
  cipher: { name: "aes-256-gcm"; nonce: string };
  ciphertext: string;
  tag: string;
}

/** scrypt N = 2^17, r = 8, p = 1: 128 MiB and a few hundred ms per try (the OWASP floor is 2^17). */
export const DEFAULT_SCRYPT = { N: 1 << 17, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
/**
 * The largest scrypt cost a file may ask for: N up to 2^20, r up to 32, p up to 16, and at most
 * 256 MiB of memory (128·N·r bytes). A file asking for more (altered, or not written by tender) is
 * refused before any key derivation, which would otherwise take the daemon's memory or its CPU
 * for minutes at each unlock.
 */
const MAX_SCRYPT = { N: 1 << 20, r: 32, p: 16, memoryBytes: 256 * 1024 * 1024 } as const;

/** The passphrase does not open the file (or the file was altered). */
export class WrongPassphraseError extends Error {
  constructor() {
    super("wrong passphrase");
  }
}

/** The file is not an encrypted seed this version can read. */
export class UnreadableSeedFileError extends Error {}

function deriveKey(passphrase: string, kdf: ScryptParams): Promise<Buffer> {
  const opts: ScryptOptions = { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 256 * kdf.N * kdf.r + 16 * 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCb(Buffer.from(passphrase.normalize("NFKC"), "utf8"), Buffer.from(kdf.salt, "base64"), KEY_BYTES, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** The associated data: the header fields in a fixed order. */
function associatedData(f: Pick<EncryptedSeedFile, "format" | "version" | "fingerprint" | "kdf" | "cipher">): Buffer {
  return Buffer.from(JSON.stringify([f.format, f.version, f.fingerprint, f.kdf.name, f.kdf.N, f.kdf.r, f.kdf.p, f.kdf.salt, f.cipher.name, f.cipher.nonce]), "utf8");
}

/** Whether a seed file's text is an encrypted seed (a plain one is the mnemonic's words). */
export function isEncryptedSeed(text: string): boolean {
  return text.trimStart().startsWith("{");
}

/** Encrypts `mnemonic` with a key scrypt derives from `passphrase`; returns the file's text. */
export async function encryptSeed(mnemonic: string, passphrase: string, fingerprint: string, cost: { N: number; r: number; p: number } = DEFAULT_SCRYPT): Promise<string> {
  const kdf: ScryptParams = { name: "scrypt", ...cost, salt: randomBytes(16).toString("base64") };
  const cipher = { name: "aes-256-gcm" as const, nonce: randomBytes(12).toString("base64") };
  const header = { format: ENCRYPTED_SEED_FORMAT, version: VERSION, fingerprint, kdf, cipher } as const;
  const key = await deriveKey(passphrase, kdf);
  try {
    const c = createCipheriv("aes-256-gcm", key, Buffer.from(cipher.nonce, "base64"));
    c.setAAD(associatedData(header));
    const ciphertext = Buffer.concat([c.update(mnemonic, "utf8"), c.final()]);
    const file: EncryptedSeedFile = { ...header, ciphertext: ciphertext.toString("base64"), tag: c.getAuthTag().toString("base64") };
    return JSON.stringify(file, null, 2) + "\n";
  } finally {
    key.fill(0);
  }
}

/** Reads an encrypted seed file's header (no passphrase needed); throws {@link UnreadableSeedFileError}. */
export function readSeedHeader(text: string): EncryptedSeedFile {
  let f: EncryptedSeedFile;
  try {
    f = JSON.parse(text) as EncryptedSeedFile;
  } catch {
    throw new UnreadableSeedFileError("the seed file is neither a mnemonic nor an encrypted seed");
  }
  if (f.format !== ENCRYPTED_SEED_FORMAT) throw new UnreadableSeedFileError("the seed file is not a tender encrypted seed");
  if (f.version !== VERSION) throw new UnreadableSeedFileError(`the encrypted seed file has version ${String(f.version)}; this tenderd reads version ${VERSION}`);
  const k = f.kdf;
  const okKdf = k?.name === "scrypt" && [k.N, k.r, k.p].every((n) => Number.isInteger(n) && n > 0) && (k.N & (k.N - 1)) === 0 && typeof k.salt === "string";
  if (!okKdf || f.cipher?.name !== "aes-256-gcm" || typeof f.ciphertext !== "string" || typeof f.tag !== "string" || typeof f.fingerprint !== "string") {
    throw new UnreadableSeedFileError("the encrypted seed file is malformed");
  }
  // a shortened tag would weaken the check that the file was not altered (GCM accepts 4 to 16 bytes)
  if (Buffer.from(f.tag, "base64").length !== 16 || Buffer.from(f.cipher.nonce ?? "", "base64").length !== 12) {
    throw new UnreadableSeedFileError("the encrypted seed file is malformed");
  }
  if (k.N > MAX_SCRYPT.N || k.r > MAX_SCRYPT.r || k.p > MAX_SCRYPT.p || 128 * k.N * k.r > MAX_SCRYPT.memoryBytes) {
    throw new UnreadableSeedFileError("the encrypted seed file asks for a scrypt cost above what tender accepts");
  }
  return f;
}

/** Decrypts the mnemonic; throws {@link WrongPassphraseError} when the passphrase (or the file) is wrong. */
export async function decryptSeed(text: string, passphrase: string): Promise<string> {
  const f = readSeedHeader(text);
  const key = await deriveKey(passphrase, f.kdf);
  try {
    const d = createDecipheriv("aes-256-gcm", key, Buffer.from(f.cipher.nonce, "base64"), { authTagLength: 16 });
    d.setAAD(associatedData(f));
    d.setAuthTag(Buffer.from(f.tag, "base64"));
    return Buffer.concat([d.update(Buffer.from(f.ciphertext, "base64")), d.final()]).toString("utf8");
  } catch {
    throw new WrongPassphraseError();
  } finally {
    key.fill(0);
  }
}
