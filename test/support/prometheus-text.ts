/**
 * A strict reader of the Prometheus text exposition format 0.0.4 (prom-client writes it but has no
 * parser): it throws, naming the line, on anything a Prometheus server would refuse or misread,
 * and checks what the format promises beyond single lines: one TYPE per family before its
 * samples, each family's lines together, no series twice, and sound histograms (ascending `le`,
 * cumulative buckets, a `+Inf` bucket equal to `_count`).
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, MetricType>;
  help: Map<string, string>;
  samples: Sample[];
  /** The value of the one series of `name` with exactly these labels; undefined when absent. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** The samples of `name` whose labels include `labels`. */
  select(name: string, labels?: Record<string, string>): Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheusText(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  const types = new Map<string, MetricType>();
  const help = new Map<string, string>();
  const samples: Sample[] = [];
  const seen = new Set<string>();
  /** Families whose lines are over (another family's line came after them). */
  const closed = new Set<string>();
  let current: string | undefined;
  const enter = (family: string, at: string) => {
    if (family === current) return;
    if (closed.has(family)) throw new Error(`${at}: the lines of ${family} are not together`);
    if (current !== undefined) closed.add(current);
    current = family;
  };

  text.split('\n').slice(0, -1).forEach((line, i) => {
    const at = `line ${i + 1} "${line.slice(0, 120)}"`;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) return; // a comment
      const [, kind, name, rest] = m as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!METRIC_NAME.test(name)) throw new Error(`${at}: bad metric name`);
      enter(name, at);
      if (kind === 'HELP') {
        if (help.has(name)) throw new Error(`${at}: a second HELP for ${name}`);
        help.set(name, unescape(rest, false, at));
      } else {
        if (types.has(name)) throw new Error(`${at}: a second TYPE for ${name}`);
        if (!TYPES.has(rest as MetricType)) throw new Error(`${at}: unknown type "${rest}"`);
        if (samples.some((s) => familyOf(s.name, types) === name)) throw new Error(`${at}: TYPE after samples of ${name}`);
        types.set(name, rest as MetricType);
      }
      return;
    }
    const sample = parseSample(line, at);
    const family = familyOf(sample.name, types);
    if (!types.has(family)) throw new Error(`${at}: a sample of ${family}, which has no TYPE line before it`);
    enter(family, at);
    const key = seriesKey(sample.name, sample.labels);
    if (seen.has(key)) throw new Error(`${at}: the series ${key} twice`);
    seen.add(key);
    samples.push(sample);
  });

  for (const [name, type] of types) if (type === 'histogram') checkHistogram(name, samples);

  const matches = (s: Sample, name: string, labels: Record<string, string>) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v);
  return {
    types,
    help,
    samples,
    value: (name, labels = {}) => samples.find((s) => matches(s, name, labels) && Object.keys(s.labels).length === Object.keys(labels).length)?.value,
    select: (name, labels = {}) => samples.filter((s) => matches(s, name, labels)),
  };
}

/** The family a sample belongs to: a histogram's `_bucket`, `_sum` and `_count`, a summary's `_sum` and `_count`. */
function familyOf(name: string, types: Map<string, MetricType>): string {
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  if (m) {
    const type = types.get(m[1]!);
    if (type === 'histogram' || (type === 'summary' && m[2] !== 'bucket')) return m[1]!;
  }
  return name;
}

function parseSample(line: string, at: string): Sample {
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
  if (!name) throw new Error(`${at}: no metric name`);
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const label = /^[^=]*/.exec(line.slice(i))![0];
      if (!LABEL_NAME.test(label) || label.startsWith('__')) throw new Error(`${at}: bad label name "${label}"`);
      if (label in labels) throw new Error(`${at}: label ${label} twice`);
      i += label.length;
      if (line.slice(i, i + 2) !== '="') throw new Error(`${at}: label ${label} without ="value"`);
      i += 2;
      let raw = '';
      for (;;) {
        const c = line[i];
        if (c === undefined) throw new Error(`${at}: unterminated label value`);
        if (c === '"') break;
        if (c === '\\') {
          raw += c + (line[i + 1] ?? '');
          i += 2;
        } else {
          raw += c;
          i++;
        }
      }
      labels[label] = unescape(raw, true, at);
      i++;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') throw new Error(`${at}: expected , or } after label ${label}`);
    }
    i++;
  }
  const rest = line.slice(i);
  const m = /^ (\S+)(?: (-?\d+))?$/.exec(rest);
  if (!m) throw new Error(`${at}: expected " value [timestamp]" after the series`);
  return { name, labels, value: parseValue(m[1]!, at) };
}

/**
 * A value as Go's strconv.ParseFloat reads it (the format says so): decimal floats, and NaN and
 * infinities in any letter case (prom-client writes NaN as `Nan`).
 */
function parseValue(s: string, at: string): number {
  if (/^nan$/i.test(s)) return NaN;
  const inf = /^([+-]?)inf(inity)?$/i.exec(s);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) throw new Error(`${at}: bad value "${s}"`);
  return Number(s);
}

/** Label values escape `\\`, `\"` and `\n`; HELP texts `\\` and `\n`. Any other escape is an error. */
function unescape(s: string, quoted: boolean, at: string): string {
  return s.replace(/\\(.?)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    if (c === '"' && quoted) return '"';
    throw new Error(`${at}: bad escape "\\${c}"`);
  });
}

function seriesKey(name: string, labels: Record<string, string>): string {
  return `${name}{${Object.keys(labels).sort().map((k) => `${k}=${JSON.stringify(labels[k])}`).join(',')}}`;
}

function checkHistogram(name: string, samples: Sample[]): void {
  const groups = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
  const group = (labels: Record<string, string>) => {
    const { le: _le, ...rest } = labels;
    const key = seriesKey(name, rest);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { buckets: [] }));
    return g;
  };
  for (const s of samples) {
    if (s.name === `${name}_bucket`) {
      if (s.labels.le === undefined) throw new Error(`${name}_bucket without le`);
      group(s.labels).buckets.push([parseValue(s.labels.le, `${name} le`), s.value]);
    } else if (s.name === `${name}_count`) group(s.labels).count = s.value;
    else if (s.name === `${name}_sum`) group(s.labels).sum = s.value;
  }
  for (const [key, g] of groups) {
    if (g.count === undefined || g.sum === undefined) throw new Error(`${key}: a histogram without _count or _sum`);
    const last = g.buckets.at(-1);
    if (!last || last[0] !== Infinity) throw new Error(`${key}: no +Inf bucket last`);
    if (last[1] !== g.count) throw new Error(`${key}: the +Inf bucket (${last[1]}) is not _count (${g.count})`);
    g.buckets.forEach(([le, n], i) => {
      if (i === 0) return;
      const [prevLe, prevN] = g.buckets[i - 1]!;
      if (le <= prevLe) throw new Error(`${key}: le ${le} after ${prevLe}`);
      if (n < prevN) throw new Error(`${key}: bucket le=${le} (${n}) below the one before (${prevN})`);
    });
  }
}
