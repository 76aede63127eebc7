// The descriptor printed instead of a large output (CONTRACT section 3): a superset of the reference
// OffloadResponse. It has to be small (about 1,000 tokens by default: a descriptor near the size of the output
// it replaces saves nothing), so it is built at decreasing levels of detail until it fits.
import { streamsNote } from './streams-note.js';
import type { Header } from '../format/header.js';
import { formatBytes, formatCount, formatCounted } from '../units.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import type { FieldValues, RecordStats } from './record-stats.js';
import { interestingValue, recordRecipes, renderRecipes, textRecipes, type JqRecipe } from './recipes.js';
import { fieldPaths, toJsonSchema } from './schema.js';
import { valueText } from '../values/literal.js';
import { sampleScope, type PreviewLine, type TextStats } from './text-stats.js';
import { kindErrors, textKind, trimFacts } from './kind-summary.js';
import { distinct, named, withId, wordsLine, type NamedCommand, type Say, type Words } from './commands.js';
import { jsonKind } from './kinds/json-kinds.js';
import type { KindFacts } from './kinds/index.js';

export const DESCRIPTOR_TOKENS = 1000;
export const DEFAULT_PREVIEW_TOKENS = 300;

export interface Summary {
  count: number;
  estimated_tokens: number;
  bytes: number;
  operation: string;
  query?: string | null;
  content_type: Header['content_type'];
  /**
   * What the output is, whatever its content type: log, text, paths, listing, table, csv, tsv, diff, git-log,
   * test-run, diagnostics, syscalls, sql-dump, html, minified, env, json-records, json-document, json-map, binary.
   */
  kind: string;
  /** The facts of that kind (a table's columns, a diff's files, a test run's failures…). */
  kind_facts?: Record<string, unknown>;
  detail: string;
  session?: string | null;
  source?: Header['source'];
  /** text: lines that look like errors, and lines per log level. */
  error_lines?: number;
  levels?: Record<string, number>;
  /** text: which lines the levels were counted on, in words, when not all of them. */
  levels_counted_over?: string;
  /**
   * text that repeats itself (logs): the kinds of line among the first `lines`, the most frequent first; `scope`
   * says in words when those are not all the lines.
   */
  templates?: { count: number; lines: number; scope?: string; top: { template: string; count: number; line: number }[] };
  /** json/jsonl: most frequent values of low-cardinality fields, e.g. {".status": {"success": 4800, "error": 200}}. */
  top_values?: Record<string, Record<string, number>>;
  /** json/jsonl: numeric fields' range and median, timestamps' first and last value, ids' count of values. */
  numbers?: Record<string, { min: number; max: number; median: number; median_of?: number }>;
  times?: Record<string, { first: string; last: string }>;
  distinct?: Record<string, number | string>;
  /** Whether top_values (and the figures) come from a sample of the records; `sample` says which, in words. */
  sampled?: boolean;
  sample?: string;
  /** jsonl: records that are not JSON (stored as strings; lro jq skips them). */
  invalid_records?: number[];
  /** json: where the records come from in the document. */
  records_from?: string;
  /** text: bytes of terminal escapes and redraws left out of what is counted, shown and searched. */
  noise_bytes?: number;
  /** Secrets replaced by `[REDACTED:rule]` (--redact), per rule. */
  redacted?: Record<string, number>;
  /** Likely secrets stored as they were (no --redact): how many, and which rules saw them. Never the values. */
  possible_secrets?: number;
  possible_secret_rules?: string[];
}

export interface Descriptor {
  offloaded: true;
  id: string;
  file_path: string;
  summary: Summary;
  line_schema: Record<string, unknown>;
  fields: string[];
  /** text: "N: line" strings; records: {record: N, value: shortened record}. */
  preview: { head: unknown[]; tail: unknown[]; errors?: string[] };
  jq_recipes: JqRecipe[];
  guidance: string;
  expires_at: string;
  /**
   * Every lro command the descriptor names (its recipes, "… more (lro info ID --full)", the commands its guidance
   * quotes), with the words it is made of: for a program to run one, and for the MCP face to make its tool call.
   * Not printed (printedDescriptor).
   */
  commands: NamedCommand[];
}

/** The command that groups every line of a result by its template, as the descriptor names it. */
export const templatesWords = (id: string): Words => ['count', id, '--by', 'template'];

/** The line a descriptor prints for a command it names: its own (a tool call, for an MCP client), else the shell's. */
export function lineOf(d: Pick<Descriptor, 'commands'>, words: Words): string {
  const line = wordsLine(words);
  return d.commands.find((c) => c.words.length === words.length && c.words.every((w, i) => w === words[i]))?.line ?? line;
}

/** The descriptor as printed: all but the commands' words (its text names each command by its line). */
export function printedDescriptor(d: Descriptor): Omit<Descriptor, 'commands'> {
  const { commands: _, ...printed } = d;
  return printed;
}

/** What was learned about the records while writing (or reading) them. */
export type Stats =
  | { kind: 'text'; text: TextStats }
  | { kind: 'records'; records: RecordStats }
  /** `format`: what the first bytes say it is (ELF, Mach-O, PE, an archive…), when they say. */
  | { kind: 'binary'; format?: string };

export interface DescribeOptions {
  previewTokens?: number;
  /** No size bound: everything (lro info --full). */
  full?: boolean;
  tokenizer: Tokenizer;
}

interface Detail {
  templates: number;
  figures: number;
  schemaDepth: number;
  schemaProps: number;
  fields: number;
  topFields: number;
  topValues: number;
  previewShare: number;
}

// From the richest to the leanest; the preview keeps its budget (--preview-tokens) until the last levels, so
// templates give way before the preview does.
const DETAILS: Detail[] = [
  { templates: 5, figures: 6, schemaDepth: 3, schemaProps: 25, fields: 40, topFields: 4, topValues: 6, previewShare: 1 },
  { templates: 4, figures: 5, schemaDepth: 2, schemaProps: 15, fields: 25, topFields: 3, topValues: 5, previewShare: 1 },
  { templates: 3, figures: 4, schemaDepth: 1, schemaProps: 12, fields: 15, topFields: 3, topValues: 4, previewShare: 1 },
  { templates: 2, figures: 3, schemaDepth: 1, schemaProps: 8, fields: 10, topFields: 2, topValues: 3, previewShare: 1 },
  { templates: 2, figures: 3, schemaDepth: 1, schemaProps: 6, fields: 8, topFields: 2, topValues: 3, previewShare: 0.7 },
  { templates: 1, figures: 2, schemaDepth: 0, schemaProps: 0, fields: 6, topFields: 1, topValues: 3, previewShare: 0.5 },
  { templates: 1, figures: 1, schemaDepth: 0, schemaProps: 0, fields: 4, topFields: 1, topValues: 2, previewShare: 0.3 },
];
const FULL: Detail = { templates: 12, figures: 100, schemaDepth: 8, schemaProps: 1000, fields: 1000, topFields: 100, topValues: 50, previewShare: 10 };
/** Characters of a template shown in a (bounded) descriptor. */
const TEMPLATE_CHARS = 100;

/**
 * The descriptor as JSON: compact for a pipe (an agent reading it pays for every token; this is what the size
 * bound measures), indented for a person at a terminal.
 */
export function renderDescriptorJson(d: Descriptor, pretty = false): string {
  const printed = printedDescriptor(d);
  return `${pretty ? JSON.stringify(printed, null, 2) : JSON.stringify(printed)}\n`;
}

/** Builds the descriptor of a stored result; bounded to about DESCRIPTOR_TOKENS unless `full`. */
export function describe(header: Header, path: string, stats: Stats, opts: DescribeOptions): Descriptor {
  const previewTokens = opts.previewTokens ?? DEFAULT_PREVIEW_TOKENS;
  if (opts.full) return build(header, path, stats, FULL, previewTokens * 10, opts.tokenizer);
  let last: Descriptor | null = null;
  for (const detail of DETAILS) {
    last = build(header, path, stats, detail, Math.floor(previewTokens * detail.previewShare), opts.tokenizer);
    const budget = DESCRIPTOR_TOKENS + Math.max(0, previewTokens - DEFAULT_PREVIEW_TOKENS);
    if (opts.tokenizer.count(measured(renderDescriptorJson(last), header.id, path)) <= budget) return last;
  }
  return last!;
}

/**
 * The id a descriptor is measured with: ids cost 12 to 22 tokens (o200k_base, 3,000 random ULIDs), so a
 * descriptor measured with this one (25 tokens) fits the budget with its real id too, and the same output gets
 * the same descriptor whatever its id.
 */
const MEASURE_ID = '79Z8Y7X6W5V4T3S2R1Q0P9N8M7';

/**
 * The path a descriptor is measured with, for the same reason: the store's path costs what its name costs, and
 * the same output gets the same descriptor whichever store holds it (the path is JSON-escaped where it appears).
 */
const MEASURE_PATH = `/tmp/lro-1000/lro-offload-${MEASURE_ID}.jsonl`;

/** The descriptor's text as measured against the budget: the measuring id and path in place of the real ones. */
function measured(text: string, id: string, path: string): string {
  const escaped = JSON.stringify(path).slice(1, -1);
  return text.split(escaped).join(MEASURE_PATH).split(id).join(MEASURE_ID);
}

function build(header: Header, path: string, stats: Stats, d: Detail, previewTokens: number, tok: Tokenizer): Descriptor {
  const id = header.id;
  const commands: NamedCommand[] = [];
  const say: Say = (words) => {
    const c = named(words);
    if (!commands.some((x) => x.line === c.line)) commands.push(c);
    return c.line;
  };
  const summary: Summary = {
    count: header.count,
    estimated_tokens: header.estimated_tokens,
    bytes: header.bytes,
    operation: header.operation,
    content_type: header.content_type,
    kind: 'binary',
    detail: header.detail,
  };
  if (header.query != null) summary.query = header.query;
  if (header.session != null) summary.session = header.session;
  if (header.source) summary.source = header.source;
  let schema: Record<string, unknown> = { type: 'string' };
  let fields: string[] = [];
  let recipes: JqRecipe[] = [];
  let preview: Descriptor['preview'] = { head: [], tail: [] };

  if (stats.kind === 'text') {
    const t = stats.text;
    const k = t.kind;
    summary.kind = textKind(t);
    // (a result stored before its facts said their scope in words says a bare from_first_lines: worded here)
    if (k) summary.kind_facts = trimFacts(sampleScope(k.facts, Number(k.facts.from_first_lines), t.lines), d === FULL ? Infinity : d.topValues + 2);
    const errors = kindErrors(t);
    if (errors) summary.error_lines = errors.count;
    // log levels are claimed for a log only: "INFO" in a README or a listing is a word
    if (summary.kind === 'log' && Object.keys(t.levels).length > 0) {
      summary.levels = sortCounts(t.levels);
      if (t.levelLines) summary.levels_counted_over = `the first ${formatCount(t.levelLines)} of ${formatCount(t.lines)} lines only, not totals`;
    }
    if (!k && repeats(t)) {
      summary.templates = templates(t, d, d === FULL);
      say(templatesWords(id)); // the text form names it beside the templates (render/descriptor-text.ts)
    }
    schema = { type: 'string', description: 'one line of the original text, without its line ending' };
    recipes = renderRecipes(k ? (k.recipes ?? []) : textRecipes(t), id, path, header, say);
    preview = textPreview(t, errors?.lines ?? [], previewTokens, tok);
  } else if (stats.kind === 'records') {
    const r = stats.records;
    const k = jsonKind(header, r);
    summary.kind = k.kind;
    if (k.facts) summary.kind_facts = trimFacts(k.facts, d === FULL ? Infinity : d.topValues + 2);
    schema = toJsonSchema(r.schema, { depth: d.schemaDepth, properties: d.schemaProps });
    const allFields = fieldPaths(r.schema, 2);
    fields = allFields.slice(0, d.fields);
    if (allFields.length > fields.length) fields.push(`… ${allFields.length - fields.length} more (${say(['info', id, '--full'])})`);
    if (r.topValues.length > 0) summary.top_values = topValues(r.topValues, d);
    addFigures(summary, r.figures.slice(0, d.figures));
    if (r.sampled) {
      summary.sampled = true;
      summary.sample =
        `top_values, numbers, times and distinct are of ${formatCount(r.analyzed)} of the ${formatCount(r.count)} records ` +
        '(all of the first 8 MB, then one in 2, 4, 8…): top_values are scaled estimates, the others of those records only';
    }
    recipes = renderRecipes(k.recipes?.length ? k.recipes : recordRecipes(r, allFields), id, path, header, say);
    preview = recordPreview(r, previewTokens, tok);
  } else {
    schema = { type: 'string', contentEncoding: 'base64', description: `${3072} bytes of the original per record` };
    if (stats.format) summary.kind_facts = { format: stats.format };
  }
  if (header.invalid_records?.length) summary.invalid_records = header.invalid_records.slice(0, 20);
  if (header.noise_bytes) summary.noise_bytes = header.noise_bytes;
  if (header.content_redacted && header.redacted) summary.redacted = header.redacted;
  const secrets = Object.entries(header.possible_secrets ?? {});
  if (secrets.length) {
    summary.possible_secrets = secrets.reduce((n, [, c]) => n + c, 0);
    summary.possible_secret_rules = secrets.map(([rule]) => rule).sort();
  }
  if (header.content_type === 'json') {
    summary.records_from =
      header.split === 'elements'
        ? 'the elements of the top-level array'
        : header.split === 'path'
          ? `${jqPath(header.path ?? [])} (the rest of the document: header envelope)`
          : 'the whole document (one record)';
  }
  return {
    offloaded: true,
    id,
    file_path: path,
    summary,
    line_schema: schema,
    fields,
    preview,
    jq_recipes: recipes,
    guidance: sourceNote(header) + streamsNote(header, say) + guidance(header, stats, commands.find((c) => c.line === recipes[0]?.command)?.words, say) + privacyNote(summary),
    expires_at: header.expires_at,
    commands,
  };
}

function addFigures(summary: Summary, figures: RecordStats['figures']): void {
  for (const f of figures) {
    if (f.numbers) (summary.numbers ??= {})[f.path] = f.numbers;
    if (f.times) (summary.times ??= {})[f.path] = f.times;
    if (f.distinct) (summary.distinct ??= {})[f.path] = f.distinct.more ? `${f.distinct.count}+` : f.distinct.count;
  }
}

/** Whether the lines repeat themselves (on average four or more lines per template), as logs do. */
function repeats(t: TextStats): boolean {
  const tp = t.templates;
  return !!tp && tp.count > 0 && tp.count * 4 <= tp.lines;
}

function templates(t: TextStats, d: Detail, full: boolean): NonNullable<Summary['templates']> {
  const tp = t.templates;
  const cut = (s: string) => (full || s.length <= TEMPLATE_CHARS ? s : `${s.slice(0, TEMPLATE_CHARS - 1)}…`);
  const scope = tp.lines < t.lines ? { scope: `the first ${formatCount(tp.lines)} of ${formatCount(t.lines)} lines only` } : {};
  return { count: tp.count, lines: tp.lines, ...scope, top: tp.top.slice(0, d.templates).map((x) => ({ template: cut(x.template), count: x.count, line: x.line })) };
}

function sortCounts(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort((a, b) => b[1] - a[1]));
}

function topValues(fields: FieldValues[], d: Detail): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const f of fields.slice(0, d.topFields)) {
    const shown: Record<string, number> = {};
    for (const [v, c] of f.values.slice(0, d.topValues)) shown[typeof v === 'string' ? v : JSON.stringify(v)] = c;
    if (f.values.length > d.topValues) shown['(other values)'] = f.values.slice(d.topValues).reduce((s, [, c]) => s + c, 0);
    out[f.path] = shown;
  }
  return out;
}

export function jqPath(keys: string[]): string {
  return keys.map((k) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `.${JSON.stringify(k)}`)).join('') || '.';
}

/** Fills the preview budget: error-like lines first (up to 40%), then the head, then the tail. */
function textPreview(t: TextStats, errorLines: PreviewLine[], budget: number, tok: Tokenizer): Descriptor['preview'] {
  let left = budget;
  const take = (lines: PreviewLine[], max: number, fromEnd = false): string[] => {
    const out: string[] = [];
    const list = fromEnd ? [...lines].reverse() : lines;
    let used = 0;
    for (const l of list) {
      const s = `${l.line}: ${l.text}`;
      const cost = tok.count(s) + 2;
      if (used + cost > max) break;
      used += cost;
      out.push(s);
    }
    left -= used;
    return fromEnd ? out.reverse() : out;
  };
  const errors = errorLines.length ? take(errorLines, Math.floor(budget * 0.4)) : [];
  const head = take(t.head, Math.floor(left * 0.55));
  const shownHead = new Set(head.map((s) => s.slice(0, s.indexOf(':'))));
  const tail = take(
    t.tail.filter((l) => !shownHead.has(String(l.line))),
    left,
    true,
  );
  const preview: Descriptor['preview'] = { head, tail };
  if (errors.length) preview.errors = errors;
  return preview;
}

function recordPreview(r: RecordStats, budget: number, tok: Tokenizer): Descriptor['preview'] {
  let left = budget;
  const take = (records: RecordStats['head']): unknown[] => {
    const out: unknown[] = [];
    for (const rec of records) {
      const cost = tok.count(JSON.stringify(rec)) + 1;
      if (cost > left) {
        left = 0;
        break;
      }
      left -= cost;
      out.push(rec);
    }
    return out;
  };
  const head = take(r.head);
  const tail = take(r.tail);
  return { head, tail };
}

/**
 * How the command behind the output ended (`lro run`), first, so an agent reading only the guidance still sees
 * that `npm test` failed.
 */
function sourceNote(h: Header): string {
  const s = h.source;
  if (!s) return '';
  const line = s.command.replace(/\s*\n\s*/g, ' '); // a multi-line script stays one line of guidance
  const cmd = `\`${line.length > 80 ? `${line.slice(0, 79)}…` : line}\``;
  if (s.tool !== undefined) return s.is_error ? `MCP tool call ${cmd} returned an error. ` : `Result of MCP tool call ${cmd}. `;
  if (s.incomplete) return `The output of ${cmd} is INCOMPLETE: ${s.incomplete}. `;
  if (s.signal) return `${cmd} was killed by ${s.signal}. `;
  if (s.exit_code === 0) return `${cmd} succeeded (exit code 0). `;
  if (s.exit_code == null) return '';
  return `${cmd} FAILED (exit code ${s.exit_code}). `;
}

/**
 * A warning that likely secrets are stored in plain text, naming the rules (never the values); or, for a redacted
 * result, what the `[REDACTED:rule]` marks in it are.
 */
function privacyNote(s: Summary): string {
  const replaced = Object.values(s.redacted ?? {}).reduce((a, b) => a + b, 0);
  if (replaced) return ` ${replaced === 1 ? '1 secret was' : `${formatCount(replaced)} secrets were`} replaced by [REDACTED:<rule>] before storing.`;
  if (!s.possible_secrets) return '';
  const n = s.possible_secrets;
  return ` ${n === 1 ? '1 likely secret is' : `${formatCount(n)} likely secrets are`} stored as written (${s.possible_secret_rules!.join(', ')}): do not copy them; offload with --redact to replace them.`;
}

/**
 * Commands as the guidance quotes them, in backticks, each kept among the descriptor's commands. One whose line
 * holds a backtick itself (a stored field name or value in it) is left out: it cannot be quoted so.
 */
function quoted(commands: Words[], say: Say): string {
  return commands
    .filter((c) => !wordsLine(c).includes('`'))
    .map((c) => `\`${say(c)}\``)
    .join(', ');
}

/** Records `before` above line `at` to `after` below it, within the result's `count` (a range past its end reads nothing more). */
function around(at: number, before: number, after: number, count: number): string {
  return `${Math.max(1, at - before)}:${Math.max(at, Math.min(count, at + after))}`;
}

/** The kind's commands with the real id in place of ID. */
function kindNext(k: KindFacts, id: string): Words[] {
  return (k.nextCommands ?? []).map((c) => withId(c, id));
}

/** Guidance for an output whose kind is known: what it is, its errors if it has any, the kind's next commands. */
function kindGuidance(h: Header, k: KindFacts, size: string, say: Say, t?: TextStats): string {
  const id = h.id;
  const f = k.facts ?? {};
  const map = f.map ? `: ${formatCount(Number(f.entries))} entries at ${String(f.map)}` : '';
  const what =
    h.content_type === 'json' && h.split === 'none'
      ? `1 JSON document (${k.kind}${map}, ${size})`
      : `${formatCounted(h.count, h.content_type === 'text' ? 'line' : 'record')} of ${k.kind} (${size})`;
  const n = k.errorCount ?? 0;
  const first = k.errorLines?.[0];
  let errors = '';
  if (k.kind === 'test-run') {
    const where = [f.failure_lines ? 'failure_lines gives the lines of each' : '', f.failure_chars ? `failure_chars the characters of each: lro read ${id} --chars A:B --raw` : ''].filter(Boolean);
    const named = n ? ` (kind_facts.failing names them${where.map((w) => `, ${w}`).join('')})` : '';
    errors = ` ${formatCount(Number(f.failed ?? n))} of ${formatCount(Number(f.tests))} tests failed${named}.`;
  } else if (k.errors === 'own') {
    const at = first ? ` (first: line ${first.line})` : '';
    errors = n ? ` ${formatCount(n)} ${n === 1 ? 'line is an error' : 'lines are errors'}${at}.` : ' No error.';
  }
  const lead: Words[] = [];
  if (k.errors === 'none') {
    // the kind's lines are data; a program's message of failure among them is not (dpkg -l, then apt's `E: …`)
    const stray = t?.diagnosticCount ?? 0;
    const at = t?.diagnostics?.[0]?.line;
    if (stray && at) {
      const last = t!.diagnostics!.at(-1)!.line;
      const what = stray === 1 ? 'line is' : 'lines are';
      const message = stray === 1 ? 'a failure message' : 'failure messages';
      errors = ` ${formatCount(stray)} ${what} not ${k.kind} data but ${message} (line ${at}${last > at ? ` to ${last}` : ''}).`;
      lead.push(['read', id, '--records', around(at, 3, 10, h.count)]);
    } else errors = ` No error lines: "error" in ${k.kind} output is data, not a failure.`;
  }
  const next = distinct([...lead, ...kindNext(k, id), ['read', id, '--head', '20']]);
  let rec = h.content_type === 'text' ? ' Record N is line N.' : '';
  // YAML read as records (query/view.ts): where, count and jq number those, read and grep the lines
  const yaml = k.kind === 'yaml' ? (k.facts.records as { of: string; count: number } | null | undefined) : undefined;
  if (yaml) {
    const records = yaml.of === 'items' ? `the List's ${formatCount(yaml.count)} items` : `its ${formatCounted(yaml.count, 'document')}`;
    rec = ` where, count and jq read ${records} as JSON records; for read and grep, record N is line N.`;
  }
  return `${what} stored as ${id}; nothing printed.${errors} Next: ${quoted(next.slice(0, 3), say)}.${rec}`;
}

/** The guidance's last sentence on JSON records: how where's conditions are written, and jq for the rest. */
export function whereHint(id: string): string {
  return `where takes FIELD=VALUE, 'FIELD>N', FIELD~REGEX (several: all must hold); lro jq ${id} 'FILTER' for the rest.`;
}

/** Short, concrete next steps with the real id (`firstRecipe`: the first jq recipe's command). */
function guidance(h: Header, stats: Stats, firstRecipe: Words | undefined, say: Say): string {
  const id = h.id;
  const size = `~${formatCount(h.estimated_tokens)} tokens`;
  if (stats.kind === 'binary') {
    const what = stats.format ? ` (${stats.format})` : '';
    return `${formatBytes(h.bytes)} of binary data${what} stored as ${id}; nothing printed. Restore: \`lro cat ${id} > file.bin\`. Identify: \`lro cat ${id} | file -\`.`;
  }
  if (stats.kind === 'text' && stats.text.kind) return kindGuidance(h, stats.text.kind, size, say, stats.text);
  if (stats.kind === 'text') {
    const t = stats.text;
    const first = t.errors[0];
    const errors = first
      ? ` ${t.errorCount === 1 ? '1 line looks like an error' : `${formatCount(t.errorCount)} lines look like errors`} (line ${first.line}${t.errorCount > 1 ? ` to ${t.errors.at(-1)!.line}` : ''}).`
      : ' No line looks like an error.';
    // grep for the words that made lines look like errors here, so it finds exactly those lines
    const words = t.errorWords.map(([w]) => w).join('|');
    const next: Words[] = first
      ? [['grep', id, words, '-i', '-C', '2'], ['read', id, '--records', around(first.line, 5, 20, h.count)]]
      : [['read', id, '--head', '50']];
    if (repeats(t)) next.push(['count', id, '--by', 'template']);
    next.push(['read', id, '--tail', '50']);
    return `${formatCounted(h.count, 'line')} (${size}) stored as ${id}; nothing printed.${errors} Next: ${quoted(next, say)}. Record N is line N.`;
  }
  const r = stats.records;
  const k = jsonKind(h, r);
  if (k.nextCommands) return kindGuidance(h, k as KindFacts, size, say);
  const what = [...r.schema.types].join('/') || 'JSON';
  const bad = h.invalid_records?.length ?? 0;
  const skipped = bad ? ` ${bad === 1 ? '1 line is' : `${bad} lines are`} not JSON (kept as strings; lro jq skips them, lro read shows them).` : '';
  // where and count answer the usual questions without jq: filter on the most telling field, count by it
  const top = r.topValues[0];
  const next: Words[] = [];
  if (top) {
    const field = /^\.[A-Za-z_][A-Za-z0-9_.]*$/.test(top.path) ? top.path.slice(1) : top.path;
    next.push(['where', id, `${field}=${valueText(interestingValue(top)[0])}`], ['count', id, '--by', field]);
  } else if (firstRecipe) next.push(firstRecipe);
  next.push(['read', id, '--head', '5']);
  return (
    `${h.count === 1 ? `1 record (one ${what}` : `${formatCount(h.count)} records (one ${what} each`}, ${size}) stored as ${id}; nothing printed.${skipped} ` +
    `Next: ${quoted(next, say)}. ${whereHint(id)}`
  );
}
