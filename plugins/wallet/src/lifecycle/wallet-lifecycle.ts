import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  AsyncLock, BadRequestError, Database, ForbiddenError, InternalServerError, NotFoundError, WalletLockedError, WalletSession, faultPoint, withContext, writeFileAtomic,
  type DaemonConfig, type DatabaseLocation, type Logger,
} from "@tender/core";
import type { BIP32Interface } from "bip32";
import { formatWalletConfig, parseWalletConfig, validateWalletConfig, type WalletConfig } from "../config/wallet-config.js";
import { readWalletSettings, unknownWalletConfigKeys, walletSettingEnvName, walletSettingsFromEnv, type WalletSettings } from "../config/wallet-settings.js";
import { WalletCreationChecks } from "./creation-checks.js";
import { generateMnemonic, InvalidMnemonicError, masterKey, parseMnemonic, walletFingerprint } from "../keys/seed.js";
import { WalletProperties } from "../persistence/wallet-properties.js";
import type { CreateWalletRequest } from "../routes/schemas.js";
import { checkRestoreRules, resolveCreateConfig } from "./create-config.js";
import { decryptSeed, encryptSeed, isEncryptedSeed, readSeedHeader, WrongPassphraseError } from "../keys/seed-encryption.js";
import { UnlockThrottle } from "./unlock-throttle.js";
import { CONFIG_FILE, CREATE_JOURNAL_FILE, DB_FILE, KEEP_ON_DELETE, MNEMONIC_FILE, toleratedOnCreate } from "./datadir-files.js";

/** What a creation attempt wrote, so an interrupted one can be undone. */
interface CreateJournal {
  files: string[];
  database: DatabaseLocation;
}

/** The loaded wallet's key material, for the plugins that sign. Never logged. */
export interface WalletKeys {
  readonly fingerprint: string;
  readonly network: string;
  readonly master: BIP32Interface;
  /** The wallet's settings (`config.toml` with the environment's overrides); the same value `WalletSettingsService` provides. */
  readonly config: WalletSettings;
  /**
   * True when this load is the wallet's creation (`POST /wallet/create`, with or without a
   * mnemonic): rails that rebuild state from the seed (the Ark rail's recovery) run then, while
   * the wallet loads, so creation answers once they are done.
   */
  readonly createdNow?: boolean;
}

/** Whether the wallet's seed is encrypted and whether it is locked (`GET /api/v1/wallet/lock`). */
export interface SeedLockState {
  encrypted: boolean;
  locked: boolean;
}

/** The shortest passphrase a wallet's seed may be encrypted with. */
export const MIN_PASSPHRASE_LENGTH = 8;

/**
 * Creates, opens and deletes the wallet in the datadir with barkd's rules. Creation is atomic:
 * a journal lists what the attempt writes, the mnemonic file is written last as the commit point,
 * and a journal found at startup without a mnemonic is rolled back.
 */
export class WalletLifecycle {
  /** Serializes lifecycle operations (create, delete, open, shutdown) so they never interleave. */
  private readonly lock = new AsyncLock();
  private keys: WalletKeys | undefined;
  /** Whether the loaded wallet's seed file is encrypted (then the daemon starts locked). */
  private seedEncrypted = false;
  /** The settings of the loaded wallet while it is locked (its keys are not known yet). */
  private lockedSettings: WalletSettings | undefined;
  /** The decrypted mnemonic, only while unlocked and only with `--expose-mnemonic` (for `GET /wallet/mnemonic`). */
  private unlockedMnemonic: string | undefined;
  private readonly throttle = new UnlockThrottle();
  /** The extension point other plugins add creation checks to. */
  readonly creationChecks = new WalletCreationChecks();

  constructor(
    private readonly config: DaemonConfig,
    private readonly db: Database,
    private readonly session: WalletSession,
    private readonly logger: Logger,
  ) {}

  private path(name: string): string {
    return join(this.config.datadir, name);
  }

  private dbLocation(): DatabaseLocation {
    return this.config.databaseUrl
      ? { dialect: "postgresql", url: this.config.databaseUrl, schema: this.config.databaseSchema }
      : { dialect: "sqlite", path: this.path(DB_FILE) };
  }

  /** The loaded wallet's keys, or `undefined`. */
  get loadedKeys(): WalletKeys | undefined {
    return this.keys;
  }

  /** At startup: undo an interrupted creation, then open the wallet when a mnemonic exists. */
  async startup(): Promise<void> {
    await this.lock.run(async () => {
      await this.recoverInterruptedCreate();
      if (!existsSync(this.path(MNEMONIC_FILE))) {
        this.logger.warn("No wallet found. Starting rest server without daemon");
        return;
      }
      await this.open();
      if (this.session.isLocked) this.logger.info("Wallet loaded, locked: its seed is encrypted; unlock it with POST /api/v1/wallet/unlock");
      else this.logger.info("Wallet loaded and daemon started");
    });
  }

  /** Closes the wallet (daemon shutdown). */
  async shutdown(): Promise<void> {
    await this.lock.run(async () => {
      await this.session.unload();
      this.forgetKeys();
      await this.db.close();
    });
  }

  private async recoverInterruptedCreate(): Promise<void> {
    const journalPath = this.path(CREATE_JOURNAL_FILE);
    if (!existsSync(journalPath)) return;
    if (existsSync(this.path(MNEMONIC_FILE))) {
      rmSync(journalPath, { force: true }); // the creation reached its commit point
      return;
    }
    this.logger.warn("an interrupted wallet creation was found; removing what it wrote");
    const journal = JSON.parse(readFileSync(journalPath, "utf8")) as CreateJournal;
    await this.rollback(journal);
  }

  private async rollback(journal: CreateJournal): Promise<void> {
    await this.db.destroy(journal.database).catch((e: unknown) => this.logger.warn(`rollback: database: ${String(e)}`));
    for (const f of journal.files) rmSync(this.path(f), { force: true });
    rmSync(this.path(CREATE_JOURNAL_FILE), { force: true });
  }

  private forgetKeys(): void {
    this.keys = undefined;
    this.unlockedMnemonic = undefined;
    this.lockedSettings = undefined;
    this.seedEncrypted = false;
  }

  private async open(): Promise<void> {
    const text = readFileSync(this.path(MNEMONIC_FILE), "utf8");
    if (isEncryptedSeed(text)) {
      // the seed stays encrypted: open the database (reads work) and wait for the passphrase
      const { fingerprint } = readSeedHeader(text);
      const { network, config } = await this.openDatabase(fingerprint);
      this.seedEncrypted = true;
      this.lockedSettings = config;
      this.session.loadLocked({ fingerprint, network, manualSync: config.daemon_manual_sync });
      return;
    }
    const mnemonic = parseMnemonic(text);
    const master = masterKey(mnemonic);
    const fingerprint = walletFingerprint(master);
    const { network, config } = await this.openDatabase(fingerprint);
    this.keys = { fingerprint, network, master, config };
    await this.session.load({ fingerprint, network, manualSync: config.daemon_manual_sync });
  }

  /** Opens the wallet database, checks it belongs to `fingerprint`, and reads the wallet's settings. */
  private async openDatabase(fingerprint: string): Promise<{ network: string; config: WalletSettings }> {
    await this.db.open(this.dbLocation());
    const props = await this.db.em().findOne(WalletProperties, { id: 1 });
    if (!props) {
      await this.db.close();
      throw new Error("the wallet database holds no wallet properties");
    }
    if (props.fingerprint !== fingerprint) {
      await this.db.close();
      throw new Error(`the mnemonic's fingerprint ${fingerprint} does not match the database's ${props.fingerprint}`);
    }
    let config: WalletSettings;
    try {
      config = this.loadSettings(props.network);
    } catch (e) {
      await this.db.close();
      throw e;
    }
    return { network: props.network, config };
  }

  /** `GET /api/v1/wallet/lock`. */
  lockState(): SeedLockState {
    return { encrypted: this.seedEncrypted, locked: this.session.isLocked };
  }

  /**
   * `POST /api/v1/wallet/unlock`: decrypts the seed with `passphrase`, then attaches the wallet
   * (its services are created, actions resume). Wrong passphrases are answered 403 and throttled.
   */
  unlock(passphrase: string): Promise<SeedLockState> {
    return this.lock.run(async () => {
      const current = this.session.current;
      if (!current) throw new BadRequestError("No wallet set");
      if (!this.seedEncrypted) throw new BadRequestError("The wallet's seed is not encrypted");
      if (!this.session.isLocked) return this.lockState();
      this.throttle.check();
      let mnemonic: string;
      try {
        mnemonic = parseMnemonic(await decryptSeed(readFileSync(this.path(MNEMONIC_FILE), "utf8"), passphrase));
      } catch (e) {
        if (e instanceof WrongPassphraseError || e instanceof InvalidMnemonicError) {
          this.throttle.failed();
          this.logger.warn("wallet unlock refused: wrong passphrase");
          throw new ForbiddenError("Wrong passphrase");
        }
        throw e;
      }
      const master = masterKey(mnemonic);
      if (walletFingerprint(master) !== current.fingerprint) throw new InternalServerError("The decrypted seed does not belong to the loaded wallet");
      this.throttle.succeeded();
      this.keys = { fingerprint: current.fingerprint, network: current.network, master, config: this.lockedSettings! };
      if (this.config.exposeMnemonic) this.unlockedMnemonic = mnemonic;
      await this.session.unlock();
      this.logger.info(`wallet ${current.fingerprint} unlocked`);
      return this.lockState();
    });
  }

  /** `POST /api/v1/wallet/lock`: detaches the wallet (services disposed of, background work drained) and forgets its keys. */
  lockWallet(): Promise<SeedLockState> {
    return this.lock.run(async () => {
      const current = this.session.current;
      if (!current) throw new BadRequestError("No wallet set");
      if (!this.seedEncrypted) throw new BadRequestError("The wallet's seed is not encrypted: there is no passphrase to unlock it with");
      if (this.session.isLocked) return this.lockState();
      this.lockedSettings = this.keys?.config;
      await this.session.lock();
      this.keys = undefined;
      this.unlockedMnemonic = undefined;
      this.logger.info(`wallet ${current.fingerprint} locked`);
      return this.lockState();
    });
  }

  /**
   * The wallet's settings from `config.toml` (a missing file counts as empty, leaving the
   * defaults), the `TENDER_<KEY>` environment and the defaults of `network`. A wallet whose
   * settings are malformed or incomplete is not opened: the error names the file and the key.
   */
  private loadSettings(network: string): WalletSettings {
    const file = this.path(CONFIG_FILE);
    try {
      const raw: WalletConfig = existsSync(file) ? parseWalletConfig(readFileSync(file, "utf8")) : {};
      const settings = readWalletSettings(raw, network);
      validateWalletConfig(settings);
      this.logSettingSources(raw);
      return settings;
    } catch (e) {
      throw new Error(`error loading wallet configuration ${file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Logs which keys the environment overrides and which keys of the file barkd does not know (names only, never values). */
  private logSettingSources(raw: WalletConfig): void {
    for (const key of walletSettingsFromEnv()) this.logger.info(`config.toml: ${key} set by ${walletSettingEnvName(key)}`);
    const unknown = unknownWalletConfigKeys(raw);
    if (unknown.length > 0) this.logger.warn(`config.toml: ignoring keys barkd does not know: ${unknown.join(", ")}`);
  }

  /** `POST /api/v1/wallet/create`. */
  create(req: CreateWalletRequest): Promise<{ fingerprint: string }> {
    return this.lock.run(() => this.createLocked(req));
  }

  private async createLocked(req: CreateWalletRequest): Promise<{ fingerprint: string }> {
    if (this.session.isLoaded) throw new BadRequestError("Wallet already set");
    const passphrase = req.passphrase ?? undefined;
    if (passphrase === undefined && this.config.encryptSeed) {
      throw new BadRequestError("bad request: a passphrase is required: the daemon runs with --encrypt-seed");
    }
    if (passphrase !== undefined && [...passphrase].length < MIN_PASSPHRASE_LENGTH) {
      throw new BadRequestError(`bad request: the passphrase must have at least ${MIN_PASSPHRASE_LENGTH} characters`);
    }
    let mnemonic: string;
    try {
      mnemonic = req.mnemonic != null ? parseMnemonic(req.mnemonic) : generateMnemonic();
    } catch (e) {
      if (e instanceof InvalidMnemonicError) throw new BadRequestError(`bad request: Invalid mnemonic: ${e.message}`);
      throw e;
    }
    const fail = (e: unknown) => new InternalServerError(`Error while creating wallet: ${e instanceof Error ? e.message : String(e)}`);

    for (const name of readdirSync(this.config.datadir)) {
      if (toleratedOnCreate(name)) continue;
      if (!req.force) throw fail(new Error(`Datadir has unexpected contents: ${this.path(name)}`));
      rmSync(this.path(name), { recursive: true, force: true });
    }
    if (req.force && this.config.databaseUrl) await this.db.destroy(this.dbLocation());

    let resolved;
    try {
      resolved = resolveCreateConfig(req, this.path(CONFIG_FILE));
      checkRestoreRules(req, resolved.settings);
      await this.creationChecks.runAll({
        network: req.network, config: resolved.settings, restoring: req.mnemonic != null, force: req.force ?? false,
        ...(req.birthday_height != null ? { birthdayHeight: req.birthday_height } : {}),
      });
    } catch (e) {
      throw fail(e);
    }

    const master = masterKey(mnemonic);
    const fingerprint = walletFingerprint(master);
    // the seed file's text, derived before anything is written (scrypt takes a moment)
    const seedText = passphrase !== undefined ? await encryptSeed(mnemonic, passphrase, fingerprint) : mnemonic + "\n";
    const journal: CreateJournal = {
      files: [...(resolved.write ? [CONFIG_FILE] : []), MNEMONIC_FILE],
      database: this.dbLocation(),
    };
    writeFileAtomic(this.path(CREATE_JOURNAL_FILE), JSON.stringify(journal), 0o600);
    faultPoint("wallet-create:after-journal");
    try {
      if (resolved.write) writeFileAtomic(this.path(CONFIG_FILE), formatWalletConfig(resolved.file), 0o600);
      faultPoint("wallet-create:after-config");
      await this.db.open(journal.database);
      const em = this.db.em();
      em.create(WalletProperties, { id: 1, network: req.network, fingerprint, createdAt: new Date().toISOString() });
      await em.flush();
      faultPoint("wallet-create:after-db");
      writeFileAtomic(this.path(MNEMONIC_FILE), seedText, 0o600); // commit point
      faultPoint("wallet-create:after-mnemonic");
      rmSync(this.path(CREATE_JOURNAL_FILE), { force: true });
    } catch (e) {
      await this.rollback(journal);
      throw fail(e);
    }
    this.logSettingSources(resolved.file);
    this.keys = { fingerprint, network: req.network, master, config: resolved.settings, createdNow: true };
    this.seedEncrypted = passphrase !== undefined;
    if (this.seedEncrypted && this.config.exposeMnemonic) this.unlockedMnemonic = mnemonic;
    await this.session.load({ fingerprint, network: req.network, manualSync: resolved.settings.daemon_manual_sync });
    this.logger.info(`wallet ${fingerprint} created on ${req.network}`);
    return { fingerprint };
  }

  /** `DELETE /api/v1/wallet`. */
  delete(req: { dangerous: boolean; fingerprint: string }): Promise<{ deleted: boolean; message: string }> {
    return this.lock.run(async () => {
      if (!req.dangerous) throw new BadRequestError("deletion not confirmed: set dangerous=true");
      const current = this.session.current;
      if (!current) return { deleted: false, message: "No wallet to delete" };
      if (req.fingerprint !== current.fingerprint) throw new BadRequestError("Fingerprint does not match the loaded wallet");
      await this.session.unload();
      this.forgetKeys();
      try {
        await this.db.destroy(this.dbLocation());
        for (const name of readdirSync(this.config.datadir)) {
          if (!KEEP_ON_DELETE.has(name)) rmSync(this.path(name), { recursive: true, force: true });
        }
      } catch (e) {
        throw new InternalServerError(`Couldn't delete wallet: ${e instanceof Error ? e.message : String(e)}`);
      }
      this.logger.info(`wallet ${current.fingerprint} deleted`);
      return { deleted: true, message: "Wallet deleted" };
    });
  }

  /** `GET /api/v1/wallet/mnemonic`. */
  mnemonic(): { mnemonic: string } {
    if (!this.config.exposeMnemonic) throw new NotFoundError("Mnemonic endpoint is disabled", []);
    if (this.seedEncrypted) {
      if (this.session.isLocked || !this.unlockedMnemonic) throw new WalletLockedError();
      return { mnemonic: this.unlockedMnemonic };
    }
    try {
      return { mnemonic: readFileSync(this.path(MNEMONIC_FILE), "utf8").trim() };
    } catch (e) {
      throw withContext("Failed to read mnemonic", new Error((e as NodeJS.ErrnoException).code ?? "unreadable"));
    }
  }
}
