export const TENDER_VERSION = "0.1.0";
