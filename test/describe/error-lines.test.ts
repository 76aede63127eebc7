// The error lines of a region, found by the scan kernel (wordLines in scan.wat), are the lines the regex
// /error|fail|.../gi finds on a latin1 string, with the same first word and line numbers, also when a region has
// more of them than one call of the kernel gives back (WORD_LINES). Of those candidates, the error lines are the
// ones whose words say a failure, or that are a program's own failure message (`ls: cannot access 'x': No such file
// or directory`, error word or not): none in a corpus of real outputs that did not fail, all the failure lines of
// outputs of failures (fixtures/error-lines).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ErrorLines, errorWord, failureMessage, failureWord, MESSAGE_WORDS } from '../../src/describe/error-lines.js';
import { DIAGNOSTIC_RE, ERROR_PATTERN, TextAnalyzer } from '../../src/describe/text-stats.js';
import { WORD_LINES } from '../../src/kernel/scan.js';

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

  it('gives the failure messages of its second pass in line order among the others, each line once', () => {
    const kinds = [
      'plain row',
      'build failed',
      "ls: cannot access 'a': No such file or directory",
      "rm: cannot remove 'error.log': Permission denied",
      'make: *** [Makefile:2: all] Error 1',
    ];
    const lines = Array.from({ length: WORD_LINES + 500 }, (_, i) => kinds[(i * 7) % kinds.length]);
    const region = Buffer.from(lines.map((l) => `${l}\n`).join(''));
    const got: number[] = [];
    new ErrorLines(ERROR_PATTERN, true, MESSAGE_WORDS).scan(region, (_start, _end, before) => got.push(before));
    expect(got).toEqual(lines.flatMap((l, i) => (l === 'plain row' ? [] : [i])));
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
    expect(lines.filter((l) => errorWord(l) !== null)).toEqual([]);
    const t = new TextAnalyzer();
    t.push(Buffer.from(`${lines.join('\n')}\n`, 'latin1'));
    expect(t.end().errorCount).toBe(0);
  });

  it.each(Object.entries(FAILURES))('%s failed: its failure lines are error lines, and only lines of the failure', (file, { must, may }) => {
    const lines = fixtureLines(join(ERROR_CORPUS, 'fail', file));
    const found = lines.filter((l) => errorWord(l) !== null);
    const wanted = lines.filter((l) => must.test(l));
    expect(wanted.length).toBeGreaterThan(0);
    expect(wanted.filter((l) => !found.includes(l))).toEqual([]);
    expect(found.filter((l) => !must.test(l) && !may?.test(l))).toEqual([]);
    // the analyzer finds the same lines (the kernel's words make each a candidate)
    const t = new TextAnalyzer();
    t.push(Buffer.from(`${lines.join('\n')}\n`, 'latin1'));
    expect(t.end().errorCount).toBe(found.length);
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

/** Lines that are analyzed as an output: its error lines and, of them, the failure messages. */
function analyzed(lines: string[]): { errors: number; messages: number } {
  const t = new TextAnalyzer();
  t.push(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
  const s = t.end();
  return { errors: s.errorCount, messages: s.diagnosticCount ?? 0 };
}

describe("a program's own failure message is an error line, error word or not", () => {
  // as Unix tools print them (glibc's strerror words; GNU's quotes, ASCII and curly), each with the words found
  const MESSAGES: [string, string][] = [
    ["ls: cannot access '/nonexistent-dir': No such file or directory", 'no such file or directory'],
    ['find: ‘/nonexistent’: No such file or directory', 'no such file or directory'],
    ["du: cannot access '/nonexistent-du': No such file or directory", 'no such file or directory'],
    ["python3: can't open file '/srv/app/main.py': [Errno 2] No such file or directory", 'no such file or directory'],
    ['grep: missing.txt: No such file or directory', 'no such file or directory'],
    ['bash: cd: notes.txt: Not a directory', 'not a directory'],
    ['cat: /etc: Is a directory', 'is a directory'],
    ["rm: cannot remove 'build': Directory not empty", 'directory not empty'],
    ["chown: changing ownership of '/etc/hosts': Operation not permitted", 'operation not permitted'],
    ['tee: out.log: No space left on device', 'no space left on device'],
    ['cat: /dev/sdb1: Input/output error', 'input/output error'],
    ["ls: cannot access 'loop': Too many levels of symbolic links", 'too many levels of symbolic links'],
    ["touch: cannot touch '/usr/lib/x': Read-only file system", 'read-only file system'],
    ['ssh: connect to host 10.0.0.7 port 22: Connection refused', 'connection refused'],
    ["mkdir: cannot create directory ‘out’: File exists", 'file exists'],
    ['umount: /mnt: target is busy: Device or resource busy', 'device or resource busy'],
    ["cp: cannot stat 'a.txt': No such file or directory", 'no such file or directory'],
    ["stat: cannot statx '/x': No such file or directory", 'no such file or directory'],
    ['tar: backup.tar: Cannot open: No such file or directory', 'no such file or directory'],
    ["sort: cannot read: input.txt: No such file or directory", 'no such file or directory'],
    ["/usr/bin/ld: cannot find -lfoo: No such file or directory", 'no such file or directory'],
    ["ls: cannot open directory '/root/private'", 'cannot open'],
    ['/usr/bin/ld: cannot find -lmissing', 'cannot find'],
    ['bash: line 1: cargo-nextest: command not found', 'command not found'],
    ['sh: 1: jq: not found', 'not found'],
    ['make: *** [Makefile:2: all] Error 1', 'error'],
    ["make[1]: *** No rule to make target 'lib.o', needed by 'all'.  Stop.", 'stop'],
    ['make: *** No targets specified and no makefile found.  Stop.', 'stop'],
    ['Makefile:3: *** missing separator.  Stop.', 'stop'],
    ['collect2: error: ld returned 1 exit status', 'error'],
    ["/usr/bin/ld: big.c:(.text+0xf): undefined reference to `undefined_two'", 'undefined reference to'],
    ["big.c:(.text+0x5): undefined reference to `undefined_one'", 'undefined reference to'],
    ["(.text+0x17): undefined reference to `main'", 'undefined reference to'],
    ["/usr/bin/ld: b.o:b.c:(.text+0x0): multiple definition of `f'; a.o:a.c:(.text+0x0): first defined here", 'multiple definition of'],
    ['Undefined symbols for architecture arm64:', 'undefined symbols'],
    ["error: could not compile `broken` (bin \"broken\") due to 2 previous errors", 'error'],
    ["error: linking with `cc` failed: exit status: 1", 'error'],
  ];

  it.each(MESSAGES)('%s', (line, words) => {
    expect(errorWord(line)).toBe(failureWord(line) ?? words);
    expect(failureMessage(line)).toBe(words);
    // found by the analyzer's passes of the kernel among rows of data, and told as a message, not a row
    const rows = Array.from({ length: 50 }, (_, i) => `/usr/share/doc/pkg${i}/copyright`);
    expect(analyzed([...rows, line, ...rows])).toEqual({ errors: 1, messages: 1 });
    expect(analyzed([line.replace(/\s+$/, '') + '\r'])).toEqual({ errors: 1, messages: 1 });
  });

  it('data that holds the same words is no message: a diff, a grep hit, an indented line, a row, a field, a key, a name', () => {
    const data = [
      "+ls: cannot access 'x': No such file or directory",
      "-ls: cannot access 'x': No such file or directory",
      "+a.c:3: error: y undeclared",
      "build.log:12:ls: cannot access 'x': No such file or directory",
      "    ls: cannot access 'x': No such file or directory",
      '-rw-r--r-- 1 root root 0 Jan  1 00:00 No such file or directory',
      '/usr/include/error.h',
      '/usr/share/doc/x: directory',
      '/usr/bin/vi: symbolic link to /etc/alternatives/vi',
      'Description: No such file or directory handling for the shell',
      'message: cannot be empty',
      'description: cannot open the door without a key',
      'error: null',
      'ii  liberror-perl  0.17029-2  all  Perl module for error/exception handling',
      'openat(AT_FDCWD, "/etc/ld.so.preload", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)',
      'dr-xr-xr-x   2 root root 4096 Jan  1 00:00 Read-only file system',
      '  mountOptions: read-only file system',
      'The command not found handler prints a hint',
      "checking for undefined reference to `dlopen'... no",
      'Undefined behaviour sanitizer found 0 issues',
    ];
    expect(data.filter((l) => failureMessage(l) !== null)).toEqual([]);
    // (a line with an error word is an error line of a text, as before: of a kind whose lines are data, not a message)
    expect(analyzed(data)).toEqual({ errors: data.filter((l) => failureWord(l) !== null).length, messages: 0 });
  });
});

/** Each output of a failure: the lines that tell the failure (all must be error lines), and others that may be. */
const FAILURES: Record<string, { must: RegExp; may?: RegExp }> = {
  'curl-refused.txt': { must: /failed: Connection refused|Failed to connect/ },
  // a listing, a path list, a table with the program's own message among them; a build whose link failed
  'ls-laR-missing.txt': { must: /^ls: cannot access '\/nonexistent-dir': No such file or directory$/ },
  'find-missing.txt': { must: /^find: .*: No such file or directory$/ },
  'du-missing.tsv': { must: /^du: cannot access '\/nonexistent-du': No such file or directory$/ },
  'gcc-link.txt': { must: /: undefined reference to |^collect2: error: ld returned 1 exit status$/ },
  'make-link.txt': { must: /: undefined reference to |^collect2: error: ld returned 1 exit status$|^make: \*\*\* \[Makefile:2: all\] Error 1$/ },
  'gcc-errors.txt': { must: /: error: / },
  'git-fatal.txt': { must: /^fatal: / },
  'make-error.txt': { must: /: error: |\*\*\* .* Error \d/ },
  'node-throw.txt': { must: /^TypeError: / },
  'permission-denied.txt': { must: /Permission denied/ },
  'pytest-fail.txt': { must: /^E\s+\w+Error: |^FAILED |^=+ FAILURES =+$|\d+ failed/, may: /^test_fail\.py:\d+: \w+Error$|^>\s+raise / },
  'python-traceback.txt': { must: /^Traceback |^KeyError: / },
  'rust-panic.txt': { must: /panicked at/, may: /::panicking::|panic_/ },
};
