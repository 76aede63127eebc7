// The descriptor's log templates: the lines of the first TEMPLATE_SCAN_BYTES of a text input grouped by
// TemplateMiner (templates.ts), fed from TextAnalyzer as it sees the input. The cap keeps offload fast
// whatever the size (lro count ID --by template groups every line). Plain data, so it crosses from the worker
// thread that analyzes large inputs.
import { TemplateMiner, type Template } from './templates.js';

/**
 * Bytes of lines grouped at offload: grouping costs about 60 ms a MB, which `lro info` pays again on every call;
 * 512 KB holds a few thousand log lines, enough to see the kinds of line (the loghub logs are 170-290 KB).
 */
export const TEMPLATE_SCAN_BYTES = 512 << 10;
/** Templates kept for the descriptor. */
const KEEP = 12;
/** Bytes of a line grouped (as many as TextAnalyzer keeps of a line). */
const LINE_BYTES = 2048;
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
    let n = first;
    let start = 0;
    for (let nl = buf.indexOf(0x0a); nl >= 0 && this.bytes < TEMPLATE_SCAN_BYTES; nl = buf.indexOf(0x0a, start)) {
      this.line(buf.subarray(start, nl), n++);
      start = nl + 1;
    }
  }

  /**
   * One line, without its "\n" (a final \r stays: the miner splits words on whitespace). Only its first
   * LINE_BYTES count, and the cap is counted on those, so a line grouped is the same however the input was cut
   * (a long line that spans chunks reaches here only in part).
   */
  line(bytes: Uint8Array, n: number): void {
    if (this.bytes >= TEMPLATE_SCAN_BYTES) return;
    const keep = Math.min(bytes.length, LINE_BYTES);
    this.bytes += keep + 1;
    this.miner.add(Buffer.from(bytes.buffer, bytes.byteOffset, keep).toString('utf8'), n);
  }

  end(): TemplateStats {
    const r = this.miner.result();
    return { lines: this.miner.lines, count: r.templates.length + (r.otherLines > 0 ? 1 : 0), top: r.templates.slice(0, KEEP) };
  }
}
