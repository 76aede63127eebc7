// Makes the outputs of issue 38's descriptor tests, real outputs of tools run on this machine (scrubbed of its own
// paths and names):
//   fixtures/whole/        outputs larger than the 256 KB the kind is decided from, gzipped: every number their
//                          descriptors state is checked against the truth counted over the whole file
//                          (test/e2e/whole-facts.test.ts);
//   fixtures/error-lines/  ok/: outputs of commands that did not fail, holding error words in names, descriptions,
//                          keys and values (none of their lines is an error line); fail/: outputs of failures (build
//                          errors, test failures, tracebacks), whose failure lines are error lines
//                          (test/describe/error-lines.test.ts).
// Each directory gets a MANIFEST.md saying how each file was made. Usage: node bench/make-whole-outputs.mjs
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'lro-whole-'));
const manifests = new Map();

function scrub(text) {
  return text
    .split(scratch).join('/home/user/project')
    .replace(/\/(?:tmp|work)\/[^\s'"):,]*/g, '/home/user/project')
    .replace(/\/root\b/g, '/home/user')
    // (a short host name, "vm", is a part of many words: only a longer one is replaced, as a whole word)
    .replace(hostname().length >= 4 ? new RegExp(`\\b${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'g') : /(?!)/, 'buildhost');
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, cwd: scratch, ...opts });
  if (r.error) return null;
  return (r.stdout ?? '') + (opts.stderr ? (r.stderr ?? '') : '');
}

/** The first lines of text, up to `max` bytes. */
function head(text, max) {
  if (Buffer.byteLength(text) <= max) return text;
  const cut = text.slice(0, max);
  return cut.slice(0, cut.lastIndexOf('\n') + 1);
}

function save(dir, name, how, text, { gzip = false, max = 1 << 30 } = {}) {
  if (!text) return console.error(`skipped ${name}: ${how} gave nothing`);
  const out = join(root, 'fixtures', dir);
  mkdirSync(out, { recursive: true });
  const body = head(scrub(text), max);
  writeFileSync(join(out, gzip ? `${name}.gz` : name), gzip ? gzipSync(body, { level: 9 }) : body);
  if (!manifests.has(dir)) manifests.set(dir, []);
  manifests.get(dir).push(`| ${name}${gzip ? '.gz' : ''} | ${how} | ${Buffer.byteLength(body).toLocaleString('en-US')} |`);
}

// --- a long git history: 800 commits by 14 authors over 5 years, made with git here --------------------------
const repo = join(scratch, 'repo');
mkdirSync(repo);
const git = (args, env = {}) => spawnSync('git', args, { cwd: repo, env: { ...process.env, ...env }, encoding: 'utf8' });
git(['init', '-q']);
const authors = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth', 'Ken Thompson',
  'Dennis Ritchie', 'Margaret Hamilton', 'John McCarthy', 'Frances Allen', 'Niklaus Wirth', 'Leslie Lamport', 'Tony Hoare'];
const weights = [505, 120, 60, 30, 25, 15, 12, 9, 8, 5, 4, 3, 2, 2];
let seed = 38;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = () => {
  let r = rand() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < weights.length; i++) if ((r -= weights[i]) < 0) return authors[i];
  return authors[0];
};
const messages = ['fix error handling in parser', 'add feature', 'refactor module', 'update docs', 'failing test fixed', 'bump deps'];
mkdirSync(join(repo, 'src'));
for (let i = 0; i < 800; i++) {
  const who = pick();
  for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) {
    const f = join(repo, 'src', `mod${Math.floor(rand() * 40)}.txt`);
    writeFileSync(f, `${(() => { try { return readFileSync(f, 'utf8'); } catch { return ''; } })()}${`line ${i}\n`.repeat(1 + Math.floor(rand() * 30))}`);
  }
  git(['add', '-A']);
  const date = new Date(Date.UTC(2020, 2, 1) + i * 60 * 3600_000 + Math.floor(rand() * 30) * 3600_000).toISOString();
  const email = `${who.split(' ')[0].toLowerCase()}@example.org`;
  const body = Array.from({ length: Math.floor(rand() * 12) }, (_, j) => `Detail line ${j} of commit ${i} explaining the change.`).join('\n');
  git(['commit', '-q', '-m', `${messages[Math.floor(rand() * messages.length)]} #${i}\n\n${body}`], {
    GIT_AUTHOR_NAME: who, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: who, GIT_COMMITTER_EMAIL: email,
    GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date,
  });
}
save('whole', 'git-log-stat.txt', '`git log --stat` of a history of 800 commits made here with git (14 authors, 2020 to 2025)', git(['log', '--stat']).stdout, { gzip: true });
save('whole', 'git-log-p.txt', '`git log -p -n 400` of the same history', git(['log', '-p', '-n', '400']).stdout, { gzip: true, max: 1_500_000 });

// --- listings, paths, sizes ----------------------------------------------------------------------------------
// (the JDKs' largest files come after the first 256 KB)
save('whole', 'ls-laR.txt', '`ls -laR /usr/share/doc; ls -laR /usr/lib/jvm`, first 1.5 MB', run('sh', ['-c', 'ls -laR /usr/share/doc; ls -laR /usr/lib/jvm']), { gzip: true, max: 1_500_000 });
save('whole', 'find-usr-share.txt', '`find /usr/share`, first 1.5 MB', run('find', ['/usr/share']), { gzip: true, max: 1_500_000 });
save('whole', 'du-a-usr-share.tsv', '`du -a /usr/share`, first 1 MB', run('du', ['-a', '/usr/share']), { gzip: true, max: 1_000_000 });
// a table larger than the 256 KB a kind is decided from: its largest SIZE/OFF and its commands past that
save('whole', 'lsof.txt', '`lsof`, first 600 kB', run('lsof', []), { gzip: true, max: 600_000 });

// --- strace -f of a pipeline (calls cut by other processes' and resumed) -------------------------------------
run('strace', ['-f', '-o', join(scratch, 'strace.txt'), 'sh', '-c', 'ls -laR /usr/share/doc | wc -l; find /usr/share/doc -name "*.gz" | head -3']);
save('whole', 'strace-f.txt', '`strace -f sh -c \'ls -laR /usr/share/doc | wc -l; find /usr/share/doc -name "*.gz" | head -3\'`, first 1.5 MB',
  readFileSync(join(scratch, 'strace.txt'), 'utf8'), { gzip: true, max: 1_500_000 });

// --- a diff of this repository -------------------------------------------------------------------------------
save('whole', 'git-diff-src.patch', '`git diff c1f9126af1 2306e59d15 -- src` of this repository, first 600 kB', run('git', ['-C', root, 'diff', 'c1f9126af1', '2306e59d15', '--', 'src']), { gzip: true, max: 600_000 });

// --- a test run of 4,000 generated tests, 37 of them failing ------------------------------------------------
const tests = Array.from({ length: 4000 }, (_, i) =>
  `def test_case_${i}_handles_error_input():\n    assert ${i % 109 === 7 ? `${i} == ${i + 1}, "value ${i} is off"` : 'True'}\n`,
).join('\n');
writeFileSync(join(scratch, 'test_generated.py'), tests);
save('whole', 'pytest-v.txt', '`pytest -v` of 4,000 generated tests (37 failing)', run('pytest', ['-v', '-p', 'no:cacheprovider', 'test_generated.py']), { gzip: true });

// --- gcc warnings and errors of a generated C file -----------------------------------------------------------
const c = Array.from({ length: 3000 }, (_, i) =>
  i % 250 === 3 ? `int f${i}(void) { return undeclared_${i}; }` : `int f${i}(int a) { int unused_${i}; return a; }`,
).join('\n');
writeFileSync(join(scratch, 'big.c'), c);
save('whole', 'gcc-warnings.txt', '`gcc -Wall -fsyntax-only` of a generated file (3,000 functions, 12 errors)', run('gcc', ['-Wall', '-fsyntax-only', 'big.c'], { stderr: true }), { gzip: true });

// --- an SQL dump ---------------------------------------------------------------------------------------------
const sql = ['CREATE TABLE orders(id INTEGER PRIMARY KEY, customer TEXT, total REAL, status TEXT);', 'CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT);', 'BEGIN;'];
for (let i = 0; i < 9000; i++) sql.push(`INSERT INTO orders VALUES(${i}, 'customer ${i % 700}', ${(i * 37) % 1000}.5, '${i % 13 ? 'shipped' : 'error'}');`);
for (let i = 0; i < 700; i++) sql.push(`INSERT INTO customers VALUES(${i}, 'name ${i}');`);
sql.push('COMMIT;');
writeFileSync(join(scratch, 'make.sql'), sql.join('\n'));
run('sqlite3', [join(scratch, 'shop.db')], { input: sql.join('\n') });
save('whole', 'sqlite-dump.sql', '`sqlite3 .dump` of a generated database (9,000 orders, 700 customers)', run('sqlite3', [join(scratch, 'shop.db'), '.dump']), { gzip: true });

// --- a log -----------------------------------------------------------------------------------------------------
save('whole', 'dpkg.log', '/var/log/dpkg.log of this machine', readFileSync('/var/log/dpkg.log', 'utf8'), { gzip: true });

// --- outputs that did not fail, with error words that are no failures ---------------------------------------
save('error-lines/ok', 'dpkg-l.txt', '`dpkg -l`', run('dpkg', ['-l']));
save('error-lines/ok', 'dpkg.log', '/var/log/dpkg.log', readFileSync('/var/log/dpkg.log', 'utf8'), { gzip: true });
save('error-lines/ok', 'apt-cache-dumpavail.txt', '`apt-cache dumpavail`, first 1 MB', run('apt-cache', ['dumpavail']), { gzip: true, max: 1_000_000 });
const certs = run('sh', ['-c', 'for c in /etc/ssl/certs/*.pem; do openssl x509 -in "$c" -noout -text; done']);
save('error-lines/ok', 'openssl-x509-text.txt', '`openssl x509 -noout -text` of each certificate in /etc/ssl/certs', certs, { gzip: true });
save('error-lines/ok', 'ls-var-log.txt', '`ls /var/log` and `find /var/log`', `${run('ls', ['/var/log'])}${run('find', ['/var/log'])}`);
const sdk = '/usr/lib/google-cloud-sdk/lib/googlecloudsdk/command_lib/util/resource_map/resource_map.yaml';
save('error-lines/ok', 'gcloud-resource-map.yaml', 'the Google Cloud SDK\'s resource_map.yaml (keys such as clouderrorreporting)', (() => { try { return readFileSync(sdk, 'utf8'); } catch { return ''; } })(), { gzip: true });
const sleeper = spawnSync('bash', ['-c', 'exec -a "java -XX:+HeapDumpOnOutOfMemoryError -Dlog.exception=full com.example.ExceptionReporter --on-failure=restart" sleep 30 & sleep 0.2; ps -ef; kill $!'], { encoding: 'utf8' });
// other processes' command lines cut to the program's name: a command line can hold anything
const psLines = sleeper.stdout.split('\n').map((l, i) =>
  i === 0 || l.includes('HeapDump') ? l : l.replace(/^((?:\S+\s+){7})(\S*).*$/, (_, h, cmd) => h + (cmd.startsWith('[') ? cmd : cmd.split('/').pop())));
save('error-lines/ok', 'ps-ef.txt', '`ps -ef` with a process whose command line names exceptions and failures (others cut to the program)', psLines.join('\n'));
save('error-lines/ok', 'pytest-pass.txt', '`pytest -v` of tests named for the errors they handle, all passing',
  (() => {
    writeFileSync(join(scratch, 'test_pass.py'), ['error_handling', 'failure_is_reported', 'exception_is_raised', 'abort_on_timeout', 'panic_recovery', 'denied_access_logged'].map((n) => `def test_${n}():\n    assert True\n`).join('\n'));
    return run('pytest', ['-v', '-p', 'no:cacheprovider', 'test_pass.py']);
  })());
save('error-lines/ok', 'dpkg-s-packages.txt', '`dpkg -s` of packages whose names or descriptions hold error words',
  run('dpkg', ['-s', 'liberror-perl', 'libcom-err2', 'libgpg-error0', 'e2fsprogs', 'libss2'].filter(Boolean), { stderr: false }));

const manifests = [
  ['deployment', 'web', '--image=nginx:1.27', '--replicas=3'],
  ['service', 'clusterip', 'web', '--tcp=80:8080'],
  ['configmap', 'error-pages', '--from-literal=404=not-found', '--from-literal=onError=retry'],
  ['job', 'failing-job', '--image=busybox', '--dry-run=client', '-o', 'yaml', '--', 'sh', '-c', 'exit 1'],
  ['cronjob', 'report-failures', '--image=busybox', '--schedule=*/5 * * * *', '--dry-run=client', '-o', 'yaml', '--', 'echo', 'errors'],
  ['deployment', 'api', '--image=api:2.1.0'],
].map((a) => run('kubectl', ['create', ...(a.includes('--') ? a : [...a, '--dry-run=client', '-o', 'yaml'])]));
if (manifests.every(Boolean)) save('error-lines/ok', 'kubectl-manifests.yaml', '`kubectl create … --dry-run=client -o yaml` of 6 objects, as one multi-document YAML', manifests.join('---\n'));

// --- outputs of failures -----------------------------------------------------------------------------------------
writeFileSync(join(scratch, 'broken.c'), 'int main(void) {\n  int x = "text";\n  return y;\n}\n');
save('error-lines/fail', 'gcc-errors.txt', '`gcc -Wall -c broken.c` of a broken file', run('gcc', ['-Wall', '-c', 'broken.c'], { stderr: true }));
writeFileSync(join(scratch, 'test_fail.py'), 'import pytest\n\ndef test_ok():\n    assert 1 == 1\n\ndef test_division():\n    assert 1 / 0\n\ndef test_value():\n    raise ValueError("bad value")\n\ndef test_compare():\n    assert [1, 2] == [1, 3]\n');
save('error-lines/fail', 'pytest-fail.txt', '`pytest` of a file with 3 failing tests', run('pytest', ['-p', 'no:cacheprovider', 'test_fail.py']));
save('error-lines/fail', 'python-traceback.txt', 'a Python script raising KeyError in a nested call', run('python3', ['-c', 'def f(d):\n    return d["missing"]\ndef g():\n    return f({})\ng()'], { stderr: true }));
save('error-lines/fail', 'node-throw.txt', 'node throwing a TypeError', run('node', ['-e', 'null.x'], { stderr: true }));
save('error-lines/fail', 'git-fatal.txt', '`git log` outside a repository', run('git', ['-C', '/', 'log'], { stderr: true }));
writeFileSync(join(scratch, 'Makefile'), 'all:\n\tgcc -c broken.c\n');
save('error-lines/fail', 'make-error.txt', '`make` of the broken file', run('make', [], { stderr: true }));
save('error-lines/fail', 'curl-refused.txt', '`curl -v http://127.0.0.1:9/`', run('curl', ['-v', 'http://127.0.0.1:9/'], { stderr: true }));
save('error-lines/fail', 'permission-denied.txt', '`cat /etc/shadow` as nobody', run('su', ['nobody', '-s', '/bin/sh', '-c', 'cat /etc/shadow; ls /root'], { stderr: true }));
writeFileSync(join(scratch, 'main.rs'), 'fn main() {\n    let v: Vec<i32> = Vec::new();\n    println!("{}", v[3]);\n}\n');
run('rustc', ['-o', join(scratch, 'panics'), 'main.rs']);
save('error-lines/fail', 'rust-panic.txt', 'a Rust program indexing past an empty vector', run(join(scratch, 'panics'), [], { stderr: true }));

// (error-lines/fail holds bench/make-failure-outputs.mjs's files too: run it after this one, to list them again)
for (const [dir, rows] of manifests) {
  const text = `# ${dir}\n\nMade by \`node bench/make-whole-outputs.mjs\` on a Debian machine: real outputs of the tools named,\nscrubbed of the machine's own paths and names.\n\n| file | made by | bytes |\n|---|---|---|\n${rows.join('\n')}\n`;
  writeFileSync(join(root, 'fixtures', dir, 'MANIFEST.md'), text);
}
rmSync(scratch, { recursive: true, force: true });
