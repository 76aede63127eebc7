// Makes fixtures/error-lines/fail's outputs of a listing, a path list, a table and a build that failed partway,
// real outputs of the tools run on this machine (scrubbed of its own paths and names): `ls -laR`, `find` and
// `du -a` of a real folder with a missing path among their operands (their own failure message among the data,
// 2>&1), and gcc and make of a file with many warnings that fails to link (the linker's and make's errors after
// 120 compiler warnings). Each file's row in the folder's MANIFEST.md is written again (the others are kept).
// Usage: node bench/make-failure-outputs.mjs (needs ls, find, du, gcc, make)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dir = join(root, 'fixtures/error-lines/fail');
const scratch = mkdtempSync(join(tmpdir(), 'lro-fail-'));
/** A real folder of a Debian machine with python3: some hundred files. */
const FOLDER = '/usr/lib/python3/dist-packages/setuptools';

function scrub(text) {
  return text
    .split(scratch).join('/home/user/project')
    // (gcc's object file of the moment, named at random)
    .replace(/\/tmp\/cc\w+\.o\b/g, '/tmp/ccXXXXXX.o')
    .replace(/\/(?:tmp|work)\/(?!ccXXXXXX\.o\b)[^\s'"):,`’]*/g, '/home/user/project')
    .replace(/\/root\b/g, '/home/user')
    .replace(hostname().length >= 4 ? new RegExp(`\\b${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'g') : /(?!)/, 'buildhost');
}

/** A shell command's stdout and stderr as one stream (2>&1), in the machine's locale. */
function sh(command) {
  const r = spawnSync('sh', ['-c', `${command} 2>&1`], { cwd: scratch, encoding: 'utf8' });
  if (r.error) throw r.error;
  return { out: scrub(r.stdout), status: r.status };
}

const rows = [];
function save(name, how, command, status) {
  const r = sh(command);
  if (r.status !== status) throw new Error(`${command}: exit status ${r.status}, not ${status}`);
  writeFileSync(join(dir, name), r.out);
  rows.push([name, `\`${how}\` (exit status ${status})`, Buffer.byteLength(r.out)]);
}

save('ls-laR-missing.txt', `(ls -laR ${FOLDER} /nonexistent-dir) 2>&1`, `ls -laR ${FOLDER} /nonexistent-dir`, 2);
save('find-missing.txt', `(find ${FOLDER}; find /nonexistent /root/missing-dir) 2>&1`, `find ${FOLDER}; find /nonexistent /root/missing-dir`, 1);
save('du-missing.tsv', `(du -a ${FOLDER} /nonexistent-du) 2>&1`, `du -a ${FOLDER} /nonexistent-du`, 1);

// 120 unused variables (warnings) and 2 calls of functions defined nowhere (the link fails)
const source = [
  'int undefined_one(void);',
  'int undefined_two(int);',
  'int main(void) {',
  ...Array.from({ length: 120 }, (_, i) => `  int unused_${i};`),
  '  undefined_one();',
  '  undefined_two(3);',
  '  return 0;',
  '}',
  '',
].join('\n');
writeFileSync(join(scratch, 'big.c'), source);
writeFileSync(join(scratch, 'Makefile'), 'all:\n\tgcc -Wall big.c -o big\n');
save('gcc-link.txt', 'gcc -Wall big.c -o big 2>&1', 'gcc -Wall big.c -o big', 1);
save('make-link.txt', 'make 2>&1', 'make', 2);
rmSync(scratch, { recursive: true, force: true });

// the MANIFEST: these rows made again, the others kept
const manifest = join(dir, 'MANIFEST.md');
const ours = new Set(rows.map((r) => r[0]));
const kept = readFileSync(manifest, 'utf8').split('\n').filter((l) => !ours.has(/^\| (\S+) \|/.exec(l)?.[1] ?? ''));
while (kept.at(-1) === '') kept.pop();
const made = rows.map(([name, how, bytes]) => `| ${name} | ${how}, by \`node bench/make-failure-outputs.mjs\` | ${bytes.toLocaleString('en-US')} |`);
writeFileSync(manifest, `${[...kept, ...made].join('\n')}\n`);
for (const [name, , bytes] of rows) console.log(`${name}: ${bytes} bytes`);
