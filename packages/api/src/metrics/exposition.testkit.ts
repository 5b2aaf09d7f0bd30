/**
 * Test-only: a small parser for the Prometheus text exposition format (0.0.4), enough to read back
 * what prom-client writes: `# HELP`/`# TYPE` lines, samples with optional labels (escaped \\ \" \n).
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** Samples of `name` whose labels include every pair of `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
  /** Sum of those samples' values (0 when none). */
  sum(name: string, labels?: Record<string, string>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;

function parseValue(v: string): number {
  if (v === '+Inf') return Number.POSITIVE_INFINITY;
  if (v === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(v);
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith('#')) {
      const t = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (t?.[1] && t[2]) types.set(t[1], t[2]);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m?.[1] || m[3] === undefined) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const at = LABEL.lastIndex;
      const l = LABEL.exec(body);
      if (!l?.[1] || l[2] === undefined) throw new Error(`bad labels at ${at}: ${body}`);
      labels[l[1]] = l[2].replace(/\\(.)/g, (_s, ch: string) => (ch === 'n' ? '\n' : ch));
    }
    samples.push({ name: m[1], labels, value: parseValue(m[3]) });
  }
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return { types, samples, find, sum: (name, labels) => find(name, labels).reduce((a, s) => a + s.value, 0) };
}
