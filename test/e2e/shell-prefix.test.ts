// bin/lro-shell-prefix called as Claude Code calls it: one argument, the script it would run for a Bash call.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

const PREFIX = resolve(__dirname, '../../bin/lro-shell-prefix');
const root = tempDir();
afterAll(() => cleanup(root));

/** The script Claude Code 2.1.328 hands the prefix for `command` (its snapshot and shopt parts left out). */
const claudeScript = (command: string) => `eval '${command.replace(/'/g, `'\\''`)}' < /dev/null && pwd -P >| ${join(root, 'cwd')}`;

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: Buffer;
}

function prefix(args: string[], env: Record<string, string> = {}, onSpawn?: (pid: number) => void, onData?: (chunk: Buffer) => void): Promise<Ran> {
  return new Promise((done, fail) => {
    // stdout and stderr into one pipe, as Claude Code gives the prefix one file for both
    const child = spawn('bash', ['-c', `exec "$@" 2>&1`, 'bash', PREFIX, ...args], {
      env: { PATH: process.env.PATH!, HOME: root, LRO_DIR: join(root, 'store'), ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => {
      out.push(d);
      onData?.(d);
    });
    child.on('error', fail);
    child.on('spawn', () => onSpawn?.(child.pid!));
    child.on('close', (code, signal) => done({ code, signal, out: Buffer.concat(out) }));
  });
}

describe('lro-shell-prefix', () => {
  test('a small output comes back byte for byte, binary and interleaved streams included, without starting Node', async () => {
    const r = await prefix([claudeScript("echo err >&2; printf 'a\\0b\\377\\r\\n'; echo late >&2; exit 7")], { LRO_NODE: '/nonexistent/node' });
    expect(r.code).toBe(7);
    expect(r.out).toEqual(Buffer.from('err\na\0b\xff\r\nlate\n', 'latin1'));
  });

  test('a large failing output becomes the descriptor, with the exit code; stdout and stderr are both stored', async () => {
    const r = await prefix([claudeScript("seq 1 200000; echo 'FATAL: disk on fire' >&2; exit 3")]);
    expect(r.code).toBe(3);
    const text = r.out.toString();
    expect(text).toContain("source: seq 1 200000; echo 'FATAL: disk on fire' >&2; exit 3 (exit code 3)");
    const id = /id: (\w{26})/.exec(text)![1];
    const grep = await lro(['grep', id, 'FATAL'], { env: { LRO_DIR: join(root, 'store') } });
    expect(grep.out).toBe('200001:FATAL: disk on fire\n');
  });

  test('a large binary output is stored exactly', async () => {
    const r = await prefix([claudeScript('head -c 300000 /dev/urandom > ' + join(root, 'rand') + '; cat ' + join(root, 'rand'))]);
    expect(r.code).toBe(0);
    const id = /id: (\w{26})/.exec(r.out.toString())![1];
    const cat = await lro(['cat', id], { env: { LRO_DIR: join(root, 'store') } });
    expect(cat.stdout.equals(readFileSync(join(root, 'rand')))).toBe(true);
  });

  test('when the store cannot be written, the whole output comes through as without lro, and the exit code is kept', async () => {
    const blocked = join(root, 'blocked');
    writeFileSync(blocked, 'a file where the store should be');
    const r = await prefix([claudeScript('seq 1 100000; exit 4')], { LRO_DIR: join(blocked, 'store') });
    expect(r.code).toBe(4);
    const text = r.out.toString();
    expect(text).toMatch(/^lro: .*\n1\n2\n/);
    expect(text.endsWith('\n99999\n100000\n')).toBe(true);
  });

  test('lro missing: the output comes through as it is', async () => {
    const r = await prefix([claudeScript('seq 1 100000')], { LRO_NODE: '/nonexistent/node' });
    expect(r.code).toBe(0);
    expect(r.out.toString().endsWith('\n100000\n')).toBe(true);
    expect(r.out.toString()).toMatch(/^lro-shell-prefix: cannot offload, \/nonexistent\/node not found .*\n1\n2\n/);
  });

  test('the cwd tracking in the script runs; what is not a Bash call runs unwrapped', async () => {
    mkdirSync(join(root, 'sub'));
    await prefix([claudeScript(`cd ${join(root, 'sub')}`)]);
    expect(readFileSync(join(root, 'cwd'), 'utf8')).toBe(`${join(root, 'sub')}\n`);
    const big = await prefix(['seq 1 100000']); // a hook or server started through the prefix: not offloaded
    expect(big.out.toString().endsWith('\n100000\n')).toBe(true);
    const argv = await prefix(['printf', '%s|', 'a b', 'c']);
    expect(argv.out.toString()).toBe('a b|c|');
  });

  test('interrupted: what the command printed is still given, and the status says the signal', async () => {
    const script = join(root, 'slow.sh');
    writeFileSync(script, 'seq 1 100000\nsleep 30\n');
    chmodSync(script, 0o755);
    const r = await prefix([claudeScript(`bash ${script}`)], {}, (pid) => setTimeout(() => process.kill(-pid, 'SIGTERM'), 1500));
    expect(r.code).toBe(143);
    expect(r.out.toString()).toMatch(/offloaded: 100,000 lines/);
  });

  test('a long-running command shows the head of its output while it runs; the whole is still exact or stored', async () => {
    const live = { LRO_SHELL_PREFIX_LIVE_AFTER: '1' };
    let firstAt = 0;
    const start = Date.now();
    // (sleeps long beside LIVE_AFTER=1, so a loaded machine still sees the head while the command runs)
    const small = await prefix([claudeScript("printf 'started\\n'; sleep 6; printf 'done\\n'; exit 2")], live, undefined, () => (firstAt ||= Date.now()));
    expect(small.code).toBe(2);
    expect(small.out.toString()).toBe('started\ndone\n');
    expect(Date.now() - firstAt).toBeGreaterThan(1000); // "started" came while it still ran
    expect(firstAt - start).toBeLessThan(5500);
    const big = await prefix([claudeScript("echo started; sleep 6; seq 1 100000; exit 1")], live);
    expect(big.code).toBe(1);
    const text = big.out.toString();
    // the head is what had come by the first look: "started" alone, or (a loaded machine looking late) more of it
    const shown = /^([^]*?)\n\[lro: the output above is its first (\d+) bytes, shown while it ran; all of it is stored:\]\nOutput offloaded: 100,001 lines/.exec(text);
    expect(shown, text.slice(0, 300)).not.toBeNull();
    const whole = `started\n${Array.from({ length: 100000 }, (_, i) => i + 1).join('\n')}\n`;
    expect(shown![1]).toBe(whole.slice(0, Number(shown![2])));
    expect(shown![1].startsWith('started\n')).toBe(true);
    expect(text).toContain('(exit code 1)');
  });
});
