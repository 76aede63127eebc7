// Kinds of text that are one document rather than lines of output: an SQL dump (tables and the rows inserted
// into each), HTML, minified code. None has error lines: "error" in a CSS class or a string literal is not one.
import type { KindFacts, TextSample } from './types.js';
import { bump, numbered, scope, topCounts } from './util.js';

const CREATE = /^CREATE TABLE (?:IF NOT EXISTS )?[`"[]?([\w.]+)/i;
const INSERT = /^INSERT INTO [`"[]?([\w.]+)[`"\]]?/i;
/** A line of a dump: a comment, a statement, a continued row or a closing parenthesis, a COPY block's end. */
const SQL_LINE = /^(--|\/\*|CREATE|INSERT|DROP|ALTER|LOCK|UNLOCK|SET|BEGIN|COMMIT|PRAGMA|COPY|\)|  |\\\.)/i;

export function detectSqlDump(s: TextSample): KindFacts | null {
  const lines = numbered(s.lines);
  const tables = new Map<string, number>();
  const created: string[] = [];
  let statements = 0;
  for (const { text } of lines) {
    const c = CREATE.exec(text);
    if (c) created.push(c[1]);
    const m = INSERT.exec(text);
    if (m) bump(tables, m[1], (text.match(/\),\s*\(/g)?.length ?? 0) + 1);
    if (/^(CREATE|INSERT|DROP|ALTER|LOCK|UNLOCK|SET|BEGIN|COMMIT|PRAGMA|COPY|SELECT)\b/i.test(text)) statements++;
  }
  const sqlish = lines.filter(({ text }) => SQL_LINE.test(text) || /;$/.test(text));
  if (created.length + tables.size === 0 || sqlish.length < lines.length * 0.9 || statements < 3) return null;
  return {
    kind: 'sql-dump',
    facts: {
      statements,
      tables_created: created.slice(0, 20),
      rows_inserted: topCounts(tables, 12),
      ...(s.complete ? {} : { from_first_lines: s.lines.length }),
    },
    errors: 'none',
    levels: false,
    next: ["lro grep ID '^CREATE TABLE' -A 10", `lro grep ID '^INSERT INTO' -c`],
  };
}

export function detectHtml(s: TextSample): KindFacts | null {
  const first = s.lines.find((l) => l.trim() !== '')?.trim() ?? '';
  if (!/^(<!doctype html|<html[\s>])/i.test(first)) return null;
  const text = s.lines.join('\n');
  const title = /<title[^>]*>([^<]{0,120})/i.exec(text)?.[1]?.trim();
  const tags = new Map<string, number>();
  for (const m of text.matchAll(/<([a-z][a-z0-9]*)\b/gi)) bump(tags, m[1].toLowerCase());
  return {
    kind: 'html',
    facts: { ...(title ? { title } : {}), tags: topCounts(tags, 10), ...scope(s.complete, s.lines.length) },
    errors: 'none',
    levels: false,
    next: ["lro grep ID '<h[1-3]' -m 20", "lro grep ID 'href=' -c"],
  };
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
    next: ["lro grep ID 'sourceMappingURL'", 'lro read ID --head 1'],
  };
}
