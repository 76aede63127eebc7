// Records longer than the memory they are searched in (search/grep-dfa.ts, grep-lines.ts): without a literal,
// the DFA walks windows of the scan kernel's memory (at least 65,280 bytes) with its state carried from one to the
// next; with one, the scan kernel does not gather a record longer than its memory, the DFA decides it from the
// file. Random text (escapes, quote, backslash, tab, non-ASCII), and records of 70 to 300 KB with matches, near
// misses and escapes at every offset a window may end at: the records selected are those the JavaScript regex
// selects, printed and counted, with -i, -m, -w and -v -c. And a damaged file (an extra record, one missing, a
// last line without its newline, a record whose quotes are broken) fails as the record-by-record way fails it.
import { describe, expect, it } from 'vitest';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { offload } from '../../src/offload.js';
import { openResultFile } from '../../src/format/reader.js';
import { grepResult, type GrepEvent, type GrepQuery } from '../../src/search/grep.js';
import { compilePattern } from '../../src/search/pattern.js';
import { dfaFor } from '../../src/search/dfa-finder.js';
import { ByteScanner } from '../../src/kernel/scan.js';
import { lastTried } from '../../src/search/slow-pattern.js';
import { storeForFile } from '../helpers/cli.js';
import { seeded } from '../helpers/seeded.js';

const files = storeForFile();

let draw = seeded(0); // (each round draws from a seed of its own)
const rand = (n: number) => draw.below(n);
const pick = <T>(xs: T[]): T => draw.pick(xs);
const CHARS = ['a', 'b', 'c', 'q', 'u', 'x', 'A', 'Q', '0', '9', ' ', ' ', '-', ':', '\u00e9', '"', '\\', '\t', '\u{1f600}'];

/** A line: mostly short, some a few windows long, a few many (a run of one letter among them). */
function line(): string {
  const r = rand(20);
  const length = r < 14 ? rand(30) : r < 18 ? 60 + rand(300) : 1000 + rand(4000);
  if (r === 19) return `${'a'.repeat(length)}${pick(['b', 'c', '9', ''])}`;
  return Array.from({ length }, () => pick(CHARS)).join('');
}

/** Patterns the DFA takes, without a literal the kernel would look for (so grep.ts walks with the DFA). */
const PATTERNS = ['q[a-z]{2}u', '[a-c]+9', '.*a.*b.*c', '[^b]+c$', '^[0-9:]', 'a{10,}b', '[a-z]{5}\\d', 'x|9', '\\s\\S\\s', '^$', '[\u00e9\u{1f600}]', '.', 'a*', '[^a]{3}$'];

async function stored(lines: string[]): Promise<string> {
  const r = await offload([Buffer.from(`${lines.join('\n')}\n`)], { dir: files.env.LRO_DIR, force: true, format: 'text', dedupe: false });
  if (!r.offloaded) throw new Error('not offloaded');
  return r.path;
}

function query(p: string, o: { ignoreCase?: boolean; word?: boolean; invert?: boolean; countOnly?: boolean; maxCount?: number; only?: boolean } = {}): GrepQuery {
  const matcher = compilePattern(p, { fixed: false, ignoreCase: o.ignoreCase ?? false, word: o.word ?? false });
  return {
    matcher,
    invert: o.invert ?? false,
    range: { from: 1, to: Infinity },
    before: 0,
    after: 0,
    maxCount: o.maxCount ?? Infinity,
    countOnly: o.countOnly ?? false,
    word: o.word ?? false,
    // (any `only` sends the search the record-by-record way: the reference for a damaged file)
    ...(o.only ? { only: () => true } : {}),
  };
}

/** What a search selected, as [number, text] pairs (the lines it printed as bytes too), its count, or its error. */
interface Found {
  lines: [number, string][];
  counted?: number;
  error?: string;
}

/** The search, with a scan kernel of the least memory (65,280 bytes: a longer record is not gathered into it). */
function search(path: string, q: GrepQuery): Found {
  const fd = openSync(path, 'r');
  const found: Found = { lines: [] };
  const take = (e: GrepEvent) => {
    if (e.kind === 'match') found.lines.push([e.n, e.text]);
    else if (e.kind === 'counted') found.counted = e.matches;
    else if (e.kind === 'printed') {
      for (const l of e.bytes.toString('utf8').split('\n').slice(0, -1)) found.lines.push([Number(l.slice(0, l.indexOf(':'))), l.slice(l.indexOf(':') + 1)]);
    } else if (e.kind !== 'progress') throw new Error(`unexpected ${e.kind}`);
  };
  try {
    for (const e of grepResult(openResultFile(path), q, fd, { plain: true, scanner: new ByteScanner(64) })) take(e);
  } catch (e) {
    found.error = (e as Error).message;
  } finally {
    closeSync(fd);
  }
  return found;
}

/** The lines of `lines` the JavaScript regex of q selects, as [number, text] pairs. */
function expected(lines: string[], q: GrepQuery): [number, string][] {
  const re = q.matcher.regex;
  return lines.flatMap((l, i): [number, string][] => ((re.lastIndex = 0), re.test(l) ? [[i + 1, l]] : []));
}

describe('grep by the DFA, against the JavaScript regex', () => {
  for (let round = 0; round < 4; round++) {
    it(`round ${round}: records up to 5,000 characters, ${PATTERNS.length} patterns, with and without -i`, async () => {
      draw = seeded(7000 + round);
      const lines = Array.from({ length: 300 }, line);
      const path = await stored(lines);
      let some = 0;
      for (const p of PATTERNS) {
        for (const ignoreCase of [false, true]) {
          const q = query(p, { ignoreCase });
          expect('dfa' in dfaFor(q.matcher), p).toBe(true);
          const want = expected(lines, q);
          if (want.length > 0 && want.length < lines.length) some++;
          const label = `seed ${7000 + round}, ${p}${ignoreCase ? ' -i' : ''}`;
          expect(search(path, q), label).toEqual({ lines: want });
          expect(search(path, query(p, { ignoreCase, countOnly: true })), label).toEqual({ lines: [], counted: want.length });
          expect(search(path, query(p, { ignoreCase, maxCount: 3 })), `${label} -m 3`).toEqual({ lines: want.slice(0, 3) });
        }
      }
      expect(some).toBeGreaterThan(10);
    });
  }
});

// (patterns with a literal: the scan kernel looks for it; some have none: the DFA's windows)
const WITH_LITERALS = ['qa', 'aaaa', 'a+b', 'u"', '\\\\', '[0-9]:', 'x.*\u00e9', 'cc|QQ', '^aaa', '9$', 'a{20}c'];

describe('short records with the literal scan, against the JavaScript regex', () => {
  for (let round = 0; round < 2; round++) {
    it(`round ${round}: ${WITH_LITERALS.length} patterns, printed, counted, -v -c, -i, -w`, async () => {
      draw = seeded(8000 + round);
      const lines = Array.from({ length: 300 }, line);
      const path = await stored(lines);
      for (const p of WITH_LITERALS) {
        for (const [ignoreCase, word] of [[false, false], [true, false], [false, true]]) {
          const q = query(p, { ignoreCase, word });
          const want = expected(lines, q);
          const label = `seed ${8000 + round}, ${p}${ignoreCase ? ' -i' : ''}${word ? ' -w' : ''}`;
          expect(search(path, q), label).toEqual({ lines: want });
          expect(search(path, query(p, { ignoreCase, word, countOnly: true })), label).toEqual({ lines: [], counted: want.length });
          expect(search(path, query(p, { ignoreCase, word, countOnly: true, invert: true })), `${label} -v`).toEqual({ lines: [], counted: lines.length - want.length });
        }
      }
    });
  }
});

describe('records longer than the memory they are searched in', () => {
  // matches and near misses every 997 bytes, so that some lie across any window's end; a match only at the end
  // or the start of a long record; an escape (the record left to JavaScript); non-ASCII bytes before a match
  const every = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length));
  const lines = [
    'short qabu 9',
    'x'.repeat(200_000),
    every(`${'x'.repeat(993)}qab `, 150_000),
    every(`${'x'.repeat(993)}qabu`, 150_000),
    `${'y'.repeat(70_000)}qabu`,
    `qabu${'z'.repeat(100_000)}`,
    `${'x'.repeat(80_000)}\\qabu\t`,
    `${'\u00e9'.repeat(40_000)} qabu`,
    `${'x'.repeat(65_270)}9`,
    `${'x'.repeat(130_000)}9 QABU`,
    'after the long ones: qabu',
    // one match only, across the end of the kernel's first piece of the record (its quote, then the text)
    `${'x'.repeat(new ByteScanner(64).capacity - 3)}qabu${'x'.repeat(10_000)}`,
    `${'x'.repeat(300_000)}`,
  ];
  const patterns = ['qabu', 'q[a-z]{2}u', 'q[a-z]{2}\\s', 'ab{1}u|zq', '9$', '^x', 'x{3}qab', '[^x]qab', 'u$', '\\\\', '\u00e9 q', 'z$'];
  it(`${patterns.length} patterns, printed, counted, -m 2, -v -c, with -i and -w`, async () => {
    const path = await stored(lines);
    for (const p of patterns) {
      for (const [ignoreCase, word] of [[false, false], [true, false], [false, true]]) {
        const q = query(p, { ignoreCase, word });
        const want = expected(lines, q);
        const label = `${p}${ignoreCase ? ' -i' : ''}${word ? ' -w' : ''}`;
        const short = (f: Found) => ({ ...f, lines: f.lines.map(([n, t]) => [n, t.length, t.slice(0, 20), t.slice(-20)]) });
        expect(short(search(path, q)), label).toEqual(short({ lines: want }));
        expect(search(path, query(p, { ignoreCase, word, countOnly: true })), label).toEqual({ lines: [], counted: want.length });
        expect(short(search(path, query(p, { ignoreCase, word, maxCount: 2 }))), `${label} -m 2`).toEqual(short({ lines: want.slice(0, 2) }));
        expect(search(path, query(p, { ignoreCase, word, countOnly: true, invert: true })), `${label} -v`).toEqual({ lines: [], counted: lines.length - want.length });
      }
    }
  });

  it('a long record without escapes is decided by the DFA alone: JavaScript tests none of them, counting', async () => {
    // (and one longer than the DFA's own window, 1 MB, which decides a record the kernel did not gather)
    const plain = [lines[1], lines[2], lines[3], lines[4], lines[5], lines[8], lines[9], lines[11], `${'x'.repeat(1_200_000)}qabu`, 'short qabu'];
    const path = await stored(plain);
    for (const p of ['qabu', 'q[a-z]{2}u', '9$', 'x{3}qab']) {
      lastTried.n = 0;
      const want = expected(plain, query(p));
      expect(search(path, query(p, { countOnly: true })), p).toEqual({ lines: [], counted: want.length });
      expect(lastTried.n, `${p}: a record tested by JavaScript`).toBe(0);
    }
  });
});

describe('the record-by-record way over records longer than the memory (context, a range, -v, --stream)', () => {
  // the same search with a kernel of 65,280 bytes (its least), where the long records are read from the file
  // (scanChunks' long chunks), and with one of 1 MB, where every record is in the kernel's memory with the others
  const BIG = 1 << 20;
  const every = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length));
  const lines = [
    'short qabu 9',
    'x'.repeat(200_000),
    'between',
    every(`${'x'.repeat(993)}qabu`, 150_000),
    `qabu${'z'.repeat(100_000)}`,
    'short again',
    `${'x'.repeat(80_000)}\\qabu\t`,
    `${'\u00e9'.repeat(40_000)} qabu`,
    'qabu short',
    `${'x'.repeat(70_000)}9`,
    'no',
    `${'x'.repeat(300_000)}`,
    'end qabu',
  ];
  type Seen = (string | number)[];
  function events(path: string, q: GrepQuery, capacity: number): Seen[] | string {
    const fd = openSync(path, 'r');
    const seen: Seen[] = [];
    try {
      for (const e of grepResult(openResultFile(path), q, fd, { scanner: new ByteScanner(capacity) })) {
        if (e.kind === 'match' || e.kind === 'context') seen.push([e.kind, e.n, e.text.length, e.text.slice(0, 12), e.text.slice(-12)]);
        else if (e.kind === 'gap' || e.kind === 'counted') seen.push(e.kind === 'gap' ? ['gap'] : ['counted', e.matches]);
      }
    } catch (e) {
      return (e as Error).message;
    } finally {
      closeSync(fd);
    }
    return seen;
  }
  const cases: [string, Partial<GrepQuery>][] = [
    ['-C 1', { before: 1, after: 1 }],
    ['-B 2', { before: 2 }],
    ['-A 2 -m 2', { after: 2, maxCount: 2 }],
    ['--records 4:9', { range: { from: 4, to: 9 } }],
    ['--records 3:12 -C 1', { range: { from: 3, to: 12 }, before: 1, after: 1 }],
    ['--records 5: -c', { range: { from: 5, to: Infinity }, countOnly: true }],
    ['-v -A 1', { invert: true, after: 1 }],
    ['-v --records 2:8', { invert: true, range: { from: 2, to: 8 } }],
    ['--stream (even records)', { only: (n: number) => n % 2 === 0 }],
    ['--stream -C 1 -c', { only: (n: number) => n % 3 !== 0, before: 1, after: 1, countOnly: true }],
  ];
  it(`${cases.length} searches × 6 patterns: the same records, context and gaps as when every record is held`, async () => {
    const path = await stored(lines);
    let some = 0;
    for (const p of ['qabu', 'q[a-z]{2}u', '9$', '^x+$', '\\u00e9 q', '(q)abu\\1|short']) {
      for (const [name, o] of cases) {
        const q = { ...query(p), ...o };
        const small = events(path, q, 64);
        expect(small, `${p} ${name}`).toEqual(events(path, q, BIG));
        if (Array.isArray(small) && small.some((e) => e[0] === 'match' && (e[2] as number) > 65_000)) some++;
      }
    }
    expect(some).toBeGreaterThan(10);
  });

  it('after-context that runs on into the next chunk: a record is a match by its own text, not by where the last chunk\'s was', async () => {
    // (the DFA's finder kept the offset of its last match when the chunk changed, and a context record of the next
    // chunk read without a find, lying there, was taken as a match: lro grep ID 'q[a-z]{2}u' -A 30000)
    const uniform = Array.from({ length: 4000 }, (_, i) => (i >= 1000 && i < 1040 ? `qabu ${i} `.padEnd(61, 'y') : `line ${i} `.padEnd(61, 'x')));
    const path = await stored(uniform);
    for (const capacity of [64, 100_000]) {
      const seen = events(path, { ...query('q[a-z]{2}u'), after: 3000 }, capacity);
      expect(Array.isArray(seen) && seen.filter((e) => e[0] === 'match').map((e) => e[1]), `${capacity}`).toEqual(Array.from({ length: 40 }, (_, i) => 1001 + i));
    }
  });

  it('a long record without escapes, only counted or passed over, is decided by the DFA: JavaScript tests none of them', async () => {
    const plain = [lines[0], lines[1], lines[2], lines[3], lines[4], 'short', lines[9], lines[11], 'end qabu'];
    // (printed, a long record that matches is read to be printed, and not tested again)
    const path = await stored(plain);
    const cases: [string, Partial<GrepQuery>][] = [
      ['--records 2: -c', { range: { from: 2, to: Infinity }, countOnly: true }],
      ['-v --records 1:8 -c', { range: { from: 1, to: 8 }, invert: true, countOnly: true }],
      ['--stream -c', { only: (n: number) => n !== 4, countOnly: true }],
      ['--records 1:8 (printed)', { range: { from: 1, to: 8 } }],
    ];
    for (const p of ['qabu', 'q[a-z]{2}u', '9$', 'x{3}q']) {
      for (const [name, o] of cases) {
        const q = { ...query(p), ...o };
        const want = events(path, q, BIG);
        // the lengths of the texts the JavaScript regex tests
        const tested: number[] = [];
        const re = q.matcher.regex;
        re.test = (text: string) => (tested.push(text.length), RegExp.prototype.test.call(re, text));
        expect(events(path, q, 64), `${p} ${name}`).toEqual(want);
        expect(tested.filter((l) => l > 65_000), `${p} ${name}: long records tested by JavaScript`).toEqual([]);
      }
    }
  });

  it('a record before the range is not read: a long record cut short there is not seen', async () => {
    const path = await stored(lines);
    const text = readFileSync(path, 'latin1');
    // record 2 (200,000 x) loses its closing quote: damaged, but only a search that reads it can tell
    writeFileSync(path, text.replace(`"${'x'.repeat(200_000)}"`, `"${'x'.repeat(200_000)}`), 'latin1');
    expect(events(path, { ...query('qabu'), range: { from: 3, to: 9 } }, 64)).toEqual(events(path, { ...query('qabu'), range: { from: 3, to: 9 } }, BIG));
    expect(events(path, { ...query('qabu'), range: { from: 1, to: 9 }, before: 1 }, 64)).toMatch(/record 2 /);
  });
});

describe('a damaged file fails as the record-by-record way fails it', () => {
  const lines = ['short', `${'a'.repeat(500)}b`, 'tab\there', 'q"xxu', `long ${'c'.repeat(300)} qabu`, 'last 9'];
  const damages: Record<string, (records: string) => string> = {
    'an extra record': (r) => `${r}"extra qxyu"\n`,
    'an extra line without its newline': (r) => `${r}"extra`,
    'a record missing': (r) => r.slice(0, r.lastIndexOf('\n', r.length - 2) + 1),
    'the last newline missing': (r) => r.slice(0, -1),
    'a record without its closing quote': (r) => r.replace('"short"', '"short'),
    'a record without quotes': (r) => r.replace(`"${'a'.repeat(500)}b"`, `${'a'.repeat(500)}b`),
    'a long record cut short': (r) => r.replace(`${'c'.repeat(300)} qabu"\n`, `${'c'.repeat(300)}`),
  };
  for (const [name, damage] of Object.entries(damages)) {
    it(name, async () => {
      const path = await stored(lines);
      const text = readFileSync(path, 'utf8');
      const headerEnd = text.indexOf('\n') + 1;
      writeFileSync(path, text.slice(0, headerEnd) + damage(text.slice(headerEnd)));
      // (with a literal, the kernel's way: it reads only the records holding one, and it names a partial line
      // after the last record as a truncated record where the record-by-record way finds a record too many)
      const literal = ['aaa', 'qabu', '9$'];
      for (const p of ['q[a-z]{2}u', '.*', '[a-c]+\\s', '[0-9]$', '^[^"]+$', ...(name === 'an extra line without its newline' ? [] : literal)]) {
        for (const countOnly of [false, true]) {
          const ours = search(path, query(p, { countOnly }));
          if (!literal.includes(p)) expect(ours.error, `${name}: ${p}`).toBeDefined();
          expect(ours, `${name}: ${p}${countOnly ? ' -c' : ''}`).toEqual(search(path, query(p, { countOnly, only: true })));
        }
      }
    });
  }
});
