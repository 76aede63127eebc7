// Every fact a descriptor states is true of the whole output (issue 38, item 1): real outputs made on this machine
// (fixtures/whole, by bench/make-whole-outputs.mjs), each larger than the 256 KB a kind is decided from, are
// offloaded, and every number of their descriptors (bounded, and lro info --full) is compared with the truth
// counted here over the whole file, by code of this test's own. A kind that describes its first lines only (a
// table's columns) says so in words beside its figures.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { lro, storeForFile } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

const DIR = resolve(__dirname, '../../fixtures/whole');
/** What the kind detectors see of the input's start (describe/text-stats.ts KIND_SAMPLE_BYTES). */
const SAMPLE_BYTES = 256 << 10;

const store = storeForFile();

type Facts = Record<string, any>;

function fixture(name: string): { text: string; lines: string[] } {
  const text = gunzipSync(readFileSync(join(DIR, `${name}.gz`))).toString('utf8');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return { text, lines };
}

/** The bounded descriptor and the full one (lro info --full) of an input. */
async function descriptors(text: string): Promise<{ d: Facts; full: Facts; prose: string }> {
  const r = await lroHere(['offload', '--force'], { input: text, env: store.env });
  expect(r.code, r.stderr).toBe(0);
  const d = JSON.parse(r.out);
  const full = JSON.parse((await lro(['info', d.id, '--full', '--max-tokens', '1000000'], { env: store.env })).out);
  const prose = (await lro(['info', d.id, '--descriptor', 'text'], { env: store.env })).out;
  return { d, full, prose };
}

function bump(m: Map<string, number>, k: string, by = 1): void {
  m.set(k, (m.get(k) ?? 0) + by);
}

/** The n most frequent, as the descriptor orders them (count, then key). */
function top(m: Map<string, number>, n = Infinity): Record<string, number> {
  return Object.fromEntries([...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n));
}

/**
 * A table of counts as a descriptor shows it: its first entries are the truth's first, and "(others)" (when the
 * bounded descriptor cut it) is the sum of the rest.
 */
function expectCounts(shown: Record<string, number>, truth: Map<string, number>): void {
  const all = top(truth);
  const keys = Object.keys(shown).filter((k) => k !== '(others)');
  expect(keys).toEqual(Object.keys(all).slice(0, keys.length));
  for (const k of keys) expect(shown[k], k).toBe(all[k]);
  const rest = Object.values(all).slice(keys.length).reduce((a, b) => a + b, 0);
  if ('(others)' in shown) expect(shown['(others)']).toBe(rest);
  else expect(rest).toBe(0);
}

/** Each descriptor's facts (bounded and full) checked by `check`; none says it is of a part only. */
function bothFacts(ds: { d: Facts; full: Facts; prose: string }, kind: string, check: (f: Facts, full: boolean) => void): void {
  for (const [f, full] of [
    [ds.d, false],
    [ds.full, true],
  ] as const) {
    expect(f.summary.kind).toBe(kind);
    expect(f.summary.kind_facts).not.toHaveProperty('from_first_lines');
    expect(f.summary.kind_facts).not.toHaveProperty('counted_over');
    check(f.summary.kind_facts, full);
  }
  expect(ds.prose).not.toContain('from_first_lines');
}

describe('the facts of a descriptor are of the whole output', () => {
  it('each fixture is larger than what the kind is decided from', () => {
    for (const f of readFileSync(join(DIR, 'MANIFEST.md'), 'utf8').matchAll(/^\| (\S+)\.gz \|/gm)) {
      expect(Buffer.byteLength(fixture(f[1]).text), f[1]).toBeGreaterThan(SAMPLE_BYTES);
    }
  });

  it('git log --stat: commits, authors, first and last dates, files and lines changed', async () => {
    const { text, lines } = fixture('git-log-stat.txt');
    const authors = new Map<string, number>();
    const dates: string[] = [];
    let commits = 0;
    let files = 0;
    let ins = 0;
    let del = 0;
    for (const l of lines) {
      if (/^commit [0-9a-f]{40}$/.test(l)) commits++;
      const a = /^Author: (.*) <[^>]*>$/.exec(l);
      if (a) bump(authors, a[1]);
      if (l.startsWith('Date:')) dates.push(l.slice(5).trim());
      const s = /^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?$/.exec(l);
      if (s) [files, ins, del] = [files + +s[1], ins + +(s[2] ?? 0), del + +(s[3] ?? 0)];
    }
    expect(commits).toBe(800);
    bothFacts(await descriptors(text), 'git-log', (f) => {
      expect(f.commits).toBe(commits);
      expect(f.authors_distinct).toBe(authors.size);
      expectCounts(f.authors, authors);
      expect([f.newest, f.oldest]).toEqual([dates[0], dates.at(-1)]);
      expect([f.files_changed, f.insertions, f.deletions]).toEqual([files, ins, del]);
    });
  });

  it('ls -laR: entries by type, directories listed, bytes, the largest files, owners', async () => {
    const { text, lines } = fixture('ls-laR.txt');
    const entry = /^([-dlcbps])[-rwxsStT]{9}[.+@]?\s+\d+\s+(\S+)\s+\S+\s+(?:\d+,\s*)?(\d+)\s+\w{3}\s+\d+\s+[\d:]+\s(.*)$/;
    const types = new Map<string, number>();
    const owners = new Map<string, number>();
    const files: { name: string; size: number; line: number }[] = [];
    let dir = '';
    let dirs = 0;
    let bytes = 0;
    lines.forEach((l, i) => {
      const m = entry.exec(l);
      if (!m) {
        if (l.endsWith(':')) [dir, dirs] = [l.slice(0, -1), dirs + 1];
        return;
      }
      const name = m[4].replace(/ -> .*$/, '');
      if (name === '.' || name === '..') return;
      bump(types, { '-': 'file', d: 'dir', l: 'link', c: 'char-device', b: 'block-device', p: 'fifo', s: 'socket' }[m[1]]!);
      bump(owners, m[2]);
      if (m[1] === '-') {
        bytes += Number(m[3]);
        files.push({ name: `${dir}/${name}`, size: Number(m[3]), line: i + 1 });
      }
    });
    const largest = [...files].sort((a, b) => b.size - a.size).slice(0, 5);
    // some of the largest files are past the first 256 KB: the sample alone would miss them
    expect(Buffer.byteLength(lines.slice(0, Math.max(...largest.map((f) => f.line))).join('\n'))).toBeGreaterThan(SAMPLE_BYTES);
    bothFacts(await descriptors(text), 'listing', (f) => {
      expect(f.entries).toBe([...types.values()].reduce((a, b) => a + b, 0));
      expect(f.directories_listed).toBe(dirs);
      expectCounts(f.by_type, types);
      expect(f.file_bytes).toBe(bytes);
      expect(f.largest).toEqual(largest);
      expectCounts(f.owners, owners);
    });
  });

  it('find: paths, their root, by extension and top directory, the depth', async () => {
    const { text, lines } = fixture('find-usr-share.txt');
    const paths = lines.filter((l) => !/ {2}|: |\t/.test(l));
    const root = '/usr/share';
    expect(paths.every((p) => p === root || p.startsWith(`${root}/`))).toBe(true);
    const ext = new Map<string, number>();
    const topDirs = new Map<string, number>();
    let depth = 0;
    for (const p of paths) {
      const base = p.slice(p.lastIndexOf('/') + 1);
      const dot = base.lastIndexOf('.');
      bump(ext, dot > 0 ? base.slice(dot) : '(none)');
      const rest = p.slice(root.length + 1);
      if (!rest) continue;
      const parts = rest.split('/');
      bump(topDirs, parts.length > 1 ? `${parts[0]}/` : parts[0]);
      depth = Math.max(depth, parts.length);
    }
    bothFacts(await descriptors(text), 'paths', (f) => {
      expect(f.paths).toBe(paths.length);
      expect(f.root).toBe(root);
      expectCounts(f.by_extension, ext);
      expectCounts(f.by_top_dir, topDirs);
      expect(f.max_depth).toBe(depth);
    });
  });

  it('strace -f: calls (a call cut by another process counts once), the failed ones by errno, the error lines', async () => {
    const { text, lines } = fixture('strace-f.txt');
    const calls = new Map<string, number>();
    const errnos = new Map<string, number>();
    const failed: number[] = [];
    lines.forEach((l, i) => {
      const done = /^\d+ +([a-z_0-9]+)\(.*\) += (\S+)(?: (E[A-Z]+))?/.exec(l);
      const cut = /^\d+ +([a-z_0-9]+)\(.*<unfinished \.\.\.>$/.exec(l);
      const resumed = /^\d+ +<\.\.\. ([a-z_0-9]+) resumed>.*\) += (\S+)(?: (E[A-Z]+))?/.exec(l);
      if (done || cut) bump(calls, (done ?? cut)![1]);
      const result = done ?? resumed;
      if (result && result[2] === '-1' && result[3]) {
        bump(errnos, result[3]);
        failed.push(i + 1);
      }
    });
    expect(lines.some((l) => l.includes('resumed>'))).toBe(true);
    const ds = await descriptors(text);
    bothFacts(ds, 'syscalls', (f) => {
      expect(f.calls).toBe([...calls.values()].reduce((a, b) => a + b, 0));
      expectCounts(f.by_call, calls);
      expect(f.failed).toBe(failed.length);
      expectCounts(f.by_errno, errnos);
    });
    expect(ds.d.summary.error_lines).toBe(failed.length);
    const shown = ds.d.preview.errors.map((e: string) => Number(e.slice(0, e.indexOf(':'))));
    for (const n of shown) expect(failed).toContain(n);
    expect(shown[0]).toBe(failed[0]);
  });

  it('git log -p and git diff: files changed, lines added and removed, hunks, the most changed files; the log\'s commits', async () => {
    for (const name of ['git-log-p.txt', 'git-diff-src.patch']) {
      const { text, lines } = fixture(name);
      const files: { file: string; '+': number; '-': number; line: number }[] = [];
      let hunks = 0;
      let inHunk = false;
      // a file's change is a `diff --git` section (a rename or a binary file has no +++ line), named by its +++
      let headed = false;
      lines.forEach((l, i) => {
        if (l.startsWith('diff --git ')) {
          files.push({ file: / b\/(.+)$/.exec(l)![1], '+': 0, '-': 0, line: i + 1 });
          [headed, inHunk] = [true, false];
        } else if (l.startsWith('+++ ')) {
          const to = l.slice(4).replace(/^b\//, '');
          const from = lines[i - 1].startsWith('--- ') ? lines[i - 1].slice(4).replace(/^a\//, '') : to;
          const file = to === '/dev/null' ? from : to;
          if (headed) files[files.length - 1].file = file;
          else files.push({ file, '+': 0, '-': 0, line: i + 1 });
          [headed, inHunk] = [false, false];
        } else if (l.startsWith('@@ ')) [hunks, inHunk] = [hunks + 1, true];
        else if (l.startsWith('diff ') || l.startsWith('commit ')) inHunk = false;
        else if (inHunk && (l[0] === '+' || l[0] === '-')) files[files.length - 1][l[0]]++;
      });
      const most = [...files].sort((a, b) => b['+'] + b['-'] - (a['+'] + a['-']));
      // a git log -p is the log and its diffs: its commits and authors beside the diffs' figures
      const log = name === 'git-log-p.txt';
      const authors = new Map<string, number>();
      for (const l of lines) if (l.startsWith('Author: ')) bump(authors, l.slice(8).replace(/\s*<[^>]*>$/, ''));
      bothFacts(await descriptors(text), log ? 'git-log' : 'diff', (f, full) => {
        if (log) {
          expect(f.commits).toBe(lines.filter((l) => /^commit [0-9a-f]{40}$/.test(l)).length);
          expect(f.authors_distinct).toBe(authors.size);
          expect(Object.entries(f.authors).filter(([k]) => k !== '(others)')).toEqual(
            [...authors].sort((a, b) => b[1] - a[1]).slice(0, Object.keys(f.authors).length - 1),
          );
          expect(f).not.toHaveProperty('files_changed');
        }
        expect(log ? f.file_changes : f.files_changed, name).toBe(files.length);
        expect(f.hunks).toBe(hunks);
        expect(f.lines_added).toBe(files.reduce((a, x) => a + x['+'], 0));
        expect(f.lines_removed).toBe(files.reduce((a, x) => a + x['-'], 0));
        const listed = (log ? f.most_changed_file_diffs : f.most_changed_files).filter((x: unknown) => typeof x === 'object');
        expect(listed).toEqual(most.slice(0, listed.length));
        if (full) expect(listed.length).toBe(Math.min(12, files.length));
      });
    }
  });

  it('pytest -v: tests passed and failed, the failing ones named', async () => {
    const { text, lines } = fixture('pytest-v.txt');
    const results = lines.map((l) => /^(\S+::\S+) (PASSED|FAILED|SKIPPED|ERROR)\b/.exec(l)).filter((m) => m !== null);
    const failing = results.filter((m) => m[2] === 'FAILED').map((m) => m[1]);
    expect(failing.length).toBe(37);
    const ds = await descriptors(text);
    bothFacts(ds, 'test-run', (f) => {
      expect([f.tests, f.passed, f.failed, f.skipped]).toEqual([results.length, results.length - failing.length, failing.length, 0]);
      expect(f.failing).toEqual(failing.slice(0, 20));
      expect(f.failing_not_named).toBe(failing.length - 20);
    });
    expect(ds.d.summary.error_lines).toBe(failing.length);
    expect(ds.d.guidance).toContain(`${failing.length} of ${results.length.toLocaleString('en-US')} tests failed`);
    // each failing test's own section (its heading under FAILURES to the line before the next), found by the test
    const block = lines.findIndex((l) => /^=+ FAILURES =+$/.test(l)) + 1;
    const blockEnd = lines.findIndex((l, i) => i >= block && /^=+ .+ =+$/.test(l));
    const headings = lines.map((l, i) => [i + 1, /^_{3,} (.+?) _{3,}$/.exec(l)?.[1]] as const).filter(([n, h]) => h && n > block);
    const sections = Object.fromEntries(
      failing.slice(0, 20).map((name) => {
        const k = headings.findIndex(([, h]) => h === name.split('::')[1]);
        const to = k + 1 < headings.length ? headings[k + 1][0] - 1 : blockEnd;
        return [name, `${headings[k][0]}:${to}`];
      }),
    );
    expect(block).toBeGreaterThan(0);
    expect(ds.d.summary.kind_facts.failures_section).toBe(`${block}:${blockEnd}`);
    expect(ds.d.summary.kind_facts.failure_lines).toEqual(sections);
    // the first next command reads the failures, not the progress lines
    expect(ds.d.guidance).toContain(`Next: \`lro read ${ds.d.id} --records ${block}:${block + 60}\``);
  });

  it('gcc: errors and warnings by file and by code', async () => {
    const { text, lines } = fixture('gcc-warnings.txt');
    const codes = new Map<string, number>();
    let errors = 0;
    let warnings = 0;
    for (const l of lines) {
      const m = /^big\.c:\d+:\d+: (error|warning): .*?(?:\[([\w/-]+)\])?$/.exec(l);
      if (!m) continue;
      if (m[1] === 'error') errors++;
      else warnings++;
      if (m[2]) bump(codes, m[2]);
    }
    expect(errors).toBe(12);
    const ds = await descriptors(text);
    bothFacts(ds, 'diagnostics', (f) => {
      expect([f.errors, f.warnings]).toEqual([errors, warnings]);
      expect(f.by_file).toEqual({ 'big.c': errors + warnings });
      expectCounts(f.by_code, codes);
    });
    expect(ds.d.summary.error_lines).toBe(errors);
  });

  it('an SQL dump: statements, tables created, rows inserted into each', async () => {
    const { text, lines } = fixture('sqlite-dump.sql');
    const rows = new Map<string, number>();
    let statements = 0;
    const created: string[] = [];
    for (const l of lines) {
      if (/^(CREATE|INSERT|DROP|ALTER|LOCK|UNLOCK|SET|BEGIN|COMMIT|PRAGMA|COPY|SELECT)\b/i.test(l)) statements++;
      const c = /^CREATE TABLE (\w+)/.exec(l);
      if (c) created.push(c[1]);
      const m = /^INSERT INTO (\w+)/.exec(l);
      if (m) bump(rows, m[1]);
    }
    expect(top(rows)).toEqual({ orders: 9000, customers: 700 });
    bothFacts(await descriptors(text), 'sql-dump', (f) => {
      expect(f.statements).toBe(statements);
      expect(f.tables_created).toEqual(created);
      expectCounts(f.rows_inserted, rows);
    });
  });

  it('a log: its lines, and no error line where nothing failed', async () => {
    const { text, lines } = fixture('dpkg.log');
    // (the log of a machine whose every package was installed: "status installed" ends each package's lines)
    expect(lines.some((l) => /liberror-perl|libgpg-error/.test(l))).toBe(true);
    const { d, full, prose } = await descriptors(text);
    for (const f of [d, full]) {
      expect(f.summary.count).toBe(lines.length);
      expect(f.summary.error_lines).toBe(0);
      expect(f.preview.errors).toBeUndefined();
    }
    expect(prose).toContain('No line looks like an error');
  });

  it('a TSV past its first lines: every row in its columns\' figures (du -a: the largest entry is far down)', async () => {
    const { text, lines } = fixture('du-a-usr-share.tsv');
    const sizes = lines.map((l) => Number(l.split('\t')[0]));
    const max = Math.max(...sizes);
    const maxLine = sizes.indexOf(max) + 1;
    // the largest is past the 256 KB the kind is decided from (else this tests nothing)
    expect(lines.slice(0, maxLine).join('\n').length).toBeGreaterThan(256 << 10);
    const { d, full, prose } = await descriptors(text);
    for (const f of [d, full]) {
      expect(f.summary.kind).toBe('tsv');
      const facts = f.summary.kind_facts;
      expect(facts.rows).toBe(lines.length);
      expect(facts).not.toHaveProperty('counted_over');
      expect(facts.columns[0]).toMatchObject({ name: '1', type: 'int', min: Math.min(...sizes), max, max_line: maxLine });
      // more paths than are counted one by one: a bound, in words
      expect(facts.columns[1].distinct).toBe('2,000 or more');
    }
    expect(d.guidance).toContain(`\`lro read ${d.id} --records ${maxLine}\``);
    expect(prose).not.toMatch(/counted_over|not totals/);
  });

  it('a table past its first lines (lsof): every row cut into the header\'s columns, numbers grown wider included', async () => {
    const { text, lines } = fixture('lsof.txt');
    const header = lines[0];
    // the test's own cut: lsof's columns by where the header's words end (numbers are aligned right under them)
    const pidEnd = header.indexOf('PID') + 3;
    const nodeEnd = header.indexOf('NODE') + 4;
    const pids = lines.slice(1).map((l) => Number(l.slice(0, pidEnd).trim().split(/\s+/).at(-1)));
    const nodes = lines.slice(1).map((l) => l.slice(nodeEnd - 12, nodeEnd).trim().split(/\s+/).at(-1) ?? '').filter((v) => /^\d+$/.test(v)).map(Number);
    const { d, full } = await descriptors(text);
    for (const f of [d, full]) {
      expect(f.summary.kind).toBe('table');
      const facts = f.summary.kind_facts;
      expect(facts.rows).toBe(lines.length - 1);
      expect(facts).not.toHaveProperty('lines_not_rows');
      expect(facts).not.toHaveProperty('counted_over');
      const col = (name: string) => facts.columns.find((c: { name: string }) => c.name === name);
      expect(col('PID')).toMatchObject({ type: 'int', min: Math.min(...pids), max: Math.max(...pids) });
      // NODE is empty on every line of the first 256 KB (processes lsof may not read), numbers after
      expect(nodes.length).toBeGreaterThan(0);
      expect(col('NODE')).toMatchObject({ type: 'int', min: Math.min(...nodes), max: Math.max(...nodes) });
      expect(col('USER').top).toEqual({ root: lines.length - 1 });
    }
  });
});
