/** One Prometheus sample: name, labels, value. */
export interface Sample { name: string; labels: Record<string, string>; value: number }

/** Parses the Prometheus text exposition (format 0.0.4): comment lines skipped, `name{a="b",…} value`. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, "$1");
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The samples named `name` whose labels include `labels`. */
export const findSamples = (samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
