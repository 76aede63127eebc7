// Makes the corpus of command outputs in fixtures/outputs (issue 23, item 7): each file the output of a real tool
// on the machine it runs on where the tool is there, else generated here (the MANIFEST.md it writes says which).
// Real outputs are scrubbed of the machine's own paths and names; none holds an environment value. Each file is
// kept under 200 KB. Usage: node bench/make-outputs.mjs [OUTDIR]   (default fixtures/outputs)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync, copyFileSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = process.argv[2] ?? join(root, 'fixtures/outputs');
mkdirSync(out, { recursive: true });
const MAX = 200_000;
const manifest = [];
const scratch = mkdtempSync(join(tmpdir(), 'lro-outputs-'));

/** The machine's own paths and names out of a real output. */
function scrub(text) {
  return text
    .split(scratch).join('/home/user/project')
    .replace(/\/(?:tmp|work)\/[^\s'"):,]*/g, '/home/user/project')
    .replace(/\/root\b/g, '/home/user')
    .split(hostname()).join('buildhost');
}

/** Lines of text up to MAX bytes. */
function cap(text) {
  if (Buffer.byteLength(text) <= MAX) return text;
  const cut = text.slice(0, MAX);
  return cut.slice(0, cut.lastIndexOf('\n') + 1);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...opts });
  if (r.error) return null;
  return (r.stdout ?? '') + (opts.stderr ? (r.stderr ?? '') : '');
}

function save(name, how, text, generated = false) {
  if (text == null || text === '') return console.error(`skipped ${name}: ${how} gave nothing`);
  writeFileSync(join(out, name), generated ? text : cap(scrub(text)));
  manifest.push(`| ${name} | ${how} | ${generated ? 'generated' : 'real'} |`);
}

// --- real tools ---------------------------------------------------------------------------------------------
save('find-usr-include.txt', '`find /usr/include -maxdepth 3`', run('find', ['/usr/include', '-maxdepth', '3']));
save('ls-l-usr-bin.txt', '`ls -l /usr/bin`', run('ls', ['-l', '/usr/bin']));
save('ls-lh-usr-bin.txt', '`ls -lh /usr/bin` (sizes in K, M, G)', run('ls', ['-lh', '/usr/bin']));
save('ls-laR-share-doc.txt', '`ls -laR /usr/share/doc`, first 2,000 lines', run('ls', ['-laR', '/usr/share/doc'])?.split('\n').slice(0, 2000).join('\n') + '\n');
// the COMMAND column cut to the program's name: a command line can hold anything
// (a kernel thread keeps its [name]; programs other than common ones are called "worker")
const COMMON = new Set(['bash', 'sh', 'node', 'npm', 'ps', 'tail', 'head', 'grep', 'sleep', 'python3', 'git', 'sshd', 'cron', 'init', 'systemd']);
const command = (cmd) => (cmd.startsWith('[') ? cmd : COMMON.has(cmd.split('/').pop()) ? cmd.split('/').pop() : 'worker');
const ps = run('ps', ['aux'])?.split('\n').map((l, i) => (i === 0 ? l : l.replace(/^((?:\S+\s+){10})(\S*).*$/, (_, head, cmd) => head + command(cmd))));
save('ps-aux.txt', '`ps aux`, COMMAND cut to the program name', ps?.join('\n'));
save('df-h.txt', '`df -h`, standard mounts only', run('df', ['-h'])?.split('\n').filter((l, i) => i === 0 || /^(\/dev\/|tmpfs|devtmpfs|overlay|shm)/.test(l)).join('\n') + '\n');
save('du-a.tsv', '`du -a /usr/share/doc`, first 3,000 lines', run('du', ['-a', '/usr/share/doc'])?.split('\n').slice(0, 3000).join('\n') + '\n');
save('git-log-stat.txt', '`git log --stat -n 60` of this repository', run('git', ['-C', root, 'log', '--stat', '-n', '60', 'a35093c']));
save('git-diff.patch', '`git diff` of this repository (src/render, 30 commits)', run('git', ['-C', root, 'diff', 'a35093c~30', 'a35093c', '--', 'src/render']));
save('npm-ls.json', '`npm ls --json --all` of this repository', run('npm', ['ls', '--json', '--all'], { cwd: root }));
copyFileSync(join(root, 'package-lock.json'), join(scratch, 'lock.json'));
save('package-lock.json', "this repository's package-lock.json", readFileSync(join(scratch, 'lock.json'), 'utf8'));
save('strace.txt', '`strace -f -o FILE ls /usr/share/doc`', (() => {
  run('strace', ['-f', '-o', join(scratch, 'strace.out'), 'ls', '/usr/share/doc']);
  try {
    return readFileSync(join(scratch, 'strace.out'), 'utf8');
  } catch {
    return null;
  }
})());
save('pydoc-json.html', '`pydoc3 -w json`', (() => {
  run('python3', ['-m', 'pydoc', '-w', 'json'], { cwd: scratch });
  try {
    return readFileSync(join(scratch, 'json.html'), 'utf8');
  } catch {
    return null;
  }
})());
save('lodash.min.js', "lodash's minified build (node_modules/lodash/lodash.min.js)", (() => {
  try {
    return readFileSync(join(root, 'node_modules/lodash/lodash.min.js'), 'utf8');
  } catch {
    return null;
  }
})());

// compilers and test runners on small broken programs made here
writeFileSync(join(scratch, 'broken.ts'), ['const a: number = "one";', 'function f(x: string) { return x.lenght; }', 'f(42);', 'let b: string = a;', 'import { nothing } from "./missing";', ''].join('\n'));
save('tsc-errors.txt', '`tsc --noEmit --strict broken.ts` on a broken file', run(join(root, 'node_modules/.bin/tsc'), ['--noEmit', '--strict', 'broken.ts'], { cwd: scratch }));
writeFileSync(join(scratch, 'broken.c'), ['#include <stdio.h>', 'int main(void) {', '  int x = "text";', '  printf("%d\\n", y);', '  return undefined_call(x)', '}', ''].join('\n'));
save('gcc-errors.txt', '`gcc -Wall -fsyntax-only broken.c` on a broken file', run('gcc', ['-Wall', '-fsyntax-only', 'broken.c'], { cwd: scratch, stderr: true }));
mkdirSync(join(scratch, 'crate/src'), { recursive: true });
writeFileSync(join(scratch, 'crate/Cargo.toml'), '[package]\nname = "broken"\nversion = "0.1.0"\nedition = "2021"\n');
writeFileSync(join(scratch, 'crate/src/main.rs'), ['fn main() {', '    let x: i32 = "one";', '    let v = vec![1, 2, 3];', '    println!("{}", v.len() + y);', '    let unused = 5;', '}', ''].join('\n'));
save('cargo-errors.txt', '`cargo build` of a broken crate', run('cargo', ['build', '--offline', '--color', 'never'], { cwd: join(scratch, 'crate'), stderr: true, env: { ...process.env, CARGO_TARGET_DIR: join(scratch, 'target') } }));
writeFileSync(join(scratch, 'test_sample.py'), pytestFile());
save('pytest-v.txt', '`pytest -v -p no:cacheprovider` of 60 generated tests', run('pytest', ['-v', '-p', 'no:cacheprovider', 'test_sample.py'], { cwd: scratch }));
const db = join(scratch, 'shop.db');
run('sqlite3', [db], { input: sqlScript() });
save('orders.csv', '`sqlite3 -csv -header` of a generated table', run('sqlite3', ['-csv', '-header', db, 'SELECT * FROM orders']));
save('orders.tsv', '`sqlite3 -tabs -header` of a generated table', run('sqlite3', ['-tabs', '-header', db, 'SELECT id, customer, status, total FROM orders']));
save('shop-dump.sql', '`sqlite3 .dump` of a generated database', run('sqlite3', [db, '.dump']));

// --- generated: tools that are missing here or need a server ------------------------------------------------
for (const [name, how, make] of generated()) save(name, how, make(), true);
copyFileSync(join(root, 'fixtures/corpus/shell-output/go-test-json.out'), join(out, 'go-test.jsonl'));
manifest.push('| go-test.jsonl | `go test -json` (copied from fixtures/corpus/shell-output) | real |');
copyFileSync(join(root, 'fixtures/corpus/shell-output/go-test-standard-verbose.out'), join(out, 'go-test-v.txt'));
manifest.push('| go-test-v.txt | `go test -v` (copied from fixtures/corpus/shell-output) | real |');

writeFileSync(
  join(out, 'MANIFEST.md'),
  `# Command outputs\n\nMade by \`node bench/make-outputs.mjs\`: real where the tool was on the machine (scrubbed of its paths and\nnames), generated where it was not. test/e2e/kinds.test.ts checks each one's descriptor.\n\n| file | made by | |\n|---|---|---|\n${manifest.sort().join('\n')}\n`,
);
rmSync(scratch, { recursive: true, force: true });
console.log(`${manifest.length} outputs in ${out}`);

function pytestFile() {
  const lines = ['import pytest', ''];
  for (let i = 0; i < 60; i++) {
    if (i % 17 === 5) lines.push(`def test_parse_case_${i}():`, `    assert ${i} + 1 == ${i}, "error: off by one"`, '');
    else if (i % 13 === 7) lines.push('@pytest.mark.skip(reason="needs network")', `def test_fetch_${i}():`, '    pass', '');
    else lines.push(`def test_error_handling_${i}():`, `    assert str(${i}).isdigit()`, '');
  }
  return lines.join('\n');
}

function sqlScript() {
  const names = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
  const status = ['shipped', 'shipped', 'shipped', 'pending', 'cancelled', 'error'];
  const rows = [];
  for (let i = 1; i <= 400; i++) {
    rows.push(`(${i}, '${names[(i * 7) % 6]}', '${status[(i * 5) % 6]}', ${((i * 37) % 1000) + 0.5}, '2026-0${1 + (i % 9)}-1${i % 10}')`);
  }
  return [
    'CREATE TABLE customers (name TEXT PRIMARY KEY, city TEXT);',
    `INSERT INTO customers VALUES ${names.map((n, i) => `('${n}', '${['Paris', 'Lyon', 'Oslo'][i % 3]}')`).join(', ')};`,
    'CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, status TEXT, total REAL, placed TEXT);',
    ...rows.map((r) => `INSERT INTO orders VALUES ${r};`),
  ].join('\n');
}

function generated() {
  const pods = Array.from({ length: 120 }, (_, i) => ({
    name: `${['api', 'worker', 'web', 'cron'][i % 4]}-${(i * 2654435761 % 1e9).toString(36).slice(0, 5)}-${(i * 40503 % 1e6).toString(36)}`,
    ns: ['default', 'payments', 'search'][i % 3],
    status: i % 23 === 4 ? 'CrashLoopBackOff' : i % 31 === 9 ? 'Pending' : i % 37 === 11 ? 'Error' : 'Running',
    restarts: i % 23 === 4 ? 40 + i : i % 7 === 0 ? 1 : 0,
    age: `${1 + (i % 30)}d`,
  }));
  return [
    ['kubectl-get-pods.txt', '`kubectl get pods -A` (no cluster here)', () => table(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'], pods.map((p) => [p.ns, p.name, p.status === 'Running' ? '1/1' : '0/1', p.status, String(p.restarts), p.age]))],
    ['kubectl-get-pods.json', '`kubectl get pods -A -o json` (no cluster here)', () => JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods.map((p) => podJson(p)), metadata: { resourceVersion: '' } }, null, 4) + '\n'],
    ['docker-ps.txt', '`docker ps -a` (no daemon here)', () => table(['CONTAINER ID', 'IMAGE', 'COMMAND', 'CREATED', 'STATUS', 'PORTS', 'NAMES'], Array.from({ length: 60 }, (_, i) => [(i * 2654435761).toString(16).padStart(12, '0').slice(-12), ['nginx:1.27', 'postgres:16', 'redis:7', 'app:latest'][i % 4], `"${['/docker-entrypoint.…', 'docker-entrypoint.s…', 'redis-server', 'node server.js'][i % 4]}"`, `${1 + (i % 9)} days ago`, i % 9 === 3 ? `Exited (1) ${i % 5 + 1} hours ago` : `Up ${1 + (i % 9)} days`, i % 4 === 0 ? `0.0.0.0:${8000 + i}->80/tcp` : '', `svc_${i}`]))],
    ['docker-inspect.json', '`docker inspect` of 20 containers (no daemon here)', () => JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ Id: (i * 2654435761).toString(16).padStart(64, 'a'), Created: `2026-11-${10 + (i % 9)}T08:00:0${i % 10}Z`, Path: 'docker-entrypoint.sh', State: { Status: i % 6 === 2 ? 'exited' : 'running', Running: i % 6 !== 2, ExitCode: i % 6 === 2 ? 137 : 0, OOMKilled: i % 6 === 2 }, Name: `/svc_${i}`, RestartCount: i % 4, Config: { Image: ['nginx:1.27', 'postgres:16', 'redis:7'][i % 3], Env: ['PATH=/usr/local/bin:/usr/bin', `PORT=${8000 + i}`] }, NetworkSettings: { IPAddress: `172.17.0.${i + 2}` } })), null, 4) + '\n'],
    ['jest.json', '`jest --json` (jest is not installed here)', () => JSON.stringify(jestRun()) + '\n'],
    ['env.txt', '`env` (values made up: a real environment may hold secrets)', () => ['HOME=/home/user', 'LANG=C.UTF-8', 'LC_ALL=C.UTF-8', 'LOGNAME=user', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'PWD=/home/user/project', 'SHELL=/bin/bash', 'SHLVL=1', 'TERM=xterm-256color', 'USER=user', 'EDITOR=vim', 'PAGER=less', 'NODE_ENV=development', 'GOPATH=/home/user/go', 'CARGO_HOME=/home/user/.cargo', 'XDG_RUNTIME_DIR=/run/user/1000', 'COLORTERM=truecolor', 'HOSTNAME=buildhost', 'TZ=UTC', 'OLDPWD=/home/user', 'ERROR_REPORTING=off', 'MAIL=/var/mail/user', 'LESSOPEN=| /usr/bin/lesspipe %s', '_=/usr/bin/env'].join('\n') + '\n'],
    ['curl-v.txt', '`curl -v https://api.example.com/v1/items` (offline here)', () => curlTrace()],
  ];
}

function table(header, rows) {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells) => cells.map((x, c) => (c === cells.length - 1 ? x : x.padEnd(widths[c] + 3))).join('').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

function podJson(p) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: p.name, namespace: p.ns, labels: { app: p.name.split('-')[0] } }, spec: { containers: [{ name: 'main', image: `registry.example.com/${p.name.split('-')[0]}:1.4.${p.restarts % 3}` }], nodeName: `node-${p.restarts % 4}` }, status: { phase: p.status === 'Running' ? 'Running' : p.status === 'Pending' ? 'Pending' : 'Failed', containerStatuses: [{ name: 'main', ready: p.status === 'Running', restartCount: p.restarts }], startTime: `2026-11-${10 + (p.restarts % 9)}T00:00:00Z` } };
}

function jestRun() {
  const files = Array.from({ length: 30 }, (_, f) => {
    const tests = Array.from({ length: 8 }, (_, t) => {
      const failed = (f * 8 + t) % 41 === 13;
      const skipped = (f * 8 + t) % 29 === 3;
      return { ancestorTitles: [`module ${f}`], fullName: `module ${f} handles case ${t}`, title: `handles case ${t}`, status: failed ? 'failed' : skipped ? 'pending' : 'passed', duration: failed || skipped ? null : (f * t) % 40, failureMessages: failed ? [`Error: expect(received).toBe(expected)\n\nExpected: ${t}\nReceived: ${t + 1}`] : [] };
    });
    const failed = tests.some((t) => t.status === 'failed');
    return { name: `/home/user/project/src/module${f}.test.js`, status: failed ? 'failed' : 'passed', message: failed ? 'test failed' : '', startTime: 1764140000000 + f * 100, endTime: 1764140000050 + f * 100, assertionResults: tests };
  });
  const all = files.flatMap((f) => f.assertionResults);
  const n = (s) => all.filter((t) => t.status === s).length;
  return { numFailedTestSuites: files.filter((f) => f.status === 'failed').length, numFailedTests: n('failed'), numPassedTestSuites: files.filter((f) => f.status === 'passed').length, numPassedTests: n('passed'), numPendingTests: n('pending'), numTotalTestSuites: files.length, numTotalTests: all.length, success: false, testResults: files };
}

function curlTrace() {
  const lines = ['*   Trying 93.184.215.14:443...', '* Connected to api.example.com (93.184.215.14) port 443', '* ALPN: curl offers h2,http/1.1', '* TLSv1.3 (OUT), TLS handshake, Client hello (1):', '* TLSv1.3 (IN), TLS handshake, Server hello (2):', '* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384', '* Server certificate:', '*  subject: CN=api.example.com', '*  expire date: Feb  1 23:59:59 2027 GMT', '> GET /v1/items HTTP/2', '> Host: api.example.com', '> User-Agent: curl/8.5.0', '> Accept: */*', '>', '< HTTP/2 200', '< content-type: application/json', '< x-request-id: 7f3a9c', '<'];
  const body = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item ${i}`, state: i % 9 ? 'ok' : 'degraded' })));
  return `${lines.join('\n')}\n${body}\n* Connection #0 to host api.example.com left intact\n`;
}
