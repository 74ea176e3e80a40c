/**
 * The errors this package throws are the Ark server port's (`@tender/ark-protocol/server`), so the
 * daemon catches them by class without knowing the transport. Re-exported here for the devnet,
 * tests and other users of the client.
 */
export {
  ArkClientError, ArkServerUrlError, UnknownWalletNetworkError, ProtocolVersionMismatchError, SERVER_PUBKEY_CHANGED_MESSAGE,
  MAILBOX_PUBKEY_CHANGED_MESSAGE, DIFFERENT_SERVER_MESSAGE, ServerPubkeyChangedError, MailboxPubkeyChangedError, DifferentServerError,
  InvalidArkInfoError, ArkServerConnectionLostError, ArkClientClosedError, ArkServerError, ArkServerRejectedError, ArkServerNotFoundError,
  ArkServerDeadlineError, ArkServerUnavailableError, ArkServerInternalError, ArkServerUnimplementedError, ArkServerCancelledError,
  ArkServerUnexpectedError, H2_RESET_PREFIX, isVtxoIdText, type ServerErrorDetails,
} from "@tender/ark-protocol/server";
