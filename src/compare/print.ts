// Printing `lro diff`: both results side by side and what differs, always first; then the items under their
// section's heading, whole items until the output budget is spent, and a next: line that continues at the
// first item left out (--from N). --json prints the summary object, then one object an item, then a
// {"type":"truncated"} object when cut. Record numbers are written A:N and B:N (lro read ID --records N:N).
import { largerBudget, truncatedObject, type Next, type OutputBudget } from '../budget.js';
import { formatBytes, formatCount } from '../units.js';
import { itemCount, type PlacedItem } from './diff.js';
import type { Comparison, DiffItem, DiffSide, DiffSummary, TestTally } from './model.js';

export interface DiffPrint {
  json: boolean;
  /** The first item to print (0-based: what a next: line's --from says). */
  from: number;
  budget: OutputBudget;
  write: (s: string) => Promise<void> | void;
  /** The command that prints from item `from` on (with --max-tokens `maxTokens` when given). */
  next: (from: number, maxTokens?: number) => Next;
}

/** Characters of a line or command shown. */
const MAX_TEXT = 300;
const MAX_COMMAND = 120;

/** Control characters written as escapes (a line stays one line), but for the tab, which logs are full of. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/g;

const cut = (s: string, max = MAX_TEXT) => {
  const t = s.replace(CONTROL, (c) => JSON.stringify(c).slice(1, -1));
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

function sideLine(name: string, s: DiffSide): string {
  const unit = s.content_type === 'text' ? 'line' : 'record';
  const cmd = s.command !== null ? `  $ ${cut(s.command, MAX_COMMAND)}` : '';
  const time = s.timestamp.replace(/\.\d+Z$/, 'Z');
  return `${name} ${s.id}  ${time}  ${s.content_type}  ${formatCount(s.records)} ${unit}${s.records === 1 ? '' : 's'}  ${formatBytes(s.bytes)}${cmd}\n`;
}

/** "1 newly failing, 2 still failing": the non-zero counts, named. */
function listed(pairs: [number, string][]): string {
  return pairs
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${formatCount(n)} ${what}`)
    .join(', ');
}

const tally = (x: TestTally) => `${formatCount(x.passed)} passed, ${formatCount(x.failed)} failed, ${formatCount(x.skipped)} skipped`;

/** The line after A and B: equal, or what differs, with how many of each, by kind. */
function verdictLine(s: DiffSummary): string {
  if (s.equal) return 'equal: the same content\n';
  const c = s.counts;
  const parts: string[] = [];
  const tests = listed([
    [c.tests_newly_failing, 'newly failing'],
    [c.tests_newly_passing, 'newly passing'],
    [c.tests_still_failing, 'still failing'],
  ]);
  if (s.tests) parts.push(`tests: ${tests || 'no failure changed'} (A: ${tally(s.tests.a)}; B: ${tally(s.tests.b)})`);
  if (s.tests_only) parts.push('the other lines are not compared: see --lines');
  const records = listed([
    [c.records_changed, 'changed'],
    [c.records_added, 'added'],
    [c.records_removed, 'removed'],
  ]);
  if (s.kind === 'records') {
    const by = s.key ? `matched by ${s.key}` : 'matched by their whole content: no id-like field, see --key';
    const what = s.rows ? 'rows' : 'records';
    parts.push(`${what}: ${records || 'none added, removed or changed'} (${by})`);
    const r = s.key_repeats;
    if (r) parts.push(`the key is not unique (${r.a} ${what} of A, ${r.b} of B repeat one): pick another with --key`);
  }
  const templates = listed([
    [c.templates_new, 'new in B'],
    [c.templates_gone, 'gone from A'],
    [c.templates_changed, 'with a changed count'],
  ]);
  if (templates) parts.push(`line templates: ${templates}`);
  if (c.error_lines_new) parts.push(`${formatCount(c.error_lines_new)} new error lines`);
  if (c.diff_lines) parts.push(`${formatCount(c.diff_lines)} lines of unified diff`);
  if (s.lines_note) parts.push(s.lines_note);
  if (s.kind === 'binary') parts.push('binary content, compared by size only');
  if (parts.length === 0) parts.push('no change of these kinds: see lro diff --lines');
  return `different: ${parts.join('; ')}\n`;
}

/** The text of an item (one line, or a changed record's line and its fields). */
function itemText(it: DiffItem): string {
  switch (it.type) {
    case 'test': {
      const at = [it.record_a ? `A:${it.record_a}` : '', it.record_b ? `B:${it.record_b}` : ''].filter(Boolean).join(' ');
      return `  ${cut(it.name)}  ${at}\n${it.message ? `      ${cut(it.message)}\n` : ''}`;
    }
    case 'record': {
      // several records alike: how many, then the first few keys (after their pattern, when added or removed)
      const who = it.keys
        ? `${formatCount(it.count)} × ${it.change !== 'changed' && it.pattern ? `${cut(it.pattern)}: ` : ''}${it.keys.map((k) => cut(k)).join(', ')}${
            it.more_keys ? `, … (+${formatCount(it.more_keys)})` : ''
          }`
        : cut(it.key);
      if (it.change === 'added') return `  + ${who}  B:${it.record_b}${it.row ? `  ${cut(it.row)}` : ''}\n`;
      if (it.change === 'removed') return `  - ${who}  A:${it.record_a}${it.row ? `  ${cut(it.row)}` : ''}\n`;
      // no field changed: the same values written differently (1 and 1.0, keys in another order)
      if (it.changes.length === 0) return `  ~ ${who}  A:${it.record_a} B:${it.record_b}  (the same values, written differently)\n`;
      return `  ~ ${who}  A:${it.record_a} B:${it.record_b}\n${it.changes
        .map((f) => `      ${cut(f.field, 120)}: ${f.old ?? '(absent)'} → ${f.new ?? '(absent)'}${f.varies ? ' (the first; each record its own values)' : ''}\n`)
        .join('')}${it.more_changes ? `      … ${it.more_changes} more fields changed\n` : ''}`;
    }
    case 'template': {
      if (it.change === 'new') return `  + ${it.count_b}×  B:${it.first_b}  ${cut(it.template)}\n`;
      if (it.change === 'gone') return `  - ${it.count_a}×  A:${it.first_a}  ${cut(it.template)}\n`;
      return `  ~ ${it.count_a} → ${it.count_b}  ${cut(it.template)}\n`;
    }
    case 'error_line':
      return `  B:${it.record_b}  ${cut(it.text)}\n`;
    case 'line':
      return `${cut(it.text, 1000)}\n`;
  }
}

function heading(c: Comparison, section: number, continued: boolean): string {
  const s = c.sections[section];
  // items that stand for several records each: both counts, and in what order
  const size =
    s.records !== undefined && s.records !== s.size
      ? `${formatCount(s.records)} in ${formatCount(s.size)} group${s.size === 1 ? '' : 's'}, the smallest first`
      : formatCount(s.size);
  return `${s.heading} (${size}${continued ? ', continued' : ''}):\n`;
}

/**
 * Prints a comparison within the budget: its summary, then the items handed, which are the comparison's from
 * `p.from` on, in order (compare/diff.ts `itemsFrom`, read as they are taken). Returns whether all were printed.
 */
export async function printDiff(c: Comparison, items: Iterable<PlacedItem>, p: DiffPrint): Promise<boolean> {
  const head = p.json ? `${JSON.stringify(c.summary)}\n` : sideLine('A', c.summary.a) + sideLine('B', c.summary.b) + verdictLine(c.summary);
  p.budget.take(head); // always printed, whatever the budget: it is the answer when nothing else fits
  await p.write(head);
  const total = itemCount(c);
  let section = -1;
  let at = p.from;
  for (const { section: k, item } of items) {
    let text = p.json ? `${JSON.stringify(item)}\n` : itemText(item);
    if (!p.json && k !== section) text = heading(c, k, at > 0 && at === p.from && startOf(c, k) < at) + text;
    if (!p.budget.take(text)) {
      await p.write(cutLine(c, p, at, total));
      return false;
    }
    section = k;
    await p.write(text);
    at++;
  }
  return true;
}

/** The global index of a section's first item. */
function startOf(c: Comparison, k: number): number {
  let n = 0;
  for (let i = 0; i < k; i++) n += c.sections[i].size;
  return n;
}

function cutLine(c: Comparison, p: DiffPrint, at: number, total: number): string {
  const stuck = at === p.from;
  const max = p.budget.max;
  const what = stuck
    ? `the next item does not fit in --max-tokens ${max}`
    : `output cut at --max-tokens ${max} after item ${formatCount(at)} of ${formatCount(total)}`;
  const next = p.next(at, stuck ? largerBudget(max) : undefined);
  return p.json ? truncatedObject(what, next) : p.budget.continuation(what, next);
}
