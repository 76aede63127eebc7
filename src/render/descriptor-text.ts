// The descriptor as prose (`--descriptor text`), for people and for agents that prefer reading to parsing.
import { lineOf, templatesWords, type Descriptor } from '../describe/descriptor.js';
import type { Source } from '../format/header.js';
import { formatBytes, formatCount } from '../units.js';

export function renderDescriptorText(d: Descriptor): string {
  const s = d.summary;
  const out: string[] = [];
  const unit = s.content_type === 'text' ? 'lines' : s.content_type === 'binary' ? 'base64 records' : 'records';
  // a tool's result says first which tool produced it
  const what = s.source?.tool !== undefined ? `Result of ${s.source.tool}` : 'Output';
  out.push(
    `${what} offloaded: ${formatCount(s.count)} ${unit} of ${s.content_type} (~${formatCount(s.estimated_tokens)} tokens, ${formatBytes(s.bytes)}).`,
  );
  out.push(`kind: ${s.kind}`);
  if (s.kind_facts) out.push(...factLines(s.kind_facts));
  out.push(`id: ${d.id}`);
  out.push(`file: ${d.file_path} (expires ${d.expires_at})`);
  if (s.source) out.push(`source: ${sourceLine(s.source)}`);
  if (s.records_from) out.push(`records: ${s.records_from}`);
  if (s.levels) {
    const over = s.levels_counted_over ? ` (counted over ${s.levels_counted_over})` : '';
    out.push(`levels: ${Object.entries(s.levels).map(([k, v]) => `${k} ${v}`).join(', ')}${over}`);
  }
  if (s.templates) {
    const t = s.templates;
    out.push(`templates: ${formatCount(t.count)} kinds of line in ${t.lines === s.count ? 'all' : 'the first'} ${formatCount(t.lines)} lines (${lineOf(d, templatesWords(d.id))}):`);
    for (const x of t.top) out.push(`  ${formatCount(x.count)}× ${x.template} (line ${x.line})`);
  }
  if (s.sample) out.push(`sampled: ${s.sample}`);
  if (s.top_values) {
    for (const [path, values] of Object.entries(s.top_values)) {
      out.push(`${path}: ${Object.entries(values).map(([k, v]) => `${k} ${v}`).join(', ')}${s.sampled ? ' (sampled)' : ''}`);
    }
  }
  for (const [path, t] of Object.entries(s.times ?? {})) out.push(`${path}: ${t.first} … ${t.last}`);
  for (const [path, n] of Object.entries(s.numbers ?? {})) out.push(`${path}: ${n.min} to ${n.max}, median ${n.median_of ? `≈ ${n.median} (of a sample of ${formatCount(n.median_of)})` : n.median}`);
  for (const [path, n] of Object.entries(s.distinct ?? {})) out.push(`${path}: ${typeof n === 'number' ? formatCount(n) : n} distinct values`);
  if (s.invalid_records?.length) out.push(`not JSON (kept as strings): records ${s.invalid_records.join(', ')}`);
  if (s.noise_bytes) out.push(`terminal noise: ${formatBytes(s.noise_bytes)} of escapes and redraws, left out of counts, read and grep (lro cat has the exact bytes)`);
  if (s.redacted) out.push(`redacted: ${Object.entries(s.redacted).map(([k, v]) => `${k} ${v}`).join(', ')} (lro cat gives the redacted text)`);
  if (s.possible_secrets) out.push(`possible secrets: ${formatCount(s.possible_secrets)} (${s.possible_secret_rules!.join(', ')})`);
  if (d.fields.length) out.push(`fields: ${d.fields.join(', ')}`);
  if (d.preview.errors?.length) {
    out.push('', `Lines that look like errors (${formatCount(s.error_lines ?? 0)} in all):`);
    for (const l of d.preview.errors) out.push(`  ${l}`);
  }
  const line = (p: unknown) =>
    typeof p === 'string' ? p : `${(p as { record: number }).record}: ${JSON.stringify((p as { value: unknown }).value)}`;
  if (d.preview.head.length) {
    out.push('', 'First:');
    for (const p of d.preview.head) out.push(`  ${line(p)}`);
  }
  if (d.preview.tail.length) {
    out.push('', 'Last:');
    for (const p of d.preview.tail) out.push(`  ${line(p)}`);
  }
  if (d.jq_recipes.length) {
    out.push('', 'jq recipes:');
    for (const r of d.jq_recipes) out.push(`  # ${r.description}`, `  ${r.command}`);
  }
  out.push('', d.guidance, '');
  return out.join('\n');
}

/** A kind's facts, one line each: a list of objects (a table's columns, a diff's files) one line per item. */
function factLines(facts: Record<string, unknown>): string[] {
  const out: string[] = [];
  const flat = (v: unknown): string =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.entries(v)
          .map(([k, x]) => `${k} ${flat(x)}`)
          .join(', ')
      : Array.isArray(v)
        ? v.map(flat).join('; ')
        : String(v);
  for (const [k, v] of Object.entries(facts)) {
    if (Array.isArray(v) && v.some((x) => x !== null && typeof x === 'object')) {
      out.push(`  ${k}:`);
      for (const x of v) out.push(`    ${flat(x)}`);
    } else out.push(`  ${k}: ${flat(v)}`);
  }
  return out;
}

/** How the source reads on its line: the command and how it ended, or the tool call and whether it failed. */
function sourceLine(src: Source): string {
  const call = src.command.replace(/\s*\n\s*/g, ' ');
  if (src.tool !== undefined) return `MCP tool call ${call}${src.is_error ? ' (returned an error)' : ''}`;
  const cut = src.incomplete ? `; INCOMPLETE: ${src.incomplete}` : '';
  return `${call} (${src.signal ? `killed by ${src.signal}` : `exit code ${src.exit_code}`}${cut})`;
}
