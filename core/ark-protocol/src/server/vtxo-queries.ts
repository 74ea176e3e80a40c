/**
 * What the server says about single VTXOs (`GetVtxo`, `GetVtxoStatus`), as plain data. A wallet
 * restored from its seed asks both: the full VTXO behind an id read from its recovery mailbox,
 * and whether the server still counts it as spendable.
 */

/**
 * The server's spend state of a user VTXO. `unspecified` is the protocol's zero value, and what an
 * answer this daemon does not know maps to: neither says whether the VTXO can be spent.
 */
export type VtxoSpendState = "spendable" | "spent" | "unclaimed" | "unregistered" | "htlc-recv-unclaimed" | "unspecified";
