// The error lines of a region, found by the scan kernel (wordLines in scan.wat), are the lines the regex
// /error|fail|.../gi finds on a latin1 string, with the same first word and line numbers, also when a region has
// more of them than one call of the kernel gives back (WORD_LINES). Of those candidates, the error lines are the
// ones whose words say a failure: none in a corpus of real outputs that did not fail, all the failure lines of
// outputs of failures (fixtures/error-lines).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ErrorLines, failureWord } from '../../src/describe/error-lines.js';
import { DIAGNOSTIC_RE, ERROR_PATTERN, TextAnalyzer } from '../../src/describe/text-stats.js';
import { WORD_LINES } from '../../src/search/scan.js';

type Hit = { start: number; end: number; before: number; word: string };

function byKernel(region: Buffer): { hits: Hit[]; lines: number } {
  const hits: Hit[] = [];
  const lines = new ErrorLines(ERROR_PATTERN, false).scan(region, (start, end, before, word) => hits.push({ start, end, before, word }));
  return { hits, lines };
}

function byRegex(region: Buffer): { hits: Hit[]; lines: number } {
  const hits: Hit[] = [];
  let start = 0;
  let n = 0;
  for (let nl = region.indexOf(0x0a); nl >= 0; nl = region.indexOf(0x0a, start)) {
    const m = new RegExp(ERROR_PATTERN, 'i').exec(region.subarray(start, nl).toString('latin1'));
    if (m) hits.push({ start, end: nl, before: n, word: m[0].toLowerCase() });
    n++;
    start = nl + 1;
  }
  return { hits, lines: n };
}

describe('ErrorLines', () => {
  it('finds the lines the regex finds, with their first word and line number', () => {
    const line = fc.oneof(
      fc.constantFrom('', 'ok', 'all good here', 'Connection REFUSED by peer', 'x fail', 'FaTaL: disk', 'panicked', 'err or', 'ERRO', 'é error ü'),
      fc.array(fc.constantFrom('a', 'e', 'r', 'o', 'f', 'i', 'l', ' ', 'E', 'R', 'x', '\t', 'ß'), { maxLength: 60 }).map((cs) => cs.join('')),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => {
        const region = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
        expect(byKernel(region)).toEqual(byRegex(region));
      }),
      { numRuns: 500 },
    );
  });

  it('goes on past the hits one call of the kernel holds', () => {
    const count = WORD_LINES * 2 + 123;
    const region = Buffer.from(Array.from({ length: count }, (_, i) => (i % 3 === 2 ? 'fine\n' : i % 2 ? 'abort\n' : 'fail\n')).join(''));
    const got = byKernel(region);
    expect(got.lines).toBe(count);
    expect(got.hits.length).toBe(count - Math.floor(count / 3));
    expect(got).toEqual(byRegex(region));
  });
});

/** The lines of a fixture (gzipped or not). */
function fixtureLines(path: string): string[] {
  const bytes = readFileSync(path);
  const text = (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('latin1');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

const ERROR_CORPUS = resolve(__dirname, '../../fixtures/error-lines');
const okFiles = readdirSync(join(ERROR_CORPUS, 'ok')).filter((f) => f !== 'MANIFEST.md');

describe('error lines that are errors (fixtures/error-lines, real outputs)', () => {
  it('the corpus is there: outputs that did not fail and outputs of failures', () => {
    expect(okFiles.length).toBeGreaterThanOrEqual(8);
    expect(Object.keys(FAILURES).sort()).toEqual(readdirSync(join(ERROR_CORPUS, 'fail')).filter((f) => f !== 'MANIFEST.md').sort());
  });

  it.each(okFiles)('%s did not fail: none of its lines is an error line', (file) => {
    const lines = fixtureLines(join(ERROR_CORPUS, 'ok', file));
    // the words are there (else the file tests nothing) …
    expect(lines.filter((l) => new RegExp(ERROR_PATTERN, 'i').test(l)).length).toBeGreaterThan(0);
    // … and no line is called an error, by the rule or by the analyzer that counts the descriptor's error lines
    expect(lines.filter((l) => failureWord(l) !== null)).toEqual([]);
    const t = new TextAnalyzer();
    t.push(Buffer.from(`${lines.join('\n')}\n`, 'latin1'));
    expect(t.end().errorCount).toBe(0);
  });

  it.each(Object.entries(FAILURES))('%s failed: its failure lines are error lines, and only lines of the failure', (file, { must, may }) => {
    const lines = fixtureLines(join(ERROR_CORPUS, 'fail', file));
    const found = lines.filter((l) => failureWord(l) !== null);
    const wanted = lines.filter((l) => must.test(l));
    expect(wanted.length).toBeGreaterThan(0);
    expect(wanted.filter((l) => !found.includes(l))).toEqual([]);
    expect(found.filter((l) => !must.test(l) && !may?.test(l))).toEqual([]);
  });

  it.each(Object.keys(FAILURES))('%s failed: a line of it is a failure message, not a row of data (DIAGNOSTIC_RE)', (file) => {
    const lines = fixtureLines(join(ERROR_CORPUS, 'fail', file));
    const t = new TextAnalyzer();
    t.push(Buffer.from(`${lines.join('\n')}\n`, 'latin1'));
    const s = t.end();
    expect(s.diagnosticCount).toBeGreaterThan(0);
    expect(s.diagnosticCount).toBeLessThanOrEqual(s.errorCount);
  });

  it('a failure message begins as one; a row of data holding an error word does not', () => {
    const messages = [
      'E: Unable to locate package nosuch',
      'ERROR: build failed',
      '[FATAL] out of memory',
      'fatal: not a git repository (or any of the parent directories): .git',
      'error: pathspec \'x\' did not match any file(s) known to git',
      'error[E0425]: cannot find value `y` in this scope',
      'dpkg: error processing package foo (--configure):',
      'cat: /etc/shadow: Permission denied',
      'curl: (7) Failed to connect to 127.0.0.1 port 9',
      'make: *** [Makefile:2: all] Error 1',
      'src/a.c:3:10: error: y undeclared',
      'test_fail.py:7: ZeroDivisionError',
      'npm ERR! code ELIFECYCLE',
      'Traceback (most recent call last):',
      "thread 'main' panicked at src/main.rs:3:21:",
      'TypeError: Cannot read properties of null',
      'java.lang.IllegalStateException: closed',
      'E       AssertionError: assert 1 == 2',
      'FAILED tests/test_a.py::test_b - AssertionError',
      'Segmentation fault (core dumped)',
    ];
    const rows = [
      'Description: Error constructor for validation frameworks',
      '+broken.c:3:10: error: y undeclared',
      ' error: the message a test expects',
      'error: null',
      'status: error',
      'ii  liberror-perl  0.17029-2  all  Perl module for error/exception handling',
      '-rw-r----- 1 root adm 1024 Jan  1 00:00 error.log',
      '/usr/include/error.h',
      'root  42  0.0  0.1 java -XX:+HeapDumpOnOutOfMemoryError -jar app.jar',
      '    Fix error handling in the parser',
      'id,status,message\n',
      '17,failed,timeout',
    ];
    expect(messages.filter((l) => !DIAGNOSTIC_RE.test(l))).toEqual([]);
    expect(rows.filter((l) => DIAGNOSTIC_RE.test(l))).toEqual([]);
  });

  it('a word in a name, a topic, a count of none or a value is not a failure; a failure said in words is', () => {
    for (const l of [
      'ii  liberror-perl   0.17029-2   all   Perl module for error/exception handling in an OO-ish way',
      'ii  libgpg-error0:amd64  1.46-1  amd64  GnuPG development runtime library',
      '/var/log/faillog',
      '  clouderrorreporting:',
      'Restart=on-failure',
      'X509v3 Key Usage: critical',
      'Found 0 errors. Watching for file changes.',
      'errors: 0, warnings: 2',
      'no errors found',
      'tests/test_x.py::test_error_handling PASSED',
      'java -XX:+HeapDumpOnOutOfMemoryError -Dlog.exception=full com.example.ExceptionReporter',
      'curl --fail https://example.org',
    ]) expect(failureWord(l), l).toBeNull();
    for (const [l, w] of [
      ['ERROR: could not open file', 'error'],
      ['src/a.ts(3,5): error TS2322: Type', 'error'],
      ['java.lang.NullPointerException: null', 'exception'],
      ['E   AssertionError: assert 1 == 2', 'error'],
      ['level=error msg="connection reset"', 'error'],
      ['2026-11-28 [critical] disk full', 'critical'],
      ['CRITICAL worker died', 'critical'],
      ['Found 3 errors in 2 files.', 'error'],
      ['ssh: connect to host x port 22: Connection refused', 'refused'],
      ["thread 'main' panicked at src/main.rs:3:5:", 'panic'],
    ]) expect(failureWord(l), l).toBe(w);
  });
});

/** Each output of a failure: the lines that tell the failure (all must be error lines), and others that may be. */
const FAILURES: Record<string, { must: RegExp; may?: RegExp }> = {
  'curl-refused.txt': { must: /failed: Connection refused|Failed to connect/ },
  'gcc-errors.txt': { must: /: error: / },
  'git-fatal.txt': { must: /^fatal: / },
  'make-error.txt': { must: /: error: |\*\*\* .* Error \d/ },
  'node-throw.txt': { must: /^TypeError: / },
  'permission-denied.txt': { must: /Permission denied/ },
  'pytest-fail.txt': { must: /^E\s+\w+Error: |^FAILED |^=+ FAILURES =+$|\d+ failed/, may: /^test_fail\.py:\d+: \w+Error$|^>\s+raise / },
  'python-traceback.txt': { must: /^Traceback |^KeyError: / },
  'rust-panic.txt': { must: /panicked at/, may: /::panicking::|panic_/ },
};
