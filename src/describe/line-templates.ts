// The descriptor's log templates: the lines of the first TEMPLATE_SCAN_BYTES of a text input grouped by
// TemplateMiner (src/query/templates.ts), fed from TextAnalyzer as it sees the input. The cap keeps offload fast
// whatever the size (lro count ID --by template groups every line). Plain data, so it crosses from the worker
// thread that analyzes large inputs.
import { TemplateMiner, type Template } from '../query/templates.js';

/** Bytes of lines grouped at offload. */
export const TEMPLATE_SCAN_BYTES = 2 << 20;
/** Templates kept for the descriptor. */
const KEEP = 12;
/** Groups made at most while scanning (memory bound; lines past it are not grouped). */
const MAX_GROUPS = 2000;

/** What the descriptor gets: plain data (it crosses threads). */
export interface TemplateStats {
  /** Lines grouped (the first ones of the input). */
  lines: number;
  /** How many templates those lines have. */
  count: number;
  /** The most frequent, with their counts and first line. */
  top: Template[];
}

/** Feeds the first TEMPLATE_SCAN_BYTES of lines to a miner. */
export class LineTemplates {
  private readonly miner = new TemplateMiner({ maxGroups: MAX_GROUPS });
  private bytes = 0;

  /** Whole lines, each ending with "\n", the first of them numbered `first`. */
  region(buf: Buffer, first: number): void {
    if (this.bytes >= TEMPLATE_SCAN_BYTES) return;
    this.bytes += buf.length;
    const text = buf.toString('utf8');
    let n = first;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      this.line(text.slice(start, nl), n++);
      start = nl + 1;
    }
  }

  /** One line (its text may end with \r: the miner splits words on whitespace). */
  line(text: string | Uint8Array, n: number): void {
    if (typeof text !== 'string') {
      if (this.bytes >= TEMPLATE_SCAN_BYTES) return;
      this.bytes += text.length;
      text = Buffer.from(text.buffer, text.byteOffset, text.length).toString('utf8');
    }
    this.miner.add(text, n);
  }

  end(): TemplateStats {
    const r = this.miner.result();
    return { lines: this.miner.lines, count: r.templates.length + (r.otherLines > 0 ? 1 : 0), top: r.templates.slice(0, KEEP) };
  }
}
