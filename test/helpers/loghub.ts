// Ground truth for log templates: loghub's published templates (fixtures/loghub-templates) matched against
// the lines of the corpus logs, and the grouping accuracy of the loghub benchmark (a line counts as right when
// its group holds exactly the lines of its true template).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const DIR = resolve(__dirname, '../../fixtures/loghub-templates');

/** Parses a loghub templates CSV: [EventId, EventTemplate] rows. */
export function loghubTemplates(system: string): [string, string][] {
  const text = readFileSync(resolve(DIR, `${system}_2k.log_templates.csv`), 'utf8').replace(/\r\n/g, '\n');
  const rows: [string, string][] = [];
  for (const line of text.split('\n').slice(1)) {
    if (!line) continue;
    const comma = line.indexOf(',');
    let t = line.slice(comma + 1);
    if (t.startsWith('"')) t = t.slice(1, -1).replace(/""/g, '"');
    rows.push([line.slice(0, comma), t]);
  }
  return rows;
}

/**
 * The true template of each line: the published template that matches the end of the line (after the log's
 * own header), the most specific one when several do; null when none does.
 */
export function trueEvents(system: string, lines: string[]): (string | null)[] {
  const rules = loghubTemplates(system).map(([id, t]) => {
    const body = t
      .split('<*>')
      .map((part) => part.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))
      .join('.*?');
    return { id, re: new RegExp(`(?:^|[\\s:\\]|])${body}\\s*$`), literal: t.replace(/<\*>/g, '').length };
  });
  return lines.map((line) => {
    let best: { id: string; literal: number } | null = null;
    for (const r of rules) if (r.re.test(line) && (!best || r.literal > best.literal)) best = r;
    return best?.id ?? null;
  });
}

/** Grouping accuracy: the share of lines whose predicted group is exactly the set of lines of their true group. */
export function groupingAccuracy(predicted: (string | number)[], truth: (string | null)[]): number {
  const byPred = new Map<string | number, number[]>();
  const byTrue = new Map<string | null, number[]>();
  predicted.forEach((p, i) => (byPred.get(p) ?? byPred.set(p, []).get(p)!).push(i));
  truth.forEach((t, i) => (byTrue.get(t) ?? byTrue.set(t, []).get(t)!).push(i));
  let right = 0;
  for (const members of byPred.values()) {
    const t = truth[members[0]];
    const trueMembers = byTrue.get(t)!;
    if (t !== null && trueMembers.length === members.length && members.every((i) => truth[i] === t)) right += members.length;
  }
  return right / predicted.length;
}
