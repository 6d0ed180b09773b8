/**
 * A strict parser of Prometheus' text exposition format (version 0.0.4), for the tests of GET /metrics: no maintained
 * parser is among the project's dependencies (prom-client writes the format, it does not read it). Anything the
 * format does not allow is an error naming the line: a malformed name, label or value, a sample before its family's
 * TYPE or of a family met before, a family described twice, a series written twice, a sample whose name does not
 * belong to its family's type, a histogram whose buckets are not cumulative or lack `+Inf`, or whose `+Inf` bucket
 * is not its `_count`.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

class ParseError extends Error {
  constructor(line: number, message: string, text: string) {
    super(`line ${line}: ${message}: ${JSON.stringify(text)}`);
  }
}

/** A value as Go's strconv.ParseFloat reads it (what the format specifies): NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(raw: string): number | undefined {
  if (/^nan$/i.test(raw)) return NaN;
  if (/^\+?inf(inity)?$/i.test(raw)) return Infinity;
  if (/^-inf(inity)?$/i.test(raw)) return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)) return undefined;
  return Number(raw);
}

/** `{a="x",b="y\"z"}` from `start` (the brace): the labels and where the text after the closing brace begins. */
function parseLabels(text: string, start: number, fail: (m: string) => never): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  const blanks = () => {
    while (text[i] === ' ' || text[i] === '\t') i++;
  };
  for (;;) {
    blanks();
    if (text[i] === '}') return { labels, end: i + 1 };
    const eq = text.indexOf('=', i);
    if (eq < 0) fail('a label without =');
    const name = text.slice(i, eq).trimEnd();
    if (!LABEL_NAME.test(name)) fail(`invalid label name '${name}'`);
    if (Object.hasOwn(labels, name)) fail(`label '${name}' given twice`);
    if (text[eq + 1] !== '"') fail(`label '${name}' has no quoted value`);
    let value = '';
    let j = eq + 2;
    for (;; j++) {
      const c = text[j];
      if (c === undefined) fail(`label '${name}' has an unterminated value`);
      if (c === '"') break;
      if (c === '\n') fail('a line break inside a label value');
      if (c === '\\') {
        const next = text[++j];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else fail(`invalid escape \\${next ?? ''} in label '${name}'`);
        continue;
      }
      value += c;
    }
    labels[name] = value;
    i = j + 1;
    blanks();
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] !== '}') fail(`expected , or } after label '${name}'`);
  }
}

function unescapeHelp(text: string, fail: (m: string) => never): string {
  return text.replace(/\\(.?)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    return fail(`invalid escape \\${c} in HELP`);
  });
}

/** The family a sample name belongs to, for a family of this type, or undefined when it cannot belong. */
function belongs(family: Family, sample: string): boolean {
  switch (family.type) {
    case 'histogram': return [`${family.name}_bucket`, `${family.name}_sum`, `${family.name}_count`].includes(sample);
    case 'summary': return [family.name, `${family.name}_sum`, `${family.name}_count`].includes(sample);
    default: return sample === family.name;
  }
}

function checkHistogram(f: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  const keyOf = (labels: Record<string, string>) => JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le').sort());
  for (const s of f.samples) {
    const key = keyOf(s.labels);
    let e = series.get(key);
    if (!e) series.set(key, (e = { buckets: [] }));
    if (s.name === `${f.name}_bucket`) {
      const le = s.labels.le;
      const bound = le === undefined ? undefined : parseValue(le);
      if (bound === undefined || Number.isNaN(bound)) throw new Error(`${f.name}: a bucket without a valid le label`);
      e.buckets.push([bound, s.value]);
    } else if (s.name === `${f.name}_count`) {
      e.count = s.value;
    }
  }
  for (const [key, e] of series) {
    for (let i = 1; i < e.buckets.length; i++) {
      if (!(e.buckets[i]![0] > e.buckets[i - 1]![0])) throw new Error(`${f.name}${key}: bucket bounds not increasing`);
      if (e.buckets[i]![1] < e.buckets[i - 1]![1]) throw new Error(`${f.name}${key}: bucket counts not cumulative`);
    }
    const inf = e.buckets.at(-1);
    if (!inf || inf[0] !== Infinity) throw new Error(`${f.name}${key}: no +Inf bucket`);
    if (e.count !== inf[1]) throw new Error(`${f.name}${key}: _count ${e.count} is not the +Inf bucket's ${inf[1]}`);
  }
}

/** Parses a whole exposition; families by name, in the order written. */
export function parsePrometheusText(text: string): Map<string, Family> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition does not end with a line break');
  const families = new Map<string, Family>();
  const helped = new Set<string>();
  let current: Family | undefined;
  const seriesSeen = new Set<string>();
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, index) => {
    const fail = (m: string): never => {
      throw new ParseError(index + 1, m, line);
    };
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!m) return; // a plain comment
      const [, kind, name, rest = ''] = m as unknown as [string, 'HELP' | 'TYPE', string, string | undefined];
      if (!METRIC_NAME.test(name)) fail(`invalid metric name '${name}'`);
      let family = families.get(name);
      if (family && family !== current) fail(`family ${name} described again after other families`);
      if (family && current?.samples.length) fail(`${kind} for ${name} after its samples`);
      if (!family) {
        family = { name, help: '', type: 'untyped', samples: [] };
        families.set(name, family);
        current = family;
      }
      if (kind === 'HELP') {
        if (helped.has(name)) fail(`a second HELP for ${name}`);
        helped.add(name);
        family.help = unescapeHelp(rest, fail);
      } else {
        if (!TYPES.includes(rest.trim() as MetricType)) fail(`unknown type '${rest}'`);
        if (family.type !== 'untyped' || (family as Family & { typed?: boolean }).typed) fail(`a second TYPE for ${name}`);
        family.type = rest.trim() as MetricType;
        (family as Family & { typed?: boolean }).typed = true;
      }
      return;
    }
    const nameEnd = line.search(/[{ \t]/);
    if (nameEnd <= 0) fail('a sample without a value');
    const name = line.slice(0, nameEnd);
    if (!METRIC_NAME.test(name)) fail(`invalid metric name '${name}'`);
    let labels: Record<string, string> = {};
    let rest = line.slice(nameEnd);
    if (rest.startsWith('{')) {
      const parsed = parseLabels(line, nameEnd, fail);
      labels = parsed.labels;
      rest = line.slice(parsed.end);
    }
    // Tokens are separated by blanks (spaces or tabs), any number of them.
    const parts = rest.split(/[ \t]+/);
    if (parts.at(-1) === '') parts.pop();
    if (parts[0] !== '' || parts.length < 2 || parts.length > 3) fail('expected a value and an optional timestamp after blanks');
    const value = parseValue(parts[1]!);
    if (value === undefined) fail(`invalid value '${parts[1]}'`);
    if (parts[2] !== undefined && !/^-?\d+$/.test(parts[2])) fail(`invalid timestamp '${parts[2]}'`);
    if (!current || !belongs(current, name)) {
      // A sample with no TYPE before it is an untyped family of its own, unless that family was already met.
      if (families.has(name)) fail(`a sample of family ${name} after other families`);
      current = { name, help: '', type: 'untyped', samples: [] };
      families.set(name, current);
    }
    if (current.type === 'histogram' && name === `${current.name}_bucket` && labels.le === undefined) fail('a histogram bucket without le');
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seriesSeen.has(series)) fail('a series written twice');
    seriesSeen.add(series);
    current.samples.push({ name, labels, value: value! });
  });
  for (const f of families.values()) {
    delete (f as Family & { typed?: boolean }).typed;
    if (f.type === 'histogram') checkHistogram(f);
  }
  return families;
}

/** The value of one series, or undefined when it is not there. */
export function sampleValue(families: Map<string, Family>, family: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  return families.get(family)?.samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want)?.value;
}
