// A fuzzer of grep's record-by-record way (search/grep.ts grepRecords) and the ways it hands over to, against grep
// written out plainly here: random records (some longer than the scan kernel's memory), patterns of every finder
// (literals for the kernel, lro's DFA, a regex over many records, a backreference for JavaScript alone), and
// random context, ranges, -m, -v, -c and --stream. The events (matches, context, gaps) and counts must be the
// oracle's. Found: the DFA's finder took a record of the next chunk, read without a find as after-context, for a
// match by where its last match had been.
import { describe, expect, it } from 'vitest';
import { closeSync, openSync } from 'node:fs';
import { offload } from '../../src/offload.js';
import { openResultFile } from '../../src/format/reader.js';
import { grepResult, type GrepQuery } from '../../src/search/grep.js';
import { compilePattern } from '../../src/search/pattern.js';
import { ByteScanner } from '../../src/kernel/scan.js';
import { storeForFile } from '../helpers/cli.js';
import { seeded } from '../helpers/seeded.js';

const files = storeForFile();

let draw = seeded(0); // (each round draws from a seed of its own)
const rand = (n: number) => draw.below(n);
const WORDS = ['ERROR', 'error', 'qabu', 'quux', 'abab', 'x', 'yy', '9', ':', ' ', ' ', '"', '\\', '\t', 'é', 'a', 'b', 'c'];

function record(): string {
  const r = rand(200);
  const words = r < 100 ? rand(12) : r < 199 ? 20 + rand(200) : 50_000 + rand(30_000); // a few longer than 65,280 bytes
  return Array.from({ length: words }, () => WORDS[rand(WORDS.length)]).join('');
}

const PATTERNS = [
  'ERROR', // a literal: the kernel
  'err(or)?', // a literal and the DFA
  'q[a-z]{2}[ux]', // no literal: the DFA
  '[0-9][ab][:"]', // no literal, and rare: a record lying where the DFA's last match was most often does not match
  '^[^:]*$',
  '[0-9]:|:[0-9]',
  '(ab)\\1', // a backreference: JavaScript alone
  'x(?=yy)', // a lookahead
  '.',
  '^$',
];

type Event = (string | number)[];

/** grep as lro means it, one record after another (the oracle). */
function oracle(lines: string[], q: GrepQuery): Event[] {
  const re = q.matcher.regex;
  const out: Event[] = [];
  const last = Math.min(q.range.to, lines.length);
  let selected = 0;
  let afterLeft = 0;
  let lastPrinted = 0;
  let recent: number[] = [];
  const ev = (kind: string, n: number): Event => [kind, n, lines[n - 1].length, lines[n - 1].slice(0, 16)];
  for (let n = q.range.from; n <= last; n++) {
    re.lastIndex = 0;
    const hit = (!q.only || q.only(n)) && re.test(lines[n - 1]) !== q.invert;
    if (q.countOnly) {
      if (hit && ++selected >= q.maxCount) break;
      continue;
    }
    if (hit) {
      selected++;
      const first = recent.length ? recent[0] : n;
      if ((q.before > 0 || q.after > 0) && lastPrinted > 0 && first > lastPrinted + 1) out.push(['gap']);
      for (const r of recent) out.push(ev('context', r));
      recent = [];
      out.push(ev('match', n));
      lastPrinted = n;
      afterLeft = q.after;
      if (selected >= q.maxCount && afterLeft === 0) break;
    } else if (afterLeft > 0) {
      out.push(ev('context', n));
      lastPrinted = n;
      afterLeft--;
      if (selected >= q.maxCount && afterLeft === 0) break;
    } else if (q.before > 0) {
      recent.push(n);
      if (recent.length > q.before) recent.shift();
    }
  }
  return q.countOnly ? [['counted', selected]] : out;
}

/**
 * lro's search of the stored result, with a kernel of `capacity` bytes; `plain`: plain `N:text` lines may come as
 * printed bytes (the kernel's literal scan prints them itself).
 */
function search(path: string, q: GrepQuery, capacity: number, plain = false): Event[] {
  const fd = openSync(path, 'r');
  const out: Event[] = [];
  try {
    for (const e of grepResult(openResultFile(path), q, fd, { scanner: new ByteScanner(capacity), plain })) {
      if (e.kind === 'match' || e.kind === 'context') out.push([e.kind, e.n, e.text.length, e.text.slice(0, 16)]);
      else if (e.kind === 'gap') out.push(['gap']);
      else if (e.kind === 'counted') out.push(['counted', e.matches]);
      else if (e.kind === 'printed') {
        for (const l of e.bytes.toString('utf8').split('\n').slice(0, -1)) {
          const text = l.slice(l.indexOf(':') + 1);
          out.push(['match', Number(l.slice(0, l.indexOf(':'))), text.length, text.slice(0, 16)]);
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

describe('grep with context, ranges, -m, -v, -c and --stream, against grep written out plainly', () => {
  for (let round = 0; round < 6; round++) {
    it(`round ${round}: ${PATTERNS.length} patterns × 14 queries`, async () => {
      draw = seeded(9100 + round);
      const lines = Array.from({ length: 1500 + rand(1500) }, record); // (several chunks of the least kernel)
      const r = await offload([Buffer.from(`${lines.join('\n')}\n`)], { dir: files.env.LRO_DIR, force: true, format: 'text', dedupe: false });
      if (!r.offloaded) throw new Error('not offloaded');
      for (const p of PATTERNS) {
        for (let k = 0; k < 14; k++) {
          // (the first two: after-context across whole chunks, which random queries rarely give)
          const fixed = k < 2 ? { invert: false, before: k, after: 3000, countOnly: false, only: undefined } : null;
          const ignoreCase = rand(4) === 0;
          const from = rand(3) === 0 ? 1 + rand(lines.length) : 1;
          const to = rand(3) === 0 ? from + rand(lines.length) : Infinity;
          const mod = 2 + rand(3);
          const q: GrepQuery = {
            matcher: compilePattern(p, { fixed: false, ignoreCase, word: false }),
            invert: rand(5) === 0,
            range: { from, to },
            before: rand(3) === 0 ? rand(4) : 0,
            after: rand(3) === 0 ? [1, 3, 50, 3000][rand(4)] : 0, // (3000: across a whole chunk)
            maxCount: rand(4) === 0 ? 1 + rand(5) : Infinity,
            countOnly: rand(4) === 0,
            word: false,
            ...(rand(6) === 0 ? { only: (n: number) => n % mod !== 0 } : {}),
            ...fixed,
          };
          const want = oracle(lines, q);
          const label = `seed ${9100 + round} /${p}/${ignoreCase ? 'i' : ''} ${JSON.stringify({ ...q, matcher: undefined, only: !!q.only })}`;
          expect(search(r.path, q, 64), label).toEqual(want);
          expect(search(r.path, q, 1 << 20), `${label} (1 MB kernel)`).toEqual(want);
          expect(search(r.path, q, 64, true), `${label} (plain)`).toEqual(want);
        }
      }
    });
  }
});
