// Makes the corpus of real table outputs in fixtures/tables (issue 38: tables are tables): ps, lsof, df, dpkg -l
// and delimited files, each made on the machine this runs on. The process listings are of a few processes started
// for the purpose in a pid namespace of their own (unshare, as root), so they hold no other program's command line;
// the rest is scrubbed of the machine's own paths and name. Usage: node bench/make-tables.mjs [OUTDIR]
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = process.argv[2] ?? join(root, 'fixtures/tables');
mkdirSync(out, { recursive: true });
const scratch = mkdtempSync(join(tmpdir(), 'lro-tables-'));
const manifest = [];

function scrub(text) {
  return text
    .split(scratch).join('/home/user/project')
    .replace(/\/(?:tmp|work)\/[^\s'"):,]*/g, '/home/user/project')
    .replace(/\/root\b/g, '/home/user')
    .split(hostname()).join('buildhost');
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...opts });
  if (r.error || r.status !== 0) {
    console.error(`${cmd} ${args.join(' ')}: ${r.error?.message ?? r.stderr}`);
    return null;
  }
  return r.stdout;
}

function save(name, how, text) {
  if (!text) return console.error(`skipped ${name}: ${how} gave nothing`);
  writeFileSync(join(out, name), scrub(text));
  manifest.push(`| ${name} | ${how} |`);
}

// a few processes in a pid namespace of their own: a shell, sleeps, node (several threads each), a python
// listening on a local port (for lsof's sockets), then ps and lsof run there
const inside = `
  cd /
  for i in 1 2 3; do sleep 120 & done
  node -e 'setInterval(() => {}, 1000)' &
  node -e 'const a = []; for (let i = 0; i < 2e6; i++) a.push({i}); setInterval(() => {}, 1000)' &
  python3 -c 'import socket, time; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); time.sleep(120)' &
  sleep 2
  ps aux > ${scratch}/ps-aux.txt
  ps -eLf > ${scratch}/ps-eLf.txt
  lsof -n -P > ${scratch}/lsof.txt 2>/dev/null
  # a second listing for lro diff: one sleep ended, one stopped (its STAT S -> T), a new sleep started
  ps aux > ${scratch}/ps-aux-before.txt
  kill %1
  kill -STOP %2
  sleep 300 &
  sleep 1
  ps aux > ${scratch}/ps-aux-after.txt
  kill -CONT %2
  kill $(jobs -p)
`;
const ns = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'bash', '-s'], { input: inside, encoding: 'utf8' });
if (ns.status !== 0) console.error(`unshare: ${ns.stderr} (needs root)`);
else {
  save('ps-aux.txt', '`ps aux` of a shell, sleeps, two node and a python in a pid namespace', readFileSync(join(scratch, 'ps-aux.txt'), 'utf8'));
  save('ps-eLf.txt', '`ps -eLf` of the same (a line per thread)', readFileSync(join(scratch, 'ps-eLf.txt'), 'utf8'));
  save('lsof.txt', '`lsof -n -P` of the same', readFileSync(join(scratch, 'lsof.txt'), 'utf8'));
  save('ps-aux-before.txt', '`ps aux` of the same, again', readFileSync(join(scratch, 'ps-aux-before.txt'), 'utf8'));
  save('ps-aux-after.txt', '`ps aux` after a sleep ended, one was stopped and another started', readFileSync(join(scratch, 'ps-aux-after.txt'), 'utf8'));
}
// the sandbox's own mounts left out
const mounts = (text) => text?.split('\n').filter((l) => !l.includes('/mnt/sandboxing')).join('\n');
save('df.txt', '`df`', mounts(run('df', [])));
save('df-hT.txt', '`df -hT`', mounts(run('df', ['-hT'])));
save('dpkg-l.txt', '`dpkg -l`', run('dpkg', ['-l'], { env: { ...process.env, COLUMNS: '200' } }));
// a CSV whose header has spaces and whose fields have commas and quotes: the installed packages, by sqlite3
const fields = '${Package}\t${Version}\t${Installed-Size}\t${Priority}\t${Section}\t${binary:Summary}\n';
const tsv = run('dpkg-query', ['-W', '-f', fields]);
if (tsv) {
  const db = join(scratch, 'p.db');
  writeFileSync(join(scratch, 'p.tsv'), tsv);
  const sql = [
    'CREATE TABLE p (name TEXT, version TEXT, size INTEGER, priority TEXT, section TEXT, summary TEXT);',
    '.mode tabs',
    `.import ${join(scratch, 'p.tsv')} p`,
  ].join('\n');
  run('sqlite3', [db], { input: sql });
  const query = `SELECT name AS "package name", version, size AS "installed size", priority, section, summary FROM p ORDER BY name`;
  save('packages.csv', '`sqlite3 -csv -header` of the installed packages (dpkg-query)', run('sqlite3', ['-csv', '-header', db, query]));
  save('packages.tsv', '`sqlite3 -tabs -header` of the same, without the summary', run('sqlite3', ['-tabs', '-header', db, query.replace(', summary', '')]));
}
copyFileSync(join(root, 'fixtures/corpus/loghub/Linux_2k.log_structured.csv'), join(out, 'linux-structured.csv'));
manifest.push('| linux-structured.csv | loghub\'s Linux_2k.log_structured.csv (copied from fixtures/corpus/loghub) |');
rmSync(scratch, { recursive: true, force: true });
writeFileSync(
  join(out, 'MANIFEST.md'),
  `# Table outputs\n\nMade by \`node bench/make-tables.mjs\` on a Linux machine, all real (scrubbed of its paths and name).\n` +
    `test/e2e/tables-query.test.ts queries each by its columns.\n\n| file | made by |\n|---|---|\n${manifest.sort().join('\n')}\n`,
);
console.log(`${manifest.length} tables in ${out}`);
