// The questions an agent asks of each kind of output (issue 23, item 7), on the outputs of fixtures/outputs made
// 1 MB or more (`scale`: more rows, files, tests or entries of the same kind). Each is answered from the
// descriptor (call 1) and at most one more call, with no jq written (a command or recipe the descriptor printed
// may be run as printed); `truth` computes the answer from the input itself. Used by bench/economy.mjs (the
// table) and test/e2e/kinds-economy.test.ts (soak).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { stringify as yamlText } from 'yaml';

const OUTPUTS = new URL('../fixtures/outputs/', import.meta.url).pathname;
const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const MIN = 1_000_000;
export const fixture = (name) => readFileSync(OUTPUTS + name, 'utf8');
/** A real output of another folder of fixtures/ (whole, tables, error-lines), gunzipped when it is .gz. */
const fixtureAt = (path) => (path.endsWith('.gz') ? gunzipSync(readFileSync(FIXTURES + path)).toString('utf8') : readFileSync(FIXTURES + path, 'utf8'));

/** The first `head` lines, then copies of the rest (copy(i, line) may rename), until MIN bytes. */
function grow(text, head, copy = (_, l) => l) {
  const lines = text.replace(/\n$/, '').split('\n');
  const out = lines.slice(0, head);
  const body = lines.slice(head);
  let size = out.join('\n').length;
  for (let i = 0; size < MIN; i++) {
    for (const l of body) {
      const c = copy(i, l);
      out.push(c);
      size += c.length + 1;
    }
  }
  return `${out.join('\n')}\n`;
}

const rows = (text) => text.replace(/\n$/, '').split('\n');
const count = (out) => Number(/^(\d+)$/m.exec(out)?.[1] ?? NaN);
/** The text of the first line `lro read` (N: text) or `lro grep` (N:text) printed. */
const recordText = (out) => /^\d+: (.*)$/m.exec(out)?.[1] ?? '';
const grepText = (out) => /^\d+:(.*)$/m.exec(out)?.[1] ?? '';
const facts = (d) => d.summary.kind_facts;
/** The texts of the lines `lro read` printed (N: text), in order. */
const readTexts = (out) => [...out.matchAll(/^\d+: (.*)$/gm)].map((m) => m[1]);
/** `lro count --by`'s groups: value and count, most frequent first. */
const groups = (out) => [...out.matchAll(/^ *([\d,]+) +\d+ +(\S.*)$/gm)].map((m) => [m[2], Number(m[1].replace(/,/g, ''))]);
/** The lines of the section of a test run's text from a heading line (matched by `start`) to before `stop`. */
const section = (t, start, stop) => {
  const ls = rows(t);
  const from = ls.findIndex((l) => start.test(l));
  const to = ls.findIndex((l, i) => i > from && stop.test(l));
  return ls.slice(from, to < 0 ? ls.length : to);
};
const mode = (values) => {
  const c = new Map();
  for (const v of values) c.set(v, (c.get(v) ?? 0) + 1);
  return [...c].reduce((best, x) => (x[1] > best[1] ? x : best))[0];
};
const nextCall = (d, i) => {
  // the i-th command of the guidance, as printed (`lro …` in backticks), as argv
  const cmds = [...d.guidance.matchAll(/`lro ([^`]*)`/g)].map((m) => m[1]);
  return cmds[i].match(/'(?:[^']|'\\'')*'|\S+/g).map((w) => (w.startsWith("'") ? w.slice(1, -1).replace(/'\\''/g, "'") : w));
};
/** vitest's verbose run (bench/make-vitest-runs.mjs), its passing lines copied under new file names until MIN bytes. */
const vitestRun = () => {
  const t = fixture('vitest-verbose.txt');
  const passing = rows(t).filter((l) => /^ ✓ /.test(l));
  return grow(`${t}${passing.join('\n')}\n`, rows(t).length, (i, l) => l.replace(/^ ✓ (\w+)\.test\.js/, ` ✓ $1_${i}.test.js`));
};
/** node --test's TAP run (bench/make-node-test-runs.mjs), its passing tests' lines copied under new names. */
const tapRun = () => {
  const t = fixture('node-test-tap.txt');
  const passing = rows(t).filter((l) => /^ {4}ok \d+ - \w+ \d+$/.test(l));
  return grow(`${t}${passing.join('\n')}\n`, rows(t).length, (i, l) => `${l}_${i}`);
};
/** vitest's JUnit report (bench/make-vitest-runs.mjs), its passing testcases copied under new file names until MIN bytes. */
const junitRun = () => {
  const t = rows(fixture('vitest-junit.xml'));
  const end = t.lastIndexOf('    </testsuite>');
  const passing = [];
  for (let i = 0; i < t.length - 1; i++) if (/^ +<testcase /.test(t[i]) && /^ +<\/testcase>$/.test(t[i + 1])) passing.push(t[i], t[i + 1]);
  const copies = [];
  for (let i = 0, size = t.join('\n').length; size < MIN; i++) {
    for (const l of passing) {
      const c = l.replace(/classname="(\w+)\.test\.js"/, `classname="$1_${i}.test.js"`);
      copies.push(c);
      size += c.length + 1;
    }
  }
  return `${[...t.slice(0, end), ...copies, ...t.slice(end)].join('\n')}\n`;
};
/** pytest's JUnit report (bench/make-pytest-junit.mjs, few long lines), its passing testcases copied under new class names until MIN bytes. */
const pytestJunitRun = () => {
  const t = fixture('pytest-junit.xml');
  const passing = t.match(/<testcase classname="test_suite" name="test_error_handling_\d+" time="[\d.]+" \/>/g);
  const copies = [];
  for (let i = 0, size = t.length; size < MIN; i++) {
    for (const c of passing) {
      const copy = c.replace('classname="test_suite"', `classname="test_suite_${i}"`);
      copies.push(copy);
      size += copy.length;
    }
  }
  return t.replace('</testsuite>', `${copies.join('')}</testsuite>`);
};
/** The lock file with copies of its packages until MIN bytes. */
function bigLock() {
  const lock = JSON.parse(fixture('package-lock.json'));
  const base = Object.entries(lock.packages);
  for (let i = 0; JSON.stringify(lock).length < MIN; i++) for (const [k, v] of base) if (k) lock.packages[`${k}-copy${i}`] = v;
  return `${JSON.stringify(lock, null, 2)}\n`;
}
/** kubectl get pods -A -o yaml of the pods of kubectl-get-pods.json, copied (renamed) until MIN bytes, as kubectl writes it. */
function bigPodsYaml() {
  const list = JSON.parse(fixture('kubectl-get-pods.json'));
  const items = [];
  for (let i = 0; items.length * 370 < MIN; i++) items.push(...list.items.map((p) => ({ ...p, metadata: { ...p.metadata, name: `${p.metadata.name}-${i}` } })));
  return yamlText({ ...list, items }, { sortMapEntries: true, indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false });
}
const maxBy = (items, key) => items.reduce((best, x) => (key(x) > key(best) ? x : best));

/**
 * Whether a call's arguments hold a filter the asker wrote: a grep pattern with regex syntax (not -F, not a plain
 * word) or a jq filter, unless the descriptor printed that very command. lro's own verbs (read, count --by, where
 * FIELD=VALUE) write none.
 */
export function writtenFilter(args, d) {
  const printed = [d.guidance, ...(d.jq_recipes ?? []).map((r) => r.command)].join('\n');
  const command = args.map((a) => (a === 'ID' ? d.id : /^[\w./:=,-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(' ');
  if (printed.includes(`lro ${command}`)) return false;
  if (args[0] === 'jq') return true;
  if (args[0] !== 'grep' || args.includes('-F')) return false;
  return /[\\^$.*+?()[\]{}|]/.test(args[2]);
}

export const KIND_TASKS = [
  {
    name: 'find: how many .h files',
    kind: 'paths',
    input: () => grow(fixture('find-usr-include.txt'), 0, (i, l) => l.replace('/usr/include', `/usr/include/v${i}`)),
    calls: (d) => [nextCall(d, 0)],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).filter((l) => l.endsWith('.h')).length,
  },
  {
    name: 'ls -l: the largest file',
    kind: 'listing',
    input: () => grow(fixture('ls-l-usr-bin.txt'), 1),
    calls: () => [],
    answer: (_, d) => facts(d).largest[0].name,
    truth: (t) => maxBy(rows(t).filter((l) => l.startsWith('-')), (l) => Number(l.split(/\s+/)[4])).split(/\s+/).slice(8).join(' '),
  },
  {
    name: 'ls -laR: how many directories listed',
    kind: 'listing',
    input: () => grow(fixture('ls-laR-share-doc.txt'), 0, (i, l) => l.replace(/^\/usr\/share\/doc/, `/usr/share/doc${i}`)),
    calls: () => [['grep', 'ID', '^/.*:$', '-c']],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).filter((l) => /^\/.*:$/.test(l)).length,
  },
  {
    name: 'ps aux: the process using the most memory',
    kind: 'table',
    input: () => grow(fixture('ps-aux.txt'), 1),
    calls: (d) => [['read', 'ID', '--records', String(facts(d).columns.find((c) => c.name === '%MEM').max_line)]],
    answer: (outs) => recordText(outs[1]).trim().split(/\s+/).slice(10).join(' '),
    truth: (t) => maxBy(rows(t).slice(1), (l) => Number(l.trim().split(/\s+/)[3])).trim().split(/\s+/).slice(10).join(' '),
  },
  {
    name: 'ps aux: how many root processes use more than 0.5% CPU',
    kind: 'table',
    input: () => grow(fixture('ps-aux.txt'), 1),
    calls: () => [['where', 'ID', '%CPU>0.5', 'USER=root', '-c']],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).slice(1).filter((l) => l.split(/\s+/)[0] === 'root' && Number(l.split(/\s+/)[2]) > 0.5).length,
  },
  {
    name: 'df -h: the fullest filesystem',
    kind: 'table',
    input: () => grow(fixture('df-h.txt'), 1, (i, l) => l.replace(/^(\S+)/, `$1-${i}`)),
    calls: (d) => [['read', 'ID', '--records', String(facts(d).columns.find((c) => c.name === 'Use%').max_line)]],
    answer: (outs) => recordText(outs[1]).split(/\s+/)[0],
    truth: (t) => maxBy(rows(t).slice(1), (l) => Number(l.split(/\s+/)[4].replace('%', ''))).split(/\s+/)[0],
  },
  {
    name: 'kubectl get pods: how many in CrashLoopBackOff',
    kind: 'table',
    input: () => grow(fixture('kubectl-get-pods.txt'), 1),
    calls: () => [['grep', 'ID', 'CrashLoopBackOff', '-w', '-c']],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).filter((l) => l.split(/\s+/)[3] === 'CrashLoopBackOff').length,
  },
  {
    name: 'docker ps: which image most containers run',
    kind: 'table',
    input: () => grow(fixture('docker-ps.txt'), 1),
    calls: () => [],
    answer: (_, d) => Object.keys(facts(d).columns.find((c) => c.name === 'IMAGE').top)[0],
    truth: (t) => {
      const c = {};
      for (const l of rows(t).slice(1)) c[l.split(/\s{2,}/)[1]] = (c[l.split(/\s{2,}/)[1]] ?? 0) + 1;
      const most = Math.max(...Object.values(c));
      // (images run by as many containers as the most are each an answer)
      return Object.keys(c).filter((k) => c[k] === most);
    },
    compare: (answer, most) => most.includes(answer),
  },
  {
    name: 'CSV: how many orders are in error',
    kind: 'csv',
    input: () => grow(fixture('orders.csv'), 1),
    calls: () => [['grep', 'ID', ',error,', '-F', '-c']],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).filter((l) => l.split(',')[2] === 'error').length,
  },
  {
    name: 'TSV: the highest order total',
    kind: 'tsv',
    input: () => grow(fixture('orders.tsv'), 1),
    calls: () => [],
    answer: (_, d) => facts(d).columns.find((c) => c.name === 'total').max,
    truth: (t) => Math.max(...rows(t).slice(1).map((l) => Number(l.split('\t')[3]))),
  },
  {
    name: 'du -a: the biggest entry',
    kind: 'tsv',
    input: () => grow(fixture('du-a.tsv'), 0, (i, l) => l.replace('/usr/share/doc', `/usr/share/doc${i}`)),
    calls: (d) => [['read', 'ID', '--records', String(facts(d).columns[0].max_line)]],
    answer: (outs) => recordText(outs[1]).split('\t')[1],
    truth: (t) => maxBy(rows(t), (l) => Number(l.split('\t')[0])).split('\t')[1],
  },
  {
    name: 'git diff: the file changed most',
    kind: 'diff',
    input: () => grow(fixture('git-diff.patch'), 0, (i, l) => l.replace(/ ([ab])\/src\//g, ` $1/v${i}/src/`).replace(/^(\+\+\+|---) ([ab])\/src\//, `$1 $2/v${i}/src/`)),
    calls: () => [],
    answer: (_, d) => facts(d).most_changed_files[0].file,
    truth: (t) => {
      const per = new Map();
      let file = null;
      let hunk = false;
      for (const l of rows(t)) {
        if (l.startsWith('+++ ')) (file = l.slice(6)), per.set(file, 0), (hunk = false);
        else if (l.startsWith('@@ ')) hunk = true;
        else if (l.startsWith('diff ')) hunk = false;
        else if (hunk && file && /^[+-]/.test(l)) per.set(file, per.get(file) + 1);
      }
      return maxBy([...per], (e) => e[1])[0];
    },
  },
  {
    name: 'git log --stat: commits by the top author',
    kind: 'git-log',
    input: () => grow(fixture('git-log-stat.txt'), 0),
    calls: (d) => [nextCall(d, 0)],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).filter((l) => l.startsWith('Author: Seed')).length,
  },
  {
    name: 'pytest -v: which tests failed',
    kind: 'test-run',
    input: () => {
      const t = fixture('pytest-v.txt');
      const passing = rows(t).filter((l) => / PASSED /.test(l));
      return grow(`${t}${passing.join('\n')}\n`, rows(t).length, (i, l) => l.replace('test_sample.py', `test_more_${i}.py`));
    },
    calls: () => [],
    answer: (_, d) => [...facts(d).failing].sort(),
    truth: (t) => [...new Set(rows(t).filter((l) => / FAILED /.test(l)).map((l) => l.split(' ')[0]))].sort(),
  },
  {
    name: 'go test -v: which tests failed',
    kind: 'test-run',
    input: () => {
      const t = fixture('go-test-v.txt');
      const passing = rows(t).filter((l) => /--- PASS: /.test(l));
      return grow(`${t}${passing.join('\n')}\n`, rows(t).length, (i, l) => l.replace(/(Test\w+)/, `$1_${i}`));
    },
    calls: () => [],
    answer: (_, d) => [...facts(d).failing].sort(),
    truth: (t) => [...new Set(rows(t).filter((l) => /^\s*--- FAIL: /.test(l)).map((l) => l.trim().split(' ')[2]))].sort(),
  },
  {
    name: 'go test -json: which tests failed',
    kind: 'test-run',
    input: () => {
      const t = fixture('go-test.jsonl');
      const failed = new Set(rows(t).map((l) => JSON.parse(l)).filter((e) => e.Action === 'fail').map((e) => e.Package));
      const passed = rows(t).filter((l) => !failed.has(JSON.parse(l).Package));
      return grow(`${t}${passed.join('\n')}\n`, rows(t).length, (i, l) => l.replace(/"Package":"([^"]*)"/, `"Package":"$1/copy${i}"`));
    },
    calls: () => [],
    answer: (_, d) => [...facts(d).failing].sort(),
    truth: (t) => [...new Set(rows(t).map((l) => JSON.parse(l)).filter((e) => e.Action === 'fail' && e.Test).map((e) => `${e.Package} ${e.Test}`))].sort(),
  },
  {
    name: 'jest --json: which tests failed',
    kind: 'test-run',
    input: () => {
      const run = JSON.parse(fixture('jest.json'));
      const passing = run.testResults.filter((f) => f.status === 'passed');
      for (let i = 0; JSON.stringify(run).length < MIN; i++) run.testResults.push(...passing.map((f) => ({ ...f, name: f.name.replace('.test.js', `.copy${i}.test.js`) })));
      return `${JSON.stringify(run)}\n`;
    },
    calls: () => [],
    answer: (_, d) => [...facts(d).failing].sort(),
    truth: (t) => JSON.parse(t).testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === 'failed').map((a) => `${f.name.split('/').slice(-2).join('/')} › ${a.fullName}`)).sort(),
  },
  {
    name: 'tsc: the most frequent error code',
    kind: 'diagnostics',
    input: () => grow(fixture('tsc-errors.txt'), 0, (i, l) => l.replace('broken.ts', `src/file${i}.ts`)),
    calls: () => [],
    answer: (_, d) => Object.keys(facts(d).by_code)[0],
    truth: (t) => {
      const c = {};
      for (const m of t.matchAll(/error (TS\d+):/g)) c[m[1]] = (c[m[1]] ?? 0) + 1;
      return maxBy(Object.entries(c), (e) => e[1])[0];
    },
  },
  {
    name: 'gcc: how many errors',
    kind: 'diagnostics',
    input: () => grow(fixture('gcc-errors.txt'), 0, (i, l) => l.replace(/^broken\.c/, `src/file${i}.c`)),
    calls: () => [['grep', 'ID', ': error: ', '-F', '-c']],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).filter((l) => l.includes(': error: ')).length,
  },
  {
    name: 'cargo build: which error codes',
    kind: 'diagnostics',
    input: () => grow(fixture('cargo-errors.txt'), 0),
    calls: () => [],
    answer: (_, d) => Object.keys(facts(d).by_code).sort(),
    truth: (t) => [...new Set([...t.matchAll(/^error\[(E\d+)\]/gm)].map((m) => m[1]))].sort(),
  },
  {
    name: 'strace: how many calls failed',
    kind: 'syscalls',
    input: () => grow(fixture('strace.txt'), 0),
    calls: (d) => [nextCall(d, 0)],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).filter((l) => / = -1 E[A-Z]+/.test(l)).length,
  },
  {
    name: 'SQL dump: rows inserted into orders',
    kind: 'sql-dump',
    input: () => grow(fixture('shop-dump.sql'), 3),
    calls: () => [['grep', 'ID', '^INSERT INTO orders ', '-c']],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).filter((l) => l.startsWith('INSERT INTO orders ')).length,
  },
  {
    name: 'HTML: the page title',
    kind: 'html',
    input: () => {
      const t = fixture('pydoc-json.html');
      return grow(t, rows(t).length - 2);
    },
    calls: () => [],
    answer: (_, d) => facts(d).title,
    truth: (t) => /<title>([^<]*)/.exec(t)[1],
  },
  {
    name: 'minified JS: does it name a source map',
    kind: 'minified',
    input: () => grow(fixture('lodash.min.js'), 4),
    calls: () => [['grep', 'ID', 'sourceMappingURL', '-F', '-c']],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).filter((l) => l.includes('sourceMappingURL')).length,
  },
  {
    name: 'env: the value of PATH',
    kind: 'env',
    input: () => grow(fixture('env.txt'), 0, (i, l) => (l.startsWith('PATH=') && i === 0 ? l : l.replace(/^([A-Z_]+)=/, `$1_${i}=`))),
    calls: (d) => [nextCall(d, 0)],
    answer: (outs) => grepText(outs[1]).slice(5),
    truth: (t) => rows(t).find((l) => l.startsWith('PATH=')).slice(5),
  },
  {
    name: 'package-lock.json: how many dev packages',
    kind: 'json-map',
    input: () => bigLock(),
    calls: () => [],
    answer: (_, d) => facts(d).top_values['.dev'].true,
    truth: (t) => Object.values(JSON.parse(t).packages).filter((p) => p.dev === true).length,
  },
  {
    name: 'package-lock.json: how many packages are MIT licensed',
    kind: 'json-map',
    input: () => bigLock(),
    calls: () => [['count', 'ID', 'value.license=MIT']],
    answer: (outs) => count(outs[1]),
    truth: (t) => Object.values(JSON.parse(t).packages).filter((p) => p.license === 'MIT').length,
  },
  {
    name: 'npm ls --json: how many packages in the tree',
    kind: 'json-tree',
    input: () => {
      const tree = JSON.parse(fixture('npm-ls.json'));
      const base = Object.entries(tree.dependencies);
      for (let i = 0; JSON.stringify(tree).length < MIN; i++) for (const [k, v] of base) tree.dependencies[`${k}-copy${i}`] = v;
      return `${JSON.stringify(tree, null, 2)}\n`;
    },
    calls: () => [],
    answer: (_, d) => facts(d).tree.nodes,
    truth: (t) => {
      let n = 0;
      const walk = (m) => Object.values(m).forEach((v) => (n++, v.dependencies && walk(v.dependencies)));
      walk(JSON.parse(t).dependencies);
      return n;
    },
  },
  {
    name: 'kubectl get -o json: pods per phase',
    kind: 'json-records',
    input: () => {
      const list = JSON.parse(fixture('kubectl-get-pods.json'));
      const base = list.items;
      for (let i = 0; JSON.stringify(list).length < MIN; i++) list.items.push(...base.map((p) => ({ ...p, metadata: { ...p.metadata, name: `${p.metadata.name}-${i}` } })));
      return `${JSON.stringify(list, null, 2)}\n`;
    },
    calls: (d) => [nextCall(d, 1)],
    answer: (outs) => Object.fromEntries([...outs[1].matchAll(/^ *([\d,]+) +[\d.]+%? +(\S.*)$/gm)].map((m) => [m[2], Number(m[1].replace(/,/g, ''))])),
    truth: (t) => {
      const c = {};
      for (const p of JSON.parse(t).items) c[p.status.phase] = (c[p.status.phase] ?? 0) + 1;
      return c;
    },
    compare: (a, b) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort()),
  },
  {
    name: 'docker inspect: containers killed for memory',
    kind: 'json-records',
    input: () => {
      const base = JSON.parse(fixture('docker-inspect.json'));
      const all = [];
      for (let i = 0; JSON.stringify(all).length < MIN; i++) all.push(...base.map((c) => ({ ...c, Name: `${c.Name}_${i}` })));
      return `${JSON.stringify(all, null, 2)}\n`;
    },
    calls: () => [['where', 'ID', 'State.OOMKilled=true', '-c']],
    answer: (outs) => count(outs[1]),
    truth: (t) => JSON.parse(t).filter((c) => c.State.OOMKilled).length,
  },
  {
    name: 'curl -v: the HTTP status',
    kind: 'http-trace',
    input: () => {
      const t = fixture('curl-v.txt');
      const body = rows(t).find((l) => l.startsWith('['));
      return t.replace(body, JSON.stringify(Array.from({ length: 25_000 }, (_, i) => ({ id: i, name: `item ${i}`, state: i % 9 ? 'ok' : 'degraded' }))));
    },
    calls: () => [['grep', 'ID', '^< HTTP', '-m', '1']],
    answer: (outs) => grepText(outs[1]).split(' ')[2],
    truth: (t) => /^< HTTP\/\S+ (\d+)/m.exec(t)[1],
  },
  // --- issue 38: more real outputs, each a different command, the failures of test runs read where they are ---
  {
    name: 'cargo test: why tests::off_by_one failed',
    kind: 'test-run',
    input: () => {
      const t = fixture('cargo-test.txt');
      const passing = rows(t).filter((l) => / \.\.\. ok$/.test(l));
      return grow(`${t}${passing.join('\n')}\n`, rows(t).length, (i, l) => l.replace('tests::', `tests_${i}::`));
    },
    calls: (d) => [['read', 'ID', '--records', facts(d).failure_lines['tests::off_by_one']]],
    answer: (outs) => {
      const ls = readTexts(outs[1]);
      return ls[ls.findIndex((l) => l.includes('panicked at')) + 1];
    },
    truth: (t) => {
      const ls = rows(t);
      return ls[ls.findIndex((l) => l.startsWith("thread 'tests::off_by_one'")) + 1];
    },
  },
  {
    name: 'pytest -v: the assertion that failed test_parse_case_22',
    kind: 'test-run',
    input: () => {
      const t = fixture('pytest-v.txt');
      const passing = rows(t).filter((l) => / PASSED /.test(l));
      return grow(`${t}${passing.join('\n')}\n`, rows(t).length, (i, l) => l.replace('test_sample.py', `test_more_${i}.py`));
    },
    calls: (d) => [['read', 'ID', '--records', facts(d).failure_lines['test_sample.py::test_parse_case_22']]],
    answer: (outs) => readTexts(outs[1]).find((l) => l.startsWith('E ')),
    truth: (t) => section(t, /^_+ test_parse_case_22 _+$/, /^_+ \S+ _+$|^=+ /).find((l) => l.startsWith('E ')),
  },
  {
    name: 'go test -v: what TestFailedWithStderr said',
    kind: 'test-run',
    input: () => {
      const t = fixture('go-test-v.txt');
      const passing = rows(t).filter((l) => /--- PASS: /.test(l));
      return grow(`${t}${passing.join('\n')}\n`, rows(t).length, (i, l) => l.replace(/(Test\w+)/, `$1_${i}`));
    },
    calls: (d) => [['read', 'ID', '--records', facts(d).failure_lines.TestFailedWithStderr]],
    answer: (outs) => readTexts(outs[1]).find((l) => /_test\.go:\d+: /.test(l))?.trim(),
    truth: (t) => section(t, /^=== RUN +TestFailedWithStderr$/, /^--- FAIL: TestFailedWithStderr /).find((l) => /_test\.go:\d+: /.test(l))?.trim(),
  },
  {
    name: 'vitest --reporter=verbose: which tests failed',
    kind: 'test-run',
    input: () => vitestRun(),
    calls: () => [],
    answer: (_, d) => [...facts(d).failing].sort(),
    truth: (t) => [...new Set(rows(t).filter((l) => /^ × /.test(l)).map((l) => l.slice(3)))].sort(),
  },
  {
    name: 'vitest --reporter=verbose: the assertion that failed parse > case 13',
    kind: 'test-run',
    input: () => vitestRun(),
    calls: (d) => [['read', 'ID', '--records', facts(d).failure_lines['parse.test.js > parse > case 13']]],
    answer: (outs) => readTexts(outs[1]).find((l) => l.startsWith('AssertionError')),
    truth: (t) => section(t, /^ FAIL {2}parse\.test\.js > parse > case 13$/, /^⎯/).find((l) => l.startsWith('AssertionError')),
  },
  {
    name: 'JUnit XML (vitest): how many tests passed, failed, were skipped',
    kind: 'test-run',
    input: () => junitRun(),
    calls: () => [],
    answer: (_, d) => [facts(d).passed, facts(d).failed, facts(d).skipped],
    truth: (t) => {
      const cases = t.split('<testcase ').slice(1).map((c) => c.slice(0, c.indexOf('</testcase>')));
      const failed = cases.filter((c) => c.includes('<failure')).length;
      const skipped = cases.filter((c) => c.includes('<skipped')).length;
      return [cases.length - failed - skipped, failed, skipped];
    },
  },
  {
    name: 'JUnit XML (vitest): the assertion that failed parse > case 13',
    kind: 'test-run',
    input: () => junitRun(),
    calls: (d) => [['read', 'ID', '--records', facts(d).failure_lines['parse.test.js > parse > case 13']]],
    answer: (outs) => readTexts(outs[1]).find((l) => l.startsWith('AssertionError')),
    truth: (t) => section(t, /^ +<testcase classname="parse\.test\.js" name="parse &gt; case 13"/, /^ +<\/testcase>$/).find((l) => l.startsWith('AssertionError')),
  },
  {
    name: 'JUnit XML (pytest, few long lines): how many tests passed, failed, were skipped',
    kind: 'test-run',
    input: () => pytestJunitRun(),
    calls: () => [],
    answer: (_, d) => [facts(d).passed, facts(d).failed, facts(d).skipped],
    truth: (t) => {
      const cases = t.split('<testcase ').slice(1);
      const failed = cases.filter((c) => /^[^>]*[^/]>\s*<failure/.test(c)).length;
      const skipped = cases.filter((c) => /^[^>]*[^/]>\s*<skipped/.test(c)).length;
      return [cases.length - failed - skipped, failed, skipped];
    },
  },
  {
    name: 'JUnit XML (pytest, few long lines): where test_parse_case_260 failed (its file and line)',
    kind: 'test-run',
    input: () => pytestJunitRun(),
    calls: (d) => [['read', 'ID', '--chars', facts(d).failure_chars['test_suite > test_parse_case_260'], '--raw']],
    answer: (outs) => /^(test_suite\.py:\d+): AssertionError/m.exec(outs[1])?.[1],
    truth: (t) => {
      const at = t.indexOf('<testcase classname="test_suite" name="test_parse_case_260"');
      return /^(test_suite\.py:\d+): AssertionError/m.exec(t.slice(at, t.indexOf('</testcase>', at)))?.[1];
    },
  },
  {
    name: 'node --test (TAP): how many tests passed, failed, were skipped',
    kind: 'test-run',
    input: () => tapRun(),
    calls: () => [],
    answer: (_, d) => [facts(d).passed, facts(d).failed, facts(d).skipped],
    // node's own count of the first run, and each copied line a test more
    truth: (t) => {
      const own = (w) => Number(new RegExp(`^# ${w} (\\d+)$`, 'm').exec(t)[1]);
      const copied = rows(t).slice(rows(fixture('node-test-tap.txt')).length);
      return [own('pass') + copied.length, own('fail'), own('skipped')];
    },
  },
  {
    name: 'node --test (TAP): what the failing cart > total 14 got',
    kind: 'test-run',
    input: () => tapRun(),
    calls: (d) => [['read', 'ID', '--records', facts(d).failure_lines['cart > total 14']]],
    answer: (outs) => readTexts(outs[1]).find((l) => /^\s+actual: /.test(l))?.trim(),
    truth: (t) => section(t, /^\s+not ok \d+ - total 14$/, /^\s+\.\.\.$/).find((l) => /^\s+actual: /.test(l))?.trim(),
  },
  {
    name: 'lsof: the command holding the most files open',
    kind: 'table',
    input: () => grow(fixtureAt('whole/lsof.txt.gz'), 1),
    calls: () => [['count', 'ID', '--by', 'COMMAND']],
    answer: (outs) => groups(outs[1])[0]?.[0],
    truth: (t) => mode(rows(t).slice(1).map((l) => l.split(/\s+/)[0])),
  },
  {
    name: 'du -a /usr/share: the biggest entry, far past the first lines',
    kind: 'tsv',
    input: () => grow(fixtureAt('whole/du-a-usr-share.tsv.gz'), 0, (i, l) => l.replace('/usr/share', `/usr/share${i}`)),
    calls: (d) => [['read', 'ID', '--records', String(facts(d).columns[0].max_line)]],
    answer: (outs) => recordText(outs[1]).split('\t')[1],
    truth: (t) => maxBy(rows(t), (l) => Number(l.split('\t')[0])).split('\t')[1],
  },
  {
    name: 'dpkg -l: how many packages are for amd64',
    kind: 'table',
    input: () => grow(fixtureAt('tables/dpkg-l.txt'), 5),
    calls: () => [],
    answer: (_, d) => facts(d).columns.find((c) => c.name === 'Architecture').top.amd64,
    truth: (t) => rows(t).filter((l) => /^ii /.test(l) && l.split(/\s+/)[3] === 'amd64').length,
  },
  {
    name: 'git log -p: how many commits Grace Hopper made',
    kind: 'git-log',
    input: () => grow(fixtureAt('whole/git-log-p.txt.gz'), 0),
    calls: () => [],
    answer: (_, d) => facts(d).authors['Grace Hopper'],
    truth: (t) => rows(t).filter((l) => l.startsWith('Author: Grace Hopper ')).length,
  },
  {
    name: 'strace -f: the most frequent system call',
    kind: 'syscalls',
    input: () => grow(fixtureAt('whole/strace-f.txt.gz'), 0),
    calls: () => [],
    answer: (_, d) => Object.keys(facts(d).by_call)[0],
    truth: (t) => mode(rows(t).map((l) => /^(?:\d+ +)?([a-z_0-9]+)\(/.exec(l)?.[1]).filter(Boolean)),
  },
  {
    name: 'sqlite3 .dump: rows inserted into customers',
    kind: 'sql-dump',
    input: () => grow(fixtureAt('whole/sqlite-dump.sql.gz'), 0),
    calls: () => [],
    answer: (_, d) => facts(d).rows_inserted.customers,
    truth: (t) => rows(t).filter((l) => l.startsWith('INSERT INTO customers ')).length,
  },
  {
    name: 'gcc -Wall: how many errors among the warnings',
    kind: 'diagnostics',
    input: () => grow(fixtureAt('whole/gcc-warnings.txt.gz'), 0),
    calls: () => [],
    answer: (_, d) => facts(d).errors,
    truth: (t) => rows(t).filter((l) => / error: /.test(l)).length,
  },
  {
    name: 'apt-cache dumpavail: packages in section libs',
    kind: 'deb822',
    input: () => grow(fixtureAt('error-lines/ok/apt-cache-dumpavail.txt.gz'), 0),
    calls: () => [],
    answer: (_, d) => facts(d).by_section.libs,
    truth: (t) => rows(t).filter((l) => l === 'Section: libs').length,
  },
  {
    name: 'a loghub CSV: the most frequent component',
    kind: 'csv',
    input: () => grow(fixtureAt('tables/linux-structured.csv'), 1),
    calls: () => [['count', 'ID', '--by', 'Component']],
    answer: (outs) => groups(outs[1])[0]?.[0],
    truth: (t) => mode(rows(t).slice(1).map((l) => l.split(',')[5])),
  },
  {
    name: 'dpkg.log: how many upgrades',
    kind: 'log',
    input: () => grow(fixtureAt('whole/dpkg.log.gz'), 0),
    calls: () => [['grep', 'ID', ' upgrade ', '-F', '-c']],
    answer: (outs) => count(outs[1]),
    truth: (t) => rows(t).filter((l) => l.includes(' upgrade ')).length,
  },
  {
    name: 'stat: the largest file',
    kind: 'stat',
    input: () => grow(fixture('stat-usr-bin.txt'), 0, (i, l) => l.replace(/^ {2}File: \//, `  File: /copy${i}/`)),
    calls: () => [],
    answer: (_, d) => facts(d).largest[0].file,
    truth: (t) => {
      const ls = rows(t);
      let best = { size: -1, file: '' };
      ls.forEach((l, i) => {
        const size = /^ {2}Size: (\d+)/.exec(l);
        if (size && Number(size[1]) > best.size) best = { size: Number(size[1]), file: ls[i - 1].slice('  File: '.length) };
      });
      return best.file;
    },
  },
  {
    name: 'kubectl get pods -o yaml: how many pods failed',
    kind: 'yaml',
    input: bigPodsYaml,
    // the descriptor's first next command, a field of the List's items counted
    calls: () => [['count', 'ID', '--by', 'status.phase']],
    answer: (outs) => groups(outs[1]).find(([v]) => v === 'Failed')?.[1],
    truth: (t) => rows(t).filter((l) => l === '    phase: Failed').length,
  },
  {
    name: 'packages.csv: the largest installed package',
    kind: 'csv',
    input: () => grow(fixtureAt('tables/packages.csv'), 1, (i, l) => l.replace(/^([^,]+)/, `$1-${i}`)),
    calls: (d) => [['read', 'ID', '--records', String(facts(d).columns.find((c) => c.name === 'installed size').max_line)]],
    answer: (outs) => recordText(outs[1]).split(',')[0],
    truth: (t) => maxBy(rows(t).slice(1), (l) => Number(l.split(',')[2])).split(',')[0],
  },
];
