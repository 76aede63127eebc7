// Kind-aware descriptors (issue 23, items 1 and 7): each output of fixtures/outputs (real command outputs where the
// tool was there, see its MANIFEST.md) is described as what it is — its kind, the facts of that kind (counts,
// columns, failures) — and nothing false: no error lines for a listing whose paths hold "error", no log levels for
// a table, a wrong kind for none. The questions an agent asks of each, on outputs of 1 MB, are in
// kinds-economy.test.ts (soak) and bench/economy.sh.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { corpusFile } from '../helpers/corpus.js';

const OUTPUTS = join(__dirname, '../../fixtures/outputs');
let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

type D = Record<string, any>;

async function offload(input: Buffer | string, args: string[] = []): Promise<D> {
  const r = await lroHere(['offload', '--force', ...args], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out) as D;
}

const fixture = (name: string) => readFileSync(join(OUTPUTS, name));
const lines = (name: string) => fixture(name).toString('utf8').split('\n').filter((l) => l !== '');
const column = (d: D, name: string) => (d.summary.kind_facts.columns as D[]).find((c) => c.name === name)!;

/** Nothing in the descriptor calls a line an error or counts log levels. */
function noErrors(d: D): void {
  expect(d.summary.error_lines).toBeUndefined();
  expect(d.summary.levels).toBeUndefined();
  expect(d.preview.errors).toBeUndefined();
  expect(d.guidance).not.toMatch(/look like errors/);
}

describe('kinds of text', () => {
  it('find: a path list, counted by extension, and a path holding "error" is no error line', async () => {
    const input = `${fixture('find-usr-include.txt')}/usr/include/error.h\n/usr/include/linux/errqueue-error_fail.h\n`;
    const d = await offload(input);
    expect(d.summary.kind).toBe('paths');
    const f = d.summary.kind_facts;
    expect(f.paths).toBe(input.split('\n').length - 1);
    expect(f.root).toBe('/usr/include');
    const h = input.split('\n').filter((l) => l.endsWith('.h')).length;
    expect(f.by_extension['.h']).toBe(h);
    noErrors(d);
    expect(d.guidance).toContain(`lro grep ${d.id} '\\.h$' -c`);
  });

  it('a binary names its format: an ELF executable, a Windows PE', async () => {
    const heads = join(__dirname, '../../fixtures/binary-heads');
    const elf = await offload(readFileSync(join(heads, 'ls.head')));
    expect(elf.summary.kind).toBe('binary');
    expect(elf.summary.kind_facts).toEqual({ format: 'ELF 64-bit LSB pie executable, x86-64' });
    expect(elf.guidance).toMatch(/^4\.1 kB of binary data \(ELF 64-bit LSB pie executable, x86-64\) stored as /);
    const exe = await offload(readFileSync(join(heads, 'w64.exe.head')));
    expect(exe.summary.kind_facts.format).toBe('PE32+ executable (GUI) x86-64, for MS Windows');
    // and lro info says the same of the stored result
    const info = JSON.parse((await lro(['info', exe.id], { env })).out);
    expect(info.summary.kind_facts.format).toBe('PE32+ executable (GUI) x86-64, for MS Windows');
  });

  it('ls -l and ls -laR: a listing with its largest files; no levels, no error lines', async () => {
    const d = await offload(fixture('ls-l-usr-bin.txt'));
    expect(d.summary.kind).toBe('listing');
    const entries = lines('ls-l-usr-bin.txt').filter((l) => /^[-dl]/.test(l));
    expect(d.summary.kind_facts.entries).toBe(entries.length);
    const sizes = entries.filter((l) => l.startsWith('-')).map((l) => Number(l.split(/\s+/)[4]));
    expect(d.summary.kind_facts.largest[0].size).toBe(Math.max(...sizes));
    noErrors(d);
    const r = await offload(fixture('ls-laR-share-doc.txt'));
    expect(r.summary.kind).toBe('listing');
    expect(r.summary.kind_facts.directories_listed).toBe(lines('ls-laR-share-doc.txt').filter((l) => /^\/.*:$/.test(l)).length);
    noErrors(r);
  });

  it('ps aux: a table whose columns are named, typed and ranged, with the line of the largest value', async () => {
    const d = await offload(fixture('ps-aux.txt'));
    expect(d.summary.kind).toBe('table');
    const rows = lines('ps-aux.txt').slice(1).map((l) => l.trim().split(/\s+/));
    expect(d.summary.kind_facts.rows).toBe(rows.length);
    expect(d.summary.kind_facts.columns.map((c: D) => c.name)).toEqual(['USER', 'PID', '%CPU', '%MEM', 'VSZ', 'RSS', 'TTY', 'STAT', 'START', 'TIME', 'COMMAND']);
    const mem = column(d, '%MEM');
    expect(mem.type).toBe('number');
    expect(mem.max).toBe(Math.max(...rows.map((r) => Number(r[3]))));
    expect(Number(rows[mem.max_line - 2][3])).toBe(mem.max);
    // a column's top values are its real counts, and "(others)" the rest of the rows (STAT has 9 values, START 12)
    for (const [name, i] of [['STAT', 7], ['START', 8]] as const) {
      const truth = new Map<string, number>();
      for (const r of rows) truth.set(r[i], (truth.get(r[i]) ?? 0) + 1);
      const top = column(d, name).top as Record<string, number>;
      expect(Object.keys(top)).toContain('(others)');
      const { '(others)': others, ...listed } = top;
      for (const [v, c] of Object.entries(listed)) expect(c, `${name} ${v}`).toBe(truth.get(v));
      expect(others, name).toBe(rows.length - Object.values(listed).reduce((a, c) => a + c, 0));
    }
    noErrors(d);
  });

  it('ls -lh: a listing whose sizes are K, M, G; the bytes summed from them say they are an estimate', async () => {
    const d = await offload(fixture('ls-lh-usr-bin.txt'));
    expect(d.summary.kind).toBe('listing');
    const f = d.summary.kind_facts;
    const entries = lines('ls-lh-usr-bin.txt').filter((l) => /^[-dl]/.test(l));
    expect(f.entries).toBe(entries.length);
    expect(f.file_bytes_note).toMatch(/estimate/);
    expect(f.columns).toContain('as ls -h prints it');
    // the largest file is the one ls -lh prints the largest size for
    const unit = (s: string) => Number(s.replace(/[KMG]$/, '')) * 1024 ** (' KMG'.indexOf(s.at(-1)!) > 0 ? ' KMG'.indexOf(s.at(-1)!) : 0);
    const files = entries.filter((l) => l.startsWith('-')).map((l) => l.split(/\s+/));
    const biggest = files.reduce((a, b) => (unit(b[4]) > unit(a[4]) ? b : a));
    expect(f.largest[0].name).toBe(biggest.slice(8).join(' '));
  });

  it('df -h: sizes and percents as numbers, "Mounted on" one column', async () => {
    const d = await offload(fixture('df-h.txt'));
    expect(d.summary.kind).toBe('table');
    expect(d.summary.kind_facts.columns.map((c: D) => c.name)).toEqual(['Filesystem', 'Size', 'Used', 'Avail', 'Use%', 'Mounted on']);
    expect(column(d, 'Size').type).toBe('size');
    expect(column(d, 'Use%').type).toBe('percent');
  });

  it('kubectl get and docker ps: left-aligned columns cut where the header says, empty cells and all', async () => {
    const k = await offload(fixture('kubectl-get-pods.txt'));
    expect(k.summary.kind).toBe('table');
    const statuses = lines('kubectl-get-pods.txt').slice(1).map((l) => l.split(/\s+/)[3]);
    expect(column(k, 'STATUS').top.CrashLoopBackOff).toBe(statuses.filter((s) => s === 'CrashLoopBackOff').length);
    expect(column(k, 'RESTARTS').type).toBe('int');
    noErrors(k); // a pod in Error is a value of STATUS, not an error line
    const dk = await offload(fixture('docker-ps.txt'));
    expect(dk.summary.kind).toBe('table');
    expect(dk.summary.kind_facts.columns.map((c: D) => c.name)).toEqual(['CONTAINER ID', 'IMAGE', 'COMMAND', 'CREATED', 'STATUS', 'PORTS', 'NAMES']);
    expect(column(dk, 'IMAGE').top['redis:7']).toBe(15);
  });

  it('CSV and TSV: the header names the columns; du without a header numbers them', async () => {
    const c = await offload(fixture('orders.csv'));
    expect(c.summary.kind).toBe('csv');
    expect(c.summary.kind_facts.rows).toBe(400);
    const status = column(c, 'status');
    const rows = lines('orders.csv').slice(1).map((l) => l.split(','));
    expect(status.top.error).toBe(rows.filter((r) => r[2] === 'error').length);
    expect(column(c, 'total').type).toBe('number');
    noErrors(c); // "error" is a status here
    const t = await offload(fixture('orders.tsv'));
    expect(t.summary.kind).toBe('tsv');
    const du = await offload(fixture('du-a.tsv'));
    expect(du.summary.kind).toBe('tsv');
    expect(du.summary.kind_facts.header).toMatch(/^none/);
    expect(column(du, '1').max).toBe(Math.max(...lines('du-a.tsv').map((l) => Number(l.split('\t')[0]))));
  });

  it('git diff: files changed and lines added and removed, no error lines', async () => {
    const d = await offload(fixture('git-diff.patch'));
    expect(d.summary.kind).toBe('diff');
    const text = lines('git-diff.patch');
    const f = d.summary.kind_facts;
    expect(f.files_changed).toBe(text.filter((l) => l.startsWith('+++ ')).length);
    expect(f.lines_added).toBe(text.filter((l) => l.startsWith('+') && !l.startsWith('+++ ')).length);
    expect(f.lines_removed).toBe(text.filter((l) => l.startsWith('-') && !l.startsWith('--- ')).length);
    noErrors(d);
  });

  it('git log --oneline (and --graph): commits; a subject that says "errors fixed" is no error line', async () => {
    const subjects = ['a1b2c3d (HEAD -> main) Fix the parser error on empty input', 'b2c3d4e 25 errors fixed in the tests', 'c3d4e5f Add retries'];
    const oneline = Array.from({ length: 300 }, (_, i) => subjects[i % 3].replace(/^\w{7}/, (i * 7919).toString(16).padStart(7, '0'))).join('\n');
    const d = await offload(`${oneline}\n`);
    expect(d.summary.kind).toBe('git-log');
    expect(d.summary.kind_facts).toMatchObject({ format: 'oneline', commits: 300, newest: '0000000 (line 1)' });
    noErrors(d);
    const graph = ['* 1111111 (HEAD -> main) Merge branch x', '|\\', '| * 2222222 fix: error in x', '|/', '* 3333333 Start'];
    const g = await offload(`${Array.from({ length: 60 }, () => graph.join('\n')).join('\n')}\n`);
    expect(g.summary.kind_facts).toMatchObject({ format: 'oneline', commits: 180 });
    expect(g.summary.kind_facts.other_lines).toBeUndefined();
  });

  it('git log --stat: commits, authors, insertions', async () => {
    const d = await offload(fixture('git-log-stat.txt'));
    expect(d.summary.kind).toBe('git-log');
    expect(d.summary.kind_facts.commits).toBe(60);
    noErrors(d);
  });

  it('pytest -v and go test -v: passed, failed, skipped, and the failing tests are the error lines', async () => {
    const p = await offload(fixture('pytest-v.txt'));
    expect(p.summary.kind).toBe('test-run');
    const f = p.summary.kind_facts;
    expect([f.runner, f.passed, f.failed, f.skipped]).toEqual(['pytest', 51, 4, 5]);
    expect(f.failing).toEqual([5, 22, 39, 56].map((n) => `test_sample.py::test_parse_case_${n}`));
    // test_error_handling_N passed: its name is no error line
    expect(p.summary.error_lines).toBe(4);
    expect(p.preview.errors.every((l: string) => l.includes('FAILED'))).toBe(true);
    // the failures themselves are one read away: pytest's FAILURES block, each test's section by its name
    expect(f.failures_section).toBe('70:102');
    expect(f.failure_lines['test_sample.py::test_parse_case_22']).toBe('79:86');
    expect(fixture('pytest-v.txt').toString().split('\n')[78]).toMatch(/^_+ test_parse_case_22 _+$/);
    expect(p.guidance).toContain(`Next: \`lro read ${p.id} --records 70:102\``);
    const g = await offload(fixture('go-test-v.txt'));
    expect(g.summary.kind).toBe('test-run');
    // every result line is a test: two packages' TestPassed are two tests
    const result = (w: string) => lines('go-test-v.txt').filter((l) => new RegExp(`^\\s*--- ${w}: `).test(l)).length;
    expect([g.summary.kind_facts.tests, g.summary.kind_facts.passed, g.summary.kind_facts.failed, g.summary.kind_facts.skipped]).toEqual([
      result('(PASS|FAIL|SKIP)'),
      result('PASS'),
      result('FAIL'),
      result('SKIP'),
    ]);
    expect(result('(PASS|FAIL|SKIP)')).toBe(59);
    // the packages, a failed build's among them (it has no test)
    expect(g.summary.kind_facts.packages).toEqual({ ok: 2, failed: 3 });
    expect(g.summary.kind_facts.failed_packages[0]).toBe('gotest.tools/gotestsum/testjson/internal/badmain');
    expect(g.guidance).toContain(`\`lro grep ${g.id} -F -C 3 -- '--- FAIL: '\``);
    // go test: a failing test's lines run from its last === RUN / === CONT to its --- FAIL, its message among them
    const [from, to] = g.summary.kind_facts.failure_lines.TestFailedWithStderr.split(':').map(Number);
    const section = fixture('go-test-v.txt').toString().split('\n').slice(from - 1, to);
    expect(section[0]).toBe('=== RUN   TestFailedWithStderr');
    expect(section.at(-1)).toMatch(/^--- FAIL: TestFailedWithStderr /);
    expect(section.join('\n')).toContain('also failed');
    const r = await lro(['read', g.id, '--records', g.summary.kind_facts.failure_lines.TestFailedWithStderr], { env });
    expect(r.out).toContain('fails_test.go:43: also failed');
    // cargo test: the failures: block, each test's ---- name stdout ---- section (its panic message in it)
    const c = await offload(fixture('cargo-test.txt'));
    expect(c.summary.kind_facts).toMatchObject({ runner: 'cargo test', passed: 4, failed: 2, skipped: 1, failures_section: '14:67' });
    expect(c.summary.kind_facts.failure_lines).toEqual({ 'tests::off_by_one': '16:40', 'tests::parses_negative': '41:67' });
    const raw = fixture('cargo-test.txt').toString().split('\n');
    expect(raw[40]).toBe('---- tests::parses_negative stdout ----');
    expect(raw.slice(15, 40).join('\n')).toContain('the sum is off by one');
    expect(c.guidance).toContain(`Next: \`lro read ${c.id} --records 14:67\``);
  });

  it('pytest without -v: a character per test on its progress lines, the failures named by its short summary', async () => {
    const text = fixture('pytest-progress.txt').toString('utf8');
    const d = await offload(text);
    expect(d.summary.kind).toBe('test-run');
    const f = d.summary.kind_facts;
    // pytest's own last line: 3 failed, 387 passed, 10 skipped
    expect(text).toMatch(/=+ 3 failed, 387 passed, 10 skipped in /);
    expect([f.runner, f.tests, f.passed, f.failed, f.skipped]).toEqual(['pytest', 400, 387, 3, 10]);
    expect(f.failing).toEqual([150, 260, 377].map((n) => `test_suite.py::test_parse_case_${n}`));
    const raw = text.split('\n');
    const [from, to] = f.failure_lines['test_suite.py::test_parse_case_260'].split(':').map(Number);
    expect(raw[from - 1]).toMatch(/^_+ test_parse_case_260 _+$/);
    expect(raw.slice(from - 1, to).join('\n')).toContain('assert (260 + 1) == 260');
    expect(d.guidance).toContain(`Next: \`lro read ${d.id} --records ${f.failures_section}\``);
  });

  it('pytest --junitxml (a report on few long lines): a test run, and the next command reads exactly the first failing element', async () => {
    const text = fixture('pytest-junit.xml').toString('utf8');
    const d = await offload(text);
    expect(d.summary.kind).toBe('test-run');
    const f = d.summary.kind_facts;
    expect([f.runner, f.tests, f.passed, f.failed, f.skipped]).toEqual(['junit', 400, 387, 3, 10]);
    // the root's errors="0" is no error line: the error lines are the failing tests'
    expect(d.summary.error_lines).toBe(3);
    expect(d.preview.errors.every((l: string) => l.includes('<testcase') && l.includes('test_parse_case_'))).toBe(true);
    const range = f.failure_chars['test_suite > test_parse_case_150'];
    expect(d.guidance).toContain(`Next: \`lro read ${d.id} --chars ${range} --raw\``);
    const r = await lro(['read', d.id, '--chars', range, '--raw'], { env });
    expect(r.code).toBe(0);
    const [at, end] = range.split(':').map(Number);
    expect(r.out.trimEnd()).toBe(text.slice(at, end));
    expect(r.out).toMatch(/^<testcase classname="test_suite" name="test_parse_case_150"[^]*assert \(150 \+ 1\) == 150[^]*<\/testcase>\s*$/);
  });

  it('tsc, gcc and cargo errors: diagnostics by file and code; their error lines are errors', async () => {
    const t = await offload(fixture('tsc-errors.txt'));
    expect(t.summary.kind).toBe('diagnostics');
    expect(t.summary.kind_facts.by_code).toEqual({ TS2322: 2, TS2307: 1, TS2345: 1, TS2551: 1 });
    expect(t.summary.error_lines).toBe(5);
    const g = await offload(fixture('gcc-errors.txt'));
    expect(g.summary.kind).toBe('diagnostics');
    expect(g.summary.kind_facts.errors).toBe(lines('gcc-errors.txt').filter((l) => / error: /.test(l)).length);
    const c = await offload(fixture('cargo-errors.txt'));
    expect(c.summary.kind).toBe('diagnostics');
    expect(c.summary.kind_facts.by_code).toEqual({ E0425: 1, E0308: 1 });
  });

  it('strace: calls by name; the failed ones are the error lines', async () => {
    const d = await offload(fixture('strace.txt'));
    expect(d.summary.kind).toBe('syscalls');
    const failed = lines('strace.txt').filter((l) => / = -1 E[A-Z]+/.test(l)).length;
    expect(d.summary.kind_facts.failed).toBe(failed);
    expect(d.summary.error_lines).toBe(failed);
  });

  it('an SQL dump, HTML, minified JavaScript, env: what they are, no error lines', async () => {
    const sql = await offload(fixture('shop-dump.sql'));
    expect(sql.summary.kind).toBe('sql-dump');
    expect(sql.summary.kind_facts.rows_inserted).toEqual({ orders: 400, customers: 6 });
    noErrors(sql);
    const html = await offload(fixture('pydoc-json.html'));
    expect(html.summary.kind).toBe('html');
    expect(html.summary.kind_facts.title).toBe('Python: package json');
    noErrors(html);
    const js = await offload(fixture('lodash.min.js'));
    expect(js.summary.kind).toBe('minified');
    noErrors(js);
    const e = await offload(fixture('env.txt'));
    expect(e.summary.kind).toBe('env');
    expect(e.summary.kind_facts.variables).toBe(24);
    noErrors(e);
    // one name on every line is data, not an environment (seq 1 100000 | sed 's/^/n=/')
    const keyed = await offload(Buffer.from(Array.from({ length: 3000 }, (_, i) => `n=${i + 1}\n`).join('')));
    expect(keyed.summary.kind).not.toBe('env');
  });

  it('curl -v: requests, statuses, hosts; a response of 400 and up is an error line, a body saying "error" is not', async () => {
    const notFound = Array.from({ length: 11 }, (_, i) => `> GET /v1/missing/${i} HTTP/2\n> Host: api.example.com\n>\n< HTTP/2 404\n<\n{"error":"not found"}\n`);
    const d = await offload(`${fixture('curl-v.txt').toString('utf8')}${notFound.join('')}`);
    expect(d.summary.kind).toBe('http-trace');
    const f = d.summary.kind_facts;
    expect([f.requests, f.responses, f.by_status, f.methods, f.hosts]).toEqual([12, 12, { 404: 11, 200: 1 }, { GET: 12 }, { 'api.example.com': 12 }]);
    expect(d.summary.error_lines).toBe(11);
    expect(d.preview.errors.every((l: string) => l.endsWith('< HTTP/2 404'))).toBe(true);
    expect(d.guidance).toContain('11 lines are errors');
  });

  it('YAML: documents, top-level keys, Kubernetes kinds; deb822 stanzas: packages by section; no error lines', async () => {
    const ok = join(__dirname, '../../fixtures/error-lines/ok');
    const k8s = await offload(readFileSync(join(ok, 'kubectl-manifests.yaml')));
    expect(k8s.summary.kind).toBe('yaml');
    expect(k8s.summary.kind_facts).toMatchObject({ documents: 6, kinds: { Deployment: 2, ConfigMap: 1, CronJob: 1, Job: 1, Service: 1 } });
    expect(k8s.summary.kind_facts.top_level_keys).toMatchObject({ apiVersion: 6, kind: 6, metadata: 6 });
    // every list's items, mappings too (PyYAML's walk of the file: 10), not only the scalar ones
    expect(k8s.summary.kind_facts.list_items).toBe(10);
    const pods = await offload(readFileSync(join(__dirname, '../../fixtures/yaml/kubectl-get-pods.yaml')));
    expect(pods.summary.kind_facts).toMatchObject({ records: { of: 'items', count: 120 }, list_items: 360 });
    // a YAML whose lines stay text: the lines that start an item, and the name says lines
    const long = `x: ${'y'.repeat(3000)}\n`;
    const lined = await offload(`${'---\na: 1\nlist:\n  - 1\n  - - 2\n    - 3\n  - key: v\n    other: w\n  -\n    k: v\n'.repeat(300)}${long}`);
    expect(lined.summary.kind).toBe('yaml');
    expect(lined.summary.kind_facts.list_items).toBeUndefined();
    expect(lined.summary.kind_facts.list_item_lines).toBe(300 * 6);
    noErrors(k8s);
    const gcloud = await offload(gunzipSync(readFileSync(join(ok, 'gcloud-resource-map.yaml.gz'))));
    expect(gcloud.summary.kind).toBe('yaml');
    noErrors(gcloud);
    const debs = await offload(readFileSync(join(ok, 'dpkg-s-packages.txt')));
    expect(debs.summary.kind).toBe('deb822');
    expect(debs.summary.kind_facts).toMatchObject({ stanzas: 5, packages: 5, by_architecture: { amd64: 4, all: 1 } });
    noErrors(debs);
    // a certificate's text is indented key: value lines too, but no YAML
    expect((await offload(gunzipSync(readFileSync(join(ok, 'openssl-x509-text.txt.gz'))))).summary.kind).toBe('text');
  });

  it('a kind whose lines are data still tells the failure messages among them (dpkg -l, then apt\'s E: line)', async () => {
    const failures = [
      'E: Sub-process /usr/bin/dpkg returned an error code (1)',
      'fatal: not a git repository (or any of the parent directories): .git',
      'cat: /etc/shadow: Permission denied',
      'make: *** [Makefile:2: all] Error 1',
    ];
    const cases: [string, string][] = [
      ['error-lines/ok/dpkg-l.txt', 'table'],
      ['outputs/ps-aux.txt', 'table'],
      ['outputs/ls-laR-share-doc.txt', 'listing'],
      ['outputs/find-usr-include.txt', 'paths'],
      ['outputs/du-a.tsv', 'tsv'],
      ['outputs/orders.csv', 'csv'],
      ['outputs/git-log-stat.txt', 'git-log'],
      ['outputs/git-diff.patch', 'diff'],
      ['error-lines/ok/kubectl-manifests.yaml', 'yaml'],
      ['error-lines/ok/dpkg-s-packages.txt', 'deb822'],
      ['outputs/shop-dump.sql', 'sql-dump'],
    ];
    for (const [file, kind] of cases) {
      const data = readFileSync(join(__dirname, '../../fixtures', file), 'utf8');
      const clean = await offload(data);
      expect(clean.summary.kind, file).toBe(kind);
      noErrors(clean);
      expect(clean.guidance).toContain(`No error lines: "error" in ${kind} output is data`);
      const d = await offload(`${data}${failures.join('\n')}\n`);
      const first = clean.summary.count + 1;
      expect(d.summary.kind, file).toBe(kind);
      expect(d.summary.error_lines, file).toBe(failures.length);
      // (the preview shows as many as its budget holds, from the first)
      const shown = d.preview.errors.map((l: string) => l.replace(/^\d+: /, ''));
      expect(shown.length).toBeGreaterThan(0);
      expect(shown).toEqual(failures.slice(0, shown.length));
      expect(d.guidance).toContain(`4 lines are not ${kind} data but failure messages (line ${first} to ${first + 3}).`);
      // (to the result's last line: the failure lines end it)
      expect(d.guidance).toContain(`\`lro read ${d.id} --records ${first - 3}:${first + 3}\``);
    }
  });

  it('stat: files by type, the largest and the newest with their lines; a file named for an error is no error line', async () => {
    const text = fixture('stat-usr-bin.txt').toString();
    const ls = text.split('\n');
    const stanzas: { file: string; size: number; type: string; modified: string; line: number }[] = [];
    ls.forEach((l, i) => {
      const f = /^ {2}File: (.*)$/.exec(l);
      const size = /^ {2}Size: (\d+)\s+Blocks: \d+\s+IO Block: \d+\s+(.+?)\s*$/.exec(ls[i + 1] ?? '');
      const mod = /^Modify: (\S+ \S+ \S+)/.exec(ls[i + 5] ?? '');
      if (f && size && mod) stanzas.push({ file: f[1], size: Number(size[1]), type: size[2], modified: mod[1], line: i + 1 });
    });
    const d = await offload(`${text}  File: /usr/bin/error-report\n${ls.slice(1, 8).join('\n')}\n`);
    expect(d.summary.kind).toBe('stat');
    const f = d.summary.kind_facts;
    expect(f.files).toBe(stanzas.length + 1);
    expect(f.by_type['regular file']).toBe(stanzas.filter((s) => s.type === 'regular file').length + (ls[1].includes('regular file') ? 1 : 0));
    const big = [...stanzas].sort((a, b) => b.size - a.size)[0];
    expect(f.largest[0]).toEqual({ file: big.file, size: big.size, line: big.line });
    const newest = [...stanzas].sort((a, b) => (a.modified < b.modified ? 1 : -1))[0];
    expect(f.newest.modified).toBe(newest.modified);
    noErrors(d);
    expect(d.guidance).toContain(`\`lro read ${d.id} --records ${big.line}:${big.line + 7}\``);
  });

  it('lro diff of two ps listings: a new process whose command line names exceptions is no new error line', async () => {
    const ps = readFileSync(join(__dirname, '../../fixtures/error-lines/ok/ps-ef.txt'), 'utf8');
    const before = await offload(ps.split('\n').filter((l) => !l.includes('HeapDump')).join('\n'));
    const after = await offload(ps);
    const r = await lro(['diff', before.id, after.id], { env });
    expect(r.out).toContain('HeapDumpOnOutOfMemoryError');
    expect(r.out).not.toMatch(/error lines/);
  });

  it('what no detector is sure of stays text or log: a book, a manual page of prose, loghub logs', async () => {
    expect((await offload(readFileSync(corpusFile('binary/sherlock-nul.txt')))).summary.kind).toBe('text');
    // (not the README: a third of it is a pasted session over a log)
    const page = await offload(readFileSync(join(__dirname, '../../docs/commands.md')));
    expect(page.summary.kind).toBe('text');
    expect(page.summary.levels).toBeUndefined(); // "INFO" in prose is a word, not a level
    for (const log of ['HDFS_2k.log', 'Linux_2k.log', 'OpenSSH_2k.log']) {
      const d = await offload(readFileSync(corpusFile(`loghub/${log}`)));
      expect(d.summary.kind, log).toBe('log');
      expect(d.summary.error_lines, log).toBeGreaterThan(0);
    }
  });

  // one test a fixture: each runs several lro jq, a few seconds on a loaded machine
  const recipeFixtures = ['orders.csv', 'du-a.tsv', 'ls-laR-share-doc.txt', 'ps-aux.txt', 'df-h.txt', 'find-usr-include.txt'];
  it.each([...recipeFixtures, 'git-diff.patch', 'git-log-stat.txt', 'package-lock.json', 'npm-ls.json'])(
    'every jq recipe the kind of %s prints runs as printed and prints something',
    async (name) => {
      const d = await offload(fixture(name));
      expect(d.jq_recipes.length, name).toBeGreaterThan(0);
      for (const r of d.jq_recipes as { command: string }[]) {
        const words = r.command.match(/'(?:[^']|'\\'')*'|\S+/g)!.map((w) => (w.startsWith("'") ? w.slice(1, -1) : w));
        const out = await lro(words.slice(1), { env });
        expect(out.code, `${name}: ${r.command}\n${out.stderr}`).toBe(0);
        expect(out.out.trim().length, r.command).toBeGreaterThan(2);
      }
    },
  );

  it('the prose descriptor says the kind and its facts', async () => {
    const r = await lro(['offload', '--force', '--descriptor', 'text'], { input: fixture('ps-aux.txt'), env });
    expect(r.out).toMatch(/^kind: table$/m);
    expect(r.out).toMatch(/^ {4}name %MEM, type number, min 0, max [\d.]+, max_line \d+$/m);
  });
});

describe('kinds of JSON', () => {
  it('go test -json: counts and the failing tests by name', async () => {
    const d = await offload(fixture('go-test.jsonl'));
    expect(d.summary.kind).toBe('test-run');
    const events = lines('go-test.jsonl').map((l) => JSON.parse(l));
    const failed = [...new Set(events.filter((e) => e.Action === 'fail' && e.Test).map((e) => `${e.Package} ${e.Test}`))];
    expect(d.summary.kind_facts.failed).toBe(events.filter((e) => e.Action === 'fail' && e.Test).length);
    expect(d.summary.kind_facts.failing.sort()).toEqual(failed.sort());
    expect(d.guidance).toContain(`of ${d.summary.kind_facts.tests} tests failed`);
  });

  it('jest --json: per-test counts from the test files', async () => {
    const d = await offload(fixture('jest.json'));
    expect(d.summary.kind).toBe('test-run');
    const run = JSON.parse(fixture('jest.json').toString());
    const f = d.summary.kind_facts;
    expect([f.tests, f.passed, f.failed, f.skipped]).toEqual([run.numTotalTests, run.numPassedTests, run.numFailedTests, run.numPendingTests]);
  });

  it('a lock file is a map: entries, their value fields, and recipes with to_entries', async () => {
    const d = await offload(fixture('package-lock.json'));
    expect(d.summary.kind).toBe('json-map');
    const lock = JSON.parse(fixture('package-lock.json').toString());
    const f = d.summary.kind_facts;
    expect(f.map).toBe('.packages');
    expect(f.entries).toBe(Object.keys(lock.packages).length);
    const dev = Object.values(lock.packages as Record<string, D>).filter((p) => p.dev === true).length;
    expect(f.top_values['.dev']).toEqual({ true: dev });
    expect(d.jq_recipes[0].command).toContain('.packages | to_entries[]');
    const keys = await lro(['jq', d.id, '-c', '--max-tokens', '0', '.packages | to_entries[] | select(.value.dev == true) | .key'], { env });
    expect(keys.out.trim().split('\n')).toHaveLength(dev);
    noErrors(d);
  });

  it('npm ls --json is a tree: its nodes and depth', async () => {
    const d = await offload(fixture('npm-ls.json'));
    expect(d.summary.kind).toBe('json-tree');
    let nodes = 0;
    const walk = (m: Record<string, D>) => {
      for (const v of Object.values(m)) {
        nodes++;
        if (v.dependencies) walk(v.dependencies);
      }
    };
    walk(JSON.parse(fixture('npm-ls.json').toString()).dependencies);
    expect(d.summary.kind_facts.tree.nodes).toBe(nodes);
  });

  it('arrays and envelopes stay records (kubectl -o json, docker inspect); a small object is a document', async () => {
    expect((await offload(fixture('kubectl-get-pods.json'))).summary.kind).toBe('json-records');
    expect((await offload(fixture('docker-inspect.json'))).summary.kind).toBe('json-records');
    expect((await offload(JSON.stringify({ a: 1, b: [1, 2], c: { d: 'x' } }))).summary.kind).toBe('json-document');
  });
});
