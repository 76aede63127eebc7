// The descriptor as prose (`--descriptor text`), for people and for agents that prefer reading to parsing.
import type { Descriptor } from '../describe/descriptor.js';
import { formatBytes, formatCount } from '../units.js';

export function renderDescriptorText(d: Descriptor): string {
  const s = d.summary;
  const out: string[] = [];
  const unit = s.content_type === 'text' ? 'lines' : s.content_type === 'binary' ? 'base64 records' : 'records';
  out.push(
    `Output offloaded: ${formatCount(s.count)} ${unit} of ${s.content_type} (~${formatCount(s.estimated_tokens)} tokens, ${formatBytes(s.bytes)}).`,
  );
  out.push(`id: ${d.id}`);
  out.push(`file: ${d.file_path} (expires ${d.expires_at})`);
  if (s.source) out.push(`source: ${s.source.command.replace(/\s*\n\s*/g, ' ')} (${s.source.signal ? `killed by ${s.source.signal}` : `exit code ${s.source.exit_code}`})`);
  if (s.records_from) out.push(`records: ${s.records_from}`);
  if (s.levels) out.push(`levels: ${Object.entries(s.levels).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  if (s.top_values) {
    for (const [path, values] of Object.entries(s.top_values)) {
      out.push(`${path}: ${Object.entries(values).map(([k, v]) => `${k} ${v}`).join(', ')}${s.sampled ? ' (sampled)' : ''}`);
    }
  }
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
