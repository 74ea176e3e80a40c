/**
 * Extracts bitcoind's reason from an Esplora 400 body such as
 * `sendrawtransaction RPC error: {"code":-26,"message":"min relay fee not met, 0 < 110"}`;
 * a body without embedded JSON is taken as the reason itself.
 */
export function parseRejection(body: string): { reason: string; code?: number } {
  const text = body.trim();
  const brace = text.indexOf("{");
  if (brace >= 0) {
    try {
      const parsed = JSON.parse(text.slice(brace)) as { code?: unknown; message?: unknown; error?: unknown };
      const message = typeof parsed.message === "string" ? parsed.message : typeof parsed.error === "string" ? parsed.error : null;
      if (message !== null) return typeof parsed.code === "number" ? { reason: message, code: parsed.code } : { reason: message };
    } catch {
      // not JSON after all: fall through
    }
  }
  return { reason: text.replace(/^[a-z]+ RPC error:\s*/i, "") || "rejected" };
}
