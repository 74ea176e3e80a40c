import QRCode from "qrcode";

export const QR_FORMATS = ["png", "svg"] as const;
export type QrFormat = (typeof QR_FORMATS)[number];

/**
 * A QR image of `text` as a data URI (`data:image/png;base64,…` or `data:image/svg+xml;base64,…`),
 * error correction M, a 4-module quiet zone. An all-upper-case URI fits QR's alphanumeric mode.
 */
export async function qrDataUri(text: string, format: QrFormat): Promise<string> {
  const options = { errorCorrectionLevel: "M" as const, margin: 4 };
  if (format === "png") return QRCode.toDataURL(text, { ...options, type: "image/png", scale: 4 });
  const svg = await QRCode.toString(text, { ...options, type: "svg" });
  return `data:image/svg+xml;base64,${Buffer.from(svg, "utf8").toString("base64")}`;
}
