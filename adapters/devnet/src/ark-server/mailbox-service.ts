/**
 * The mailbox service on the server side (captaind's `MailboxService`): arkoor deliveries to
 * blinded mailbox ids, recovery ids, paged reads and live subscriptions after a checkpoint,
 * all reads gated by a mailbox authorization.
 *
 * Checkpoints come from one strictly increasing counter; every post is written by the store's
 * single writer, so a reader never sees a higher checkpoint before a lower one.
 */
import {
  MailboxAuthorizationError,
  ProtocolError,
  checkMailboxAuthorization,
  decodeMailboxAuthorization,
  encodeOutPoint,
  encodeVtxo,
  toHex,
  unblindMailboxId,
  vtxoIdString,
  type MailboxAuthorization,
} from "@tender/ark-protocol";
import { pubkeyFromBytes, vtxoFromBytes, vtxoIdFromBytes } from "./request-decoding.js";
import { BadUserInputError, NotFoundError, RequestConversionError } from "./server-errors.js";
import type { ServerContext } from "./server-context.js";
import type { MailboxRow } from "./server-store.js";
import { formatOutPoint } from "@tender/ark-protocol";

/** Most VTXOs in one `PostArkoorMessage` (`MAX_NB_MAILBOX_ARKOOR_VTXOS`). */
export const MAX_MAILBOX_ARKOOR_VTXOS = 100;
/** Most ids in one `PostRecoveryVtxoIds` (`MAX_NB_MAILBOX_RECOVERY_IDS`). */
export const MAX_MAILBOX_RECOVERY_IDS = 20;

/** One `MailboxMessage` as plain data. */
export type MailboxMessageData =
  | { checkpoint: bigint; kind: "arkoor"; vtxos: Uint8Array[] }
  | { checkpoint: bigint; kind: "recovery"; vtxoIds: Uint8Array[] }
  | { checkpoint: bigint; kind: "round-participation-completed"; unlockHash: Uint8Array }
  | { checkpoint: bigint; kind: "lightning-send-finished"; paymentHash: Uint8Array; preimage?: Uint8Array }
  | { checkpoint: bigint; kind: "incoming-lightning-payment"; paymentHash: Uint8Array; amountMsat: bigint };

/** A page of `ReadMailbox`. */
export interface MailboxPage {
  messages: MailboxMessageData[];
  haveMore: boolean;
}

/** Wakes subscribers of a mailbox when a post lands there (a version counter per mailbox). */
class MailboxNotifier {
  private readonly versions = new Map<string, number>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private closed = false;

  /** The current version of `mailboxId` (bumped by every post). */
  version(mailboxId: string): number {
    return this.versions.get(mailboxId) ?? 0;
  }

  /** Resolves once `mailboxId` moved past `seen`, or at close / abort. */
  wait(mailboxId: string, seen: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || signal?.aborted || this.version(mailboxId) !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiters.get(mailboxId) ?? new Set();
      this.waiters.set(mailboxId, set);
      const done = () => {
        set.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      set.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  notify(mailboxId: string): void {
    this.versions.set(mailboxId, this.version(mailboxId) + 1);
    for (const w of [...(this.waiters.get(mailboxId) ?? [])]) w();
  }

  close(): void {
    this.closed = true;
    for (const set of this.waiters.values()) for (const w of [...set]) w();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

function groupRows(rows: readonly MailboxRow[]): MailboxMessageData[] {
  const out: MailboxMessageData[] = [];
  for (const r of rows) {
    if (r.kind === "round-participation-completed") {
      out.push({ checkpoint: r.checkpoint, kind: r.kind, unlockHash: r.payload });
      continue;
    }
    if (r.kind === "ln-send-done") {
      const preimage = r.payload.length === 64 ? r.payload.slice(32) : undefined;
      out.push({ checkpoint: r.checkpoint, kind: "lightning-send-finished", paymentHash: r.payload.slice(0, 32), ...(preimage ? { preimage } : {}) });
      continue;
    }
    if (r.kind === "ln-incoming") {
      out.push({ checkpoint: r.checkpoint, kind: "incoming-lightning-payment", paymentHash: r.payload.slice(0, 32), amountMsat: Buffer.from(r.payload.slice(32, 40)).readBigUInt64BE() });
      continue;
    }
    const last = out[out.length - 1];
    if (last && last.checkpoint === r.checkpoint && last.kind === r.kind) {
      if (last.kind === "arkoor") last.vtxos.push(r.payload);
      else if (last.kind === "recovery") last.vtxoIds.push(r.payload);
      continue;
    }
    out.push(r.kind === "arkoor" ? { checkpoint: r.checkpoint, kind: "arkoor", vtxos: [r.payload] } : { checkpoint: r.checkpoint, kind: "recovery", vtxoIds: [r.payload] });
  }
  return out;
}

/** The server's mailboxes. */
export class MailboxService {
  private readonly notifier = new MailboxNotifier();

  constructor(private readonly ctx: ServerContext) {}

  /** Ends every live subscription (server shutdown). */
  close(): void {
    this.notifier.close();
  }

  private mailboxIdOf(bytes: Uint8Array | undefined): string {
    try {
      return toHex(pubkeyFromBytes(bytes));
    } catch {
      throw new RequestConversionError("invalid mailbox id");
    }
  }

  private authorize(mailboxId: string, authorization: Uint8Array | undefined, required: boolean): void {
    if (!authorization || authorization.length === 0) {
      if (required) throw new BadUserInputError("mailbox authorization required");
      return;
    }
    let auth: MailboxAuthorization;
    try {
      auth = decodeMailboxAuthorization(authorization);
    } catch {
      throw new RequestConversionError("invalid mailbox authorization");
    }
    try {
      checkMailboxAuthorization(auth, Buffer.from(mailboxId, "hex"), this.ctx.nowSecs());
    } catch (e) {
      if (e instanceof MailboxAuthorizationError) throw new BadUserInputError(e.message);
      throw e;
    }
  }

  /** `PostArkoorMessage` (unauthenticated): delivers arkoor VTXOs to the unblinded mailbox. */
  async postArkoorMessage(blindedId: Uint8Array | undefined, vtxoBytes: readonly Uint8Array[]): Promise<void> {
    if (vtxoBytes.length > MAX_MAILBOX_ARKOOR_VTXOS) throw new BadUserInputError(`too many vtxos, max is ${MAX_MAILBOX_ARKOOR_VTXOS}`);
    if (vtxoBytes.length === 0) throw new BadUserInputError("no vtxos provided");
    const vtxos = vtxoBytes.map((b) => vtxoFromBytes(b));
    for (const v of vtxos) {
      if (v.policy.type !== "pubkey") throw new BadUserInputError(`vtxo ${vtxoIdString(v)} is not a final payment vtxo (policy: ${v.policy.type})`);
    }
    const user = toHex(vtxos[0]!.policy.userPubkey);
    if (vtxos.some((v) => toHex(v.policy.userPubkey) !== user)) throw new BadUserInputError("all vtxos should share vtxo pubkey when mailbox is provided");
    const blinded = pubkeyFromBytes(blindedId);
    let mailboxId: string;
    try {
      mailboxId = toHex(unblindMailboxId(blinded, this.ctx.keys.mailboxSecret, vtxos[0]!.policy.userPubkey));
    } catch (e) {
      if (e instanceof ProtocolError) throw new BadUserInputError(`invalid blinded mailbox id: ${e.message}`);
      throw e;
    }
    const unknown: string[] = [];
    for (const v of vtxos) {
      const id = vtxoIdString(v);
      const row = await this.ctx.store.getVtxo(id);
      if (!row) unknown.push(id);
      else if (row.userPubkey !== user) throw new BadUserInputError(`vtxo ${id} doesn't belong to the provided vtxo pubkey`, undefined, [id]);
    }
    if (unknown.length) throw new NotFoundError("vtxo not found", unknown);
    const cp = await this.ctx.store.appendMailbox(mailboxId, "arkoor", vtxos.map((v) => ({ key: vtxoIdString(v), payload: encodeVtxo(v) })));
    this.ctx.logger.debug(`mailbox ${mailboxId}: arkoor post of ${vtxos.length} vtxo(s), checkpoint ${cp ?? "none (duplicates)"}`);
    if (cp !== null) this.notifier.notify(mailboxId);
  }

  /** `PostRecoveryVtxoIds`: backs up 1..20 ids in the recovery mailbox. */
  async postRecoveryVtxoIds(mailboxIdBytes: Uint8Array | undefined, ids: readonly Uint8Array[], authorization: Uint8Array | undefined): Promise<void> {
    if (ids.length > MAX_MAILBOX_RECOVERY_IDS) throw new BadUserInputError(`too many VTXOs, max is ${MAX_MAILBOX_RECOVERY_IDS}`);
    if (ids.length === 0) throw new BadUserInputError("no VTXO IDs provided");
    const mailboxId = this.mailboxIdOf(mailboxIdBytes);
    this.authorize(mailboxId, authorization, false);
    const points = ids.map((b) => vtxoIdFromBytes(b));
    const cp = await this.ctx.store.appendMailbox(mailboxId, "recovery", points.map((p) => ({ key: formatOutPoint(p), payload: encodeOutPoint(p) })));
    if (cp !== null) this.notifier.notify(mailboxId);
  }

  /** Tells a mailbox that the delegated participation with `unlockHash` is now in a round (once per unlock hash). */
  async postRoundParticipationCompleted(mailboxIdHex: string, unlockHash: Uint8Array): Promise<void> {
    const cp = await this.ctx.store.appendMailbox(mailboxIdHex, "round-participation-completed", [{ key: toHex(unlockHash), payload: unlockHash }]);
    if (cp !== null) this.notifier.notify(mailboxIdHex);
  }

  /** Tells a mailbox that its Lightning payment with this hash ended (the preimage on success); once per payment attempt. */
  async postLightningSendFinished(mailboxIdHex: string, paymentHash: Uint8Array, preimage: Uint8Array | undefined, attemptId: number): Promise<void> {
    const payload = preimage ? Buffer.concat([paymentHash, preimage]) : paymentHash;
    const cp = await this.ctx.store.appendMailbox(mailboxIdHex, "ln-send-done", [{ key: `${toHex(paymentHash)}:${attemptId}`, payload }]);
    if (cp !== null) this.notifier.notify(mailboxIdHex);
  }

  /** Tells a mailbox that a payer's HTLCs are held for its Lightning receive with this hash (once per hash). */
  async postIncomingLightningPayment(mailboxIdHex: string, paymentHash: Uint8Array, amountMsat: bigint): Promise<void> {
    const amount = Buffer.alloc(8);
    amount.writeBigUInt64BE(amountMsat);
    const cp = await this.ctx.store.appendMailbox(mailboxIdHex, "ln-incoming", [{ key: toHex(paymentHash), payload: Buffer.concat([paymentHash, amount]) }]);
    if (cp !== null) this.notifier.notify(mailboxIdHex);
  }

  /** `ReadMailbox`: one page of messages after `checkpoint`. */
  async readMailbox(mailboxIdBytes: Uint8Array | undefined, authorization: Uint8Array | undefined, checkpoint: bigint): Promise<MailboxPage> {
    const mailboxId = this.mailboxIdOf(mailboxIdBytes);
    this.authorize(mailboxId, authorization, true);
    return this.page(mailboxId, checkpoint);
  }

  private async page(mailboxId: string, after: bigint): Promise<MailboxPage> {
    const limit = this.ctx.config.maxReadMailboxItems;
    const messages = groupRows(await this.ctx.store.readMailbox(mailboxId, after, limit));
    return { messages, haveMore: messages.length >= limit };
  }

  /**
   * `SubscribeMailbox`: checks the authorization once, then yields every message after
   * `checkpoint` (catch-up first) and waits for new ones until `signal` aborts or the server
   * closes.
   */
  async *subscribeMailbox(mailboxIdBytes: Uint8Array | undefined, authorization: Uint8Array | undefined, checkpoint: bigint, signal?: AbortSignal): AsyncGenerator<MailboxMessageData> {
    const mailboxId = this.mailboxIdOf(mailboxIdBytes);
    this.authorize(mailboxId, authorization, true);
    let cursor = checkpoint;
    while (!signal?.aborted && !this.notifier.isClosed) {
      // the version is taken before reading, so a post between the read and the wait is not missed
      const seen = this.notifier.version(mailboxId);
      const { messages } = await this.page(mailboxId, cursor);
      for (const m of messages) {
        if (signal?.aborted) return;
        cursor = m.checkpoint;
        yield m;
      }
      if (messages.length === 0) await this.notifier.wait(mailboxId, seen, signal);
    }
  }
}
