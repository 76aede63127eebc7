// The statistics of a stored result, computed again from its file (for `lro info`): the same analyzers that
// watched the offload, fed the same bytes (rendered the same way when the text has terminal noise), give the
// same descriptor.
import { isNoisy } from '../format/header.js';
import { TerminalRenderer } from '../format/terminal.js';
import { originalContent, readRecords, type ResultFile } from '../format/reader.js';
import type { Stats } from './descriptor.js';
import { RecordAnalyzer } from './record-stats.js';
import { TextAnalyzer } from './text-stats.js';
import { maskSecrets, PREVIEW_MASK } from '../secrets/mask.js';

export function statsOfStored(rf: ResultFile): Stats {
  const h = rf.header;
  if (h.content_type === 'binary') return { kind: 'binary' };
  if (h.content_type === 'text') {
    const text = new TextAnalyzer(PREVIEW_MASK);
    const renderer = isNoisy(h) ? new TerminalRenderer((b) => text.push(b)) : null;
    for (const piece of originalContent(rf)) {
      const b = Buffer.from(piece.buffer, piece.byteOffset, piece.length); // large pieces, each its own
      if (renderer) renderer.push(b);
      else text.push(b);
    }
    renderer?.end();
    return { kind: 'text', text: text.end() };
  }
  const records = new RecordAnalyzer(maskSecrets);
  const invalid = new Set(h.invalid_records ?? []);
  for (const r of readRecords(rf)) if (!invalid.has(r.n)) records.observe(r.line, r.n);
  return { kind: 'records', records: records.end() };
}
