/**
 * Mailbox answers decoded so that nothing is lost: a `MailboxMessage` whose kind is not in our
 * `.proto` (a newer server's) decodes with `message` unset, and the generated decoder would drop
 * its content; here it keeps its bytes exactly as received in `unknownKindBytes`.
 */
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { MailboxMessage, MailboxServiceService, type MailboxMessages } from "./gen/mailbox_server.js";

/** A received mailbox message; `unknownKindBytes` is set when its kind is unknown to this client. */
export interface ReceivedMailboxMessage extends MailboxMessage {
  readonly unknownKindBytes?: Uint8Array;
}

/** A received `ReadMailbox` page. */
export interface ReceivedMailboxMessages extends MailboxMessages {
  messages: ReceivedMailboxMessage[];
}

/** Decodes one `MailboxMessage`, keeping the bytes of an unknown kind. */
export function decodeReceivedMailboxMessage(bytes: Uint8Array): ReceivedMailboxMessage {
  const m = MailboxMessage.decode(bytes);
  return m.message === undefined ? { ...m, unknownKindBytes: Uint8Array.from(bytes) } : m;
}

/** Decodes a `MailboxMessages` page the way the generated decoder does, each message with {@link decodeReceivedMailboxMessage}. */
export function decodeReceivedMailboxMessages(bytes: Uint8Array): ReceivedMailboxMessages {
  const reader = new BinaryReader(bytes);
  const page: ReceivedMailboxMessages = { messages: [], haveMore: false };
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag === 10) {
      page.messages.push(decodeReceivedMailboxMessage(reader.bytes()));
      continue;
    }
    if (tag === 16) {
      page.haveMore = reader.bool();
      continue;
    }
    if ((tag & 7) === 4 || tag === 0) break;
    reader.skip(tag & 7);
  }
  return page;
}

/** `mailbox_server.MailboxService` with the receiving decoders on `ReadMailbox` and `SubscribeMailbox`. */
export const ReceivingMailboxService = {
  ...MailboxServiceService,
  readMailbox: { ...MailboxServiceService.readMailbox, responseDeserialize: (value: Buffer): ReceivedMailboxMessages => decodeReceivedMailboxMessages(value) },
  subscribeMailbox: { ...MailboxServiceService.subscribeMailbox, responseDeserialize: (value: Buffer): ReceivedMailboxMessage => decodeReceivedMailboxMessage(value) },
} as const;
