// Kinds of text that are one document rather than lines of output: an SQL dump (tables and the rows inserted into
// each, by INSERT or by pg_dump's COPY blocks, over the whole dump), HTML, minified code. None has error lines:
// "error" in a CSS class or a string literal is not one.
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { estimateNote, numbered, TopCounts } from './util.js';

const CREATE = /^CREATE TABLE (?:IF NOT EXISTS )?[`"[]?([\w.]+)/i;
const COPY = /^COPY ([\w."]+)(?: \([^)]*\))? FROM stdin;$/i;
const INSERT = /^INSERT INTO [`"[]?([\w.]+)[`"\]]?/i;
/** A line of a dump: a comment, a statement, a continued row or a closing parenthesis, a COPY block's end. */
const SQL_LINE = /^(--|\/\*|CREATE|INSERT|DROP|ALTER|LOCK|UNLOCK|SET|BEGIN|COMMIT|PRAGMA|COPY|\)|  |\\\.)/i;

class SqlDumpCounter implements KindCounter {
  private readonly tables = new TopCounts();
  private readonly created: string[] = [];
  private createdCount = 0;
  statements = 0;
  sqlish = 0;
  lines = 0;
  /** COPY … FROM stdin: the table whose rows come next, up to the "\." line. */
  private copying: string | null = null;

  line(text: string): void {
    if (text.trim() === '') return;
    this.lines++;
    if (this.copying !== null) {
      this.sqlish++;
      if (text === '\\.') this.copying = null;
      else this.tables.add(this.copying);
      return;
    }
    if (SQL_LINE.test(text) || text.endsWith(';')) this.sqlish++;
    const c = CREATE.exec(text);
    if (c) {
      this.createdCount++;
      if (this.created.length < 20) this.created.push(c[1]);
    }
    const m = INSERT.exec(text);
    if (m) this.tables.add(m[1], (text.match(/\),\s*\(/g)?.length ?? 0) + 1);
    const copy = COPY.exec(text);
    if (copy) this.copying = copy[1];
    if (/^(CREATE|INSERT|DROP|ALTER|LOCK|UNLOCK|SET|BEGIN|COMMIT|PRAGMA|COPY|SELECT)\b/i.test(text)) this.statements++;
  }

  sure(): boolean {
    return this.createdCount + this.tables.size > 0 && this.sqlish >= this.lines * 0.9 && this.statements >= 3;
  }

  end(): KindFacts {
    return {
      kind: 'sql-dump',
      facts: {
        statements: this.statements,
        tables_created: this.createdCount > this.created.length ? [...this.created, `… ${this.createdCount - this.created.length} more`] : this.created,
        rows_inserted: this.tables.top(12),
        ...estimateNote('rows_inserted', this.tables),
      },
      errors: 'none',
      levels: false,
      nextCommands: [['grep', 'ID', '^CREATE TABLE', '-A', '10'], ['grep', 'ID', '^INSERT INTO', '-c']],
    };
  }
}

export function countSqlDump(s: TextSample): KindCounter | null {
  const c = fed(new SqlDumpCounter(), s);
  return c.sure() ? c : null;
}

class HtmlCounter implements KindCounter {
  private title: string | undefined;
  private readonly tags = new TopCounts();
  /** The text of the <title> element when it spans lines. */
  private head = '';

  line(text: string): void {
    if (this.title === undefined && this.head.length < 4096) {
      this.head += `${text}\n`;
      const t = /<title[^>]*>([^<]{0,120})/i.exec(this.head);
      if (t) this.title = t[1].trim();
    }
    for (const m of text.matchAll(/<([a-z][a-z0-9]*)\b/gi)) this.tags.add(m[1].toLowerCase());
  }

  end(): KindFacts {
    return {
      kind: 'html',
      facts: { ...(this.title ? { title: this.title } : {}), tags: this.tags.top(10), ...estimateNote('tags', this.tags) },
      errors: 'none',
      levels: false,
      // (a command that finds nothing is not offered: no headings, no links)
      nextCommands: [
        ...(['h1', 'h2', 'h3'].some((h) => this.tags.has(h)) ? [['grep', 'ID', '<h[1-3]', '-m', '20']] : []),
        ...(this.tags.has('a') ? [['grep', 'ID', 'href=', '-c']] : []),
        ['read', 'ID', '--chars', '0:4000', '--raw'],
      ],
    };
  }
}

export function countHtml(s: TextSample): KindCounter | null {
  const first = s.lines.find((l) => l.trim() !== '')?.trim() ?? '';
  if (!/^(<!doctype html|<html[\s>])/i.test(first)) return null;
  return fed(new HtmlCounter(), s);
}

export function detectMinified(s: TextSample): KindFacts | null {
  const lines = numbered(s.lines);
  const chars = lines.reduce((a, l) => a + l.text.length, 0);
  if (lines.length === 0 || chars / lines.length < 200) return null;
  // long lines of code, not of data: a JSON document on one line is not minified code
  const code = lines.filter((l) => l.text.length >= 200 && !/^\s*(\[|\{")/.test(l.text)).map((l) => l.text).join('');
  if (code.length < chars * 0.8) return null;
  const spaces = (code.match(/\s/g)?.length ?? 0) / code.length;
  const symbols = (code.match(/[{}();=,:]/g)?.length ?? 0) / code.length;
  const js = (code.match(/\bfunction\b|=>|\breturn\b|\bvar |\bconst |\blet /g)?.length ?? 0) >= 3;
  // (each declaration starts after { or ; and is bounded: an unanchored [\w-]+: is quadratic on a long word)
  const css = !js && (code.match(/[{;][\w-]{1,40}:[^;{}]{1,200};/g)?.length ?? 0) >= 10;
  if (spaces > 0.08 || symbols < 0.06 || (!js && !css)) return null;
  return {
    kind: 'minified',
    facts: { language: js ? 'javascript' : 'css', lines: s.total },
    errors: 'none',
    levels: false,
    // (its source map's name only when its lines hold one: a grep that finds nothing is no next step)
    nextCommands: [...(s.lines.some((l) => l.includes('sourceMappingURL')) ? [['grep', 'ID', 'sourceMappingURL']] : []), ['read', 'ID', '--head', '1']],
  };
}
