type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * RFC 7396 JSON merge patch: object members merge recursively, a `null` member deletes its key,
 * anything else replaces. barkd applies it to a movement's metadata object, so a non-object patch
 * leaves `{}`.
 */
export function applyMergePatch(target: unknown, patch: unknown): Json {
  if (!isObject(patch)) return patch as Json;
  const out: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

/** barkd's metadata patch: the result is always an object (a non-object patch wipes it to `{}`). */
export function patchMetadata(metadata: Record<string, unknown>, patch: unknown): Record<string, unknown> {
  const r = applyMergePatch(metadata, patch);
  return isObject(r) ? r : {};
}
