// End-to-end: `lro run` keeps both streams. A large output is stored with stdout and stderr lines in the order
// they arrived, the header says which records came from stderr, and the readers address either stream
// (`--stream`), `lro cat` giving stdout alone by default; a small output comes back on the streams it came from;
// results without stream information read as before.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';

let root: string;
let store: string;
const env = () => ({ LRO_DIR: store });
const node = process.execPath;
const js = (code: string) => ['--', node, '-e', code];

beforeAll(() => {
  root = tempDir();
  store = join(root, 'store');
});
afterAll(() => cleanup(root));

/**
 * 2,000 stdout lines, a stderr line, 2,000 more, another stderr line, exit 4. Writes are synchronous and the
 * stderr lines come after a pause, so their place in the order of arrival is known.
 */
const interleaved = [
  'const fs = require("fs");',
  'const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);',
  'const block = (from) => { let s = ""; for (let i = from; i < from + 2000; i++) s += `out ${i} ok\\n`; return s; };',
  'fs.writeSync(1, block(1)); sleep(300);',
  'fs.writeSync(2, "warning: disk almost full\\n"); sleep(300);',
  'fs.writeSync(1, block(2001)); sleep(300);',
  'fs.writeSync(2, "error: 1 test failed\\n");',
  'process.exitCode = 4;',
].join('\n');

const stdoutText = (() => {
  let s = '';
  for (let i = 1; i <= 4000; i++) s += `out ${i} ok\n`;
  return s;
})();

describe('lro run: a large output keeps both streams', () => {
  let id: string;
  beforeAll(async () => {
    const r = await lro(['run', ...js(interleaved)], { env: env() });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toBe(''); // stored, not passed through
    const d = JSON.parse(r.out);
    id = d.id;
    expect(d.guidance).toMatch(/FAILED \(exit code 4\)\. 2 lines of 4,002 came from stderr/);
    expect(d.guidance).toContain(`\`lro read ${id} --stream stderr\``);
  });

  it('lists the stderr records in the header', async () => {
    const h = JSON.parse((await lro(['info', id, '--header'], { env: env() })).out);
    expect(h.count).toBe(4002);
    expect(h.stderr_lines).toBe(2);
    expect(h.stderr_records).toBe('2001,4002');
  });

  it('reads and searches one stream, with the record numbers of the whole result', async () => {
    const read = await lro(['read', id, '--stream', 'stderr'], { env: env() });
    expect(read.out).toBe('2001: warning: disk almost full\n4002: error: 1 test failed\n');
    expect((await lro(['read', id, '--stream', 'stderr', '--tail', '1'], { env: env() })).out).toBe('4002: error: 1 test failed\n');
    expect((await lro(['read', id, '--stream', 'stdout', '--tail', '1'], { env: env() })).out).toBe('4001: out 4000 ok\n');
    const grep = await lro(['grep', id, 'fail|warn', '--stream', 'stderr'], { env: env() });
    expect(grep.out).toBe('2001:warning: disk almost full\n4002:error: 1 test failed\n');
    const none = await lro(['grep', id, 'out 1 ok', '--stream', 'stderr'], { env: env() });
    expect(none.code).toBe(1);
    const ctx = await lro(['grep', id, 'warning', '--stream', 'stderr', '-C', '1'], { env: env() });
    expect(ctx.out).toBe('2000-out 2000 ok\n2001:warning: disk almost full\n2002-out 2001 ok\n');
  });

  it('where and count take --stream: the records of one stream, numbered as in the whole result', async () => {
    const w = await lro(['where', id, '.~^(warning|error|out 1 ok)', '--stream', 'stderr'], { env: env() });
    expect(w.code, w.stderr).toBe(0);
    expect(w.out).toBe('2001: warning: disk almost full\n4002: error: 1 test failed\n');
    const c = await lro(['count', id, '--stream', 'stdout'], { env: env() });
    expect(c.out).toBe('4000\n');
    const byLevel = await lro(['count', id, '--by', '^(\\w+)', '--stream', 'stderr', '--json'], { env: env() });
    expect(byLevel.out.trim().split('\n').map((l) => JSON.parse(l)).map((g) => [g.value, g.count, g.first])).toEqual([
      ['error', 1, 4002],
      ['warning', 1, 2001],
    ]);
    // a cut output's next command keeps --stream
    const cut = await lro(['where', id, '.~ok', '--stream', 'stdout', '--max-tokens', '40'], { env: env() });
    expect(cut.out).toMatch(/next: lro where \w+ '\.~ok' --stream stdout --max-tokens 40 --records \d+:\]\n$/);
    const explain = await lro(['count', id, '--stream', 'stderr', '--explain'], { env: env() });
    expect(explain.code).toBe(2);
    expect(explain.stderr).toMatch(/^lro: --explain does not go with --stream[^\n]*\n$/);
    const pipe = JSON.parse((await lro(['offload', '--force'], { env: env(), input: 'a\nb\n' })).out);
    const none = await lro(['count', pipe.id, '--stream', 'stderr'], { env: env() });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/does not record which stream its lines came from/);
  });

  it('tells the stream of each record in grep --json', async () => {
    const r = await lro(['grep', id, '^(out 2000 ok|warning)', '--json'], { env: env() });
    const objs = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(objs.map((o) => [o.record, o.stream])).toEqual([
      [2000, 'stdout'],
      [2001, 'stderr'],
    ]);
  });

  it('cats stdout alone by default, byte for byte; stderr or both on request', async () => {
    const out = await lro(['cat', id], { env: env() });
    expect(out.code).toBe(0);
    expect(createHash('sha256').update(out.stdout).digest('hex')).toBe(createHash('sha256').update(stdoutText).digest('hex'));
    expect((await lro(['cat', id, '--stream', 'stderr'], { env: env() })).out).toBe('warning: disk almost full\nerror: 1 test failed\n');
    const both = (await lro(['cat', id, '--stream', 'both'], { env: env() })).out.split('\n');
    expect(both.length).toBe(4003);
    expect(both[2000]).toBe('warning: disk almost full');
  });
});

describe('lro run on a terminal', () => {
  it('shows stderr as it comes as well as storing it; a small output does not show it twice', async () => {
    const typescript = join(root, 'typescript');
    const inTerminal = (args: string[]) => {
      const cmd = [node, BIN, ...args].map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(' ');
      const r = spawnSync('script', ['-q', '-e', '-c', cmd, typescript], { env: { ...process.env, ...env() }, encoding: 'utf8' });
      return { code: r.status, screen: readFileSync(typescript, 'utf8') };
    };
    const big = inTerminal(['run', '--json', ...js(interleaved)]);
    expect(big.code).toBe(4);
    expect(big.screen).toContain('warning: disk almost full');
    expect(big.screen).toContain('error: 1 test failed');
    const id = /"id":\s*"(\w+)"/.exec(big.screen)![1];
    expect((await lro(['read', id, '--stream', 'stderr'], { env: env() })).out).toBe('2001: warning: disk almost full\n4002: error: 1 test failed\n');
    const small = inTerminal(['run', ...js('console.log("small out"); console.error("small err")')]);
    expect(small.code).toBe(0);
    const lines = small.screen.split(/\r?\n/); // (script's first line names the command)
    expect(lines.filter((l) => l === 'small err')).toHaveLength(1);
    expect(lines.filter((l) => l === 'small out')).toHaveLength(1);
  });
});

describe('lro run: a small output and other cases', () => {
  it('gives a small output back on the streams it came from, and as two members with --json', async () => {
    const cmd = ['sh', '-c', 'echo out1; echo err1 >&2; echo out2; exit 3'];
    const r = await lro(['run', '--', ...cmd], { env: env() });
    expect(r.code).toBe(3);
    expect(r.out).toBe('out1\nout2\n');
    expect(r.stderr).toBe('err1\n');
    const j = await lro(['run', '--json', '--', ...cmd], { env: env() });
    expect(JSON.parse(j.out)).toEqual({
      offloaded: false,
      content: 'out1\nout2\n',
      stderr: 'err1\n',
      source: { command: "sh -c 'echo out1; echo err1 >&2; echo out2; exit 3'", exit_code: 3 },
    });
  });

  it('stores a command that writes only on stderr', async () => {
    const r = await lro(['run', '--force', '--', 'sh', '-c', 'echo only-on-stderr >&2'], { env: env() });
    const d = JSON.parse(r.out);
    expect(r.stderr).toBe('');
    expect((await lro(['cat', d.id], { env: env() })).out).toBe('');
    expect((await lro(['cat', d.id, '--stream', 'stderr'], { env: env() })).out).toBe('only-on-stderr\n');
  });

  it('keeps a JSON stdout JSON when nothing came on stderr, and knows stderr was empty', async () => {
    const d = JSON.parse((await lro(['run', '--force', '--', 'echo', '[{"a":1},{"a":2}]'], { env: env() })).out);
    const h = JSON.parse((await lro(['info', d.id, '--header'], { env: env() })).out);
    expect([h.content_type, h.stderr_lines, h.stderr_records]).toEqual(['json', 0, '']);
    expect((await lro(['cat', d.id], { env: env() })).out).toBe('[{"a":1},{"a":2}]\n');
    const err = await lro(['read', d.id, '--stream', 'stderr'], { env: env() });
    expect([err.code, err.out]).toEqual([0, `[lro: result ${d.id} has no records from stderr]\n`]);
  });

  it('keeps a binary stdout alone and exact, its stderr passing through', async () => {
    const code = 'process.stdout.write(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0, 0, 0, 255, 254])); console.error("made it")';
    const r = await lro(['run', '--force', ...js(code)], { env: env() });
    expect(r.stderr).toBe('made it\n');
    const d = JSON.parse(r.out);
    const cat = await lro(['cat', d.id], { env: env() });
    expect([...cat.stdout]).toEqual([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0, 0, 0, 255, 254]);
    const h = JSON.parse((await lro(['info', d.id, '--header'], { env: env() })).out);
    expect(h.stderr_records).toBeUndefined();
  });

  it('reads a result offloaded from a pipe as before, and says --stream cannot apply to it', async () => {
    const d = JSON.parse((await lro(['offload', '--force'], { env: env(), input: 'a\nb\n' })).out);
    const r = await lro(['read', d.id, '--stream', 'stderr'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: result \w+ does not record which stream its lines came from [^\n]*: drop --stream\n$/);
    expect((await lro(['cat', d.id], { env: env() })).out).toBe('a\nb\n');
    expect((await lro(['read', d.id, '--stream', 'both'], { env: env() })).out).toBe('1: a\n2: b\n');
    const j = await lro(['grep', d.id, 'a', '--json'], { env: env() });
    expect(JSON.parse(j.out).stream).toBeUndefined();
  });
});
