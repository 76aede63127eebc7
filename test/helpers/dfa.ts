// lro's regex engine (search/dfa-finder.ts) over text lines stored as lro stores them, as search/grep.ts uses it:
// the lines it selects, settled ones checked against the regex, the others decided by the regex.
import { expect } from 'vitest';
import type { DfaFinder } from '../../src/search/dfa-finder.js';

/** Text lines stored as lro stores them: each a JSON string on a line. */
export const stored = (lines: string[]) => Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join(''), 'utf8');

/** The numbers (1-based) of the lines the finder selects: settled ones, and the others the regex decides. */
export function dfaLines(finder: DfaFinder, lines: string[], re: RegExp): number[] {
  const data = stored(lines);
  const out: number[] = [];
  finder.reset();
  let n = 0;
  let at = 0;
  while (at < data.length) {
    const hit = finder.find(data, at, data.length);
    if (hit < 0) break;
    const ls = hit === 0 ? 0 : data.lastIndexOf(0x0a, hit - 1) + 1;
    const le = data.indexOf(0x0a, hit);
    for (let p = at; p < ls; p++) if (data[p] === 0x0a) n++;
    n++;
    const text = JSON.parse(data.toString('utf8', ls, le)) as string;
    re.lastIndex = 0;
    if (finder.settles(data, ls, le)) {
      expect(re.test(text), `settled line ${JSON.stringify(text)} for ${re}`).toBe(true);
      out.push(n);
    } else if (re.test(text)) out.push(n);
    at = le + 1;
  }
  return out;
}

