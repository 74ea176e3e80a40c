/** Decoders of Lightning payment destinations (BOLT 11 invoices, BOLT 12 offers, LNURL): pure, shared by the rails. */
export * from "./decode-error.js";
export * from "./bolt11.js";
export * from "./bolt12-offer.js";
export * from "./bolt12-invoice.js";
export * from "./lnurl.js";
export { readTlvStream, readTu64, ByteReader, type TlvRecord } from "./tlv.js";
export { wordsToBytes, featureBitsFromBytes, featureBitsFromWords } from "./encoding.js";
