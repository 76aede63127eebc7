// bin/lro-shell-prefix called as Claude Code calls it: one argument, the script it would run for a Bash call.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { constants } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { claudeScript as scriptFor } from '../helpers/claude-script.js';
import { bwrapArgs, ensureBash32, ensureBwrap } from '../helpers/old-shells.js';

const PREFIX = resolve(__dirname, '../../bin/lro-shell-prefix');
const root = tempDir();
afterAll(() => cleanup(root));
/** The prefix's temporary folder (TMPDIR is set to `root/tmp` for every call). */
const spool = join(root, 'tmp', `lro-prefix-${process.getuid!()}`);
mkdirSync(join(root, 'tmp'));

/** The script Claude Code 2.1.328 hands the prefix for `command`. */
const claudeScript = (command: string) => scriptFor(command, join(root, 'cwd'));
const isRoot = process.getuid?.() === 0;
/** Output files left in the prefix's folder (its resident helper's file and gc's stamps are not output). */
const leftovers = (dir: string) => readdirSync(dir).filter((f) => f !== 'resident' && !f.startsWith('gc-') && !f.startsWith('door.'));
const canUnsharePid = isRoot && spawnSync('unshare', ['-pf', '--mount-proc', 'true']).status === 0;
const bwrap = ensureBwrap();
const canMountTmpfs = isRoot && spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=64k none "$0"', root]).status === 0;

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: Buffer;
}

function prefix(
  args: string[],
  env: Record<string, string> = {},
  onSpawn?: (pid: number) => void,
  onData?: (chunk: Buffer) => void,
  wrapper?: string[],
): Promise<Ran> {
  return new Promise((done, fail) => {
    // stdout and stderr into one pipe, as Claude Code gives the prefix one file for both
    const child = spawn('bash', ['-c', `exec "$@" 2>&1`, 'bash', ...(wrapper ?? []), PREFIX, ...args], {
      env: { PATH: process.env.PATH!, HOME: root, LRO_DIR: join(root, 'store'), TMPDIR: join(root, 'tmp'), ...env },
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
    child.on('close', (code, signal) => {
      const all = Buffer.concat(out);
      // bash's own diagnostic of a line of the prefix (a read of a closed descriptor was one): never part of a call
      const own = /lro-shell-prefix: line \d+: [^\n]*/.exec(all.toString('latin1'));
      if (own) fail(new Error(`the prefix printed an error of its own: ${own[0]}`));
      else done({ code, signal, out: all });
    });
  });
}

/**
 * The same script in plain `bash -c`, as Claude Code runs it without lro: by the path it finds (SHELL is not set
 * here: /bin/bash), stdout and stderr in one stream.
 */
function plain(script: string): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-c', `exec "$@" 2>&1`, 'bash', '/bin/bash', '-c', script], {
      env: { PATH: process.env.PATH!, HOME: root, TMPDIR: join(root, 'tmp') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, out: Buffer.concat(out) }));
  });
}

/** The status as a shell sees it (`$?`): the exit code, or 128 + the signal. */
const shellStatus = (r: Ran) => r.code ?? 128 + constants.signals[r.signal!];

/** Bash's notes name a pid, which differs between two runs. */
const pidless = (b: Buffer) => b.toString('latin1').replace(/line (\d+): +\d+ /g, 'line $1: PID ');

describe('lro-shell-prefix is plain bash\'s twin', () => {
  test.each([
    ['a command that kills its own shell', 'echo a; kill -TERM $$; echo b'],
    ["bash's error names, $0, $BASH_SUBSHELL and none of the prefix's variables", 'x; echo "$0" "$BASH_SUBSHELL" "${__lro_script-unset}${__lro_file-unset}${status-unset}"'],
    ["bash's notes on a child killed by a signal", "bash -c 'kill -SEGV $$'; sh -c 'kill -KILL $$'; bash -c 'kill -ABRT $$'; echo after"],
    ['set -e and a large exit status', 'set -e; echo one; false; echo two'],
    ['an exit status above 255', 'echo x; exit 300'],
    ["bash -c's shell level (the prefix's own bash adds none)", 'echo "$SHLVL"; bash -c \'echo "$SHLVL"\''],
    ['no trailing newline, CR and invalid UTF-8', "printf 'a\\r\\nb\\377\\300'"],
  ])('%s', async (_what, command) => {
    const script = claudeScript(command);
    const [ours, theirs] = await Promise.all([prefix([script], { LRO_NODE: '/nonexistent/node' }), plain(script)]);
    expect(shellStatus(ours)).toBe(shellStatus(theirs));
    expect(pidless(ours.out)).toBe(pidless(theirs.out));
    expect(leftovers(spool)).toEqual([]);
  });

  test.skipIf(spawnSync('zsh', ['-c', 'true']).status !== 0)("a zsh snapshot runs in zsh, by its path: zsh's own words, status and SHLVL; a large output is stored", async () => {
    // Claude Code with SHELL=zsh (macOS's default) snapshots zsh and runs the script in it
    const script = (command: string) => scriptFor(command, join(root, 'cwd'), join(root, 'snapshot-zsh-1.sh'));
    const zsh = spawnSync('sh', ['-c', 'command -v zsh']).stdout.toString().trim();
    const small = script('print -r -- "${ZSH_VERSION:+zsh} $0 $SHLVL"; nosuchcommand; echo ${(U)${:-up}}; exit 3');
    const ours = await prefix([small], { SHELL: zsh });
    const theirs = await new Promise<Buffer>((done) => {
      const child = spawn('bash', ['-c', 'exec "$@" 2>&1', 'bash', zsh, '-c', small], { env: { PATH: process.env.PATH!, HOME: root, TMPDIR: join(root, 'tmp'), SHELL: zsh } });
      const out: Buffer[] = [];
      child.stdout.on('data', (d: Buffer) => out.push(d));
      child.on('close', () => done(Buffer.concat(out)));
    });
    expect(ours.code).toBe(3);
    expect(ours.out.toString()).toBe(theirs.toString());
    expect(ours.out.toString()).toMatch(/^zsh \S*zsh \d+\n/);
    const large = await prefix([script('seq 1 20000; print -r -- "${ZSH_VERSION:+zsh}"')], { SHELL: zsh, LRO_NODE: process.execPath });
    const id = /id: (\w{26})/.exec(large.out.toString())?.[1];
    expect(id, large.out.toString().slice(0, 300)).toBeDefined();
    const cat = await lro(['cat', id!], { env: { LRO_DIR: join(root, 'store') } });
    expect(cat.stdout.toString().endsWith('20000\nzsh\n')).toBe(true);
  });

  test.skipIf(!canMountTmpfs)("a full $TMPDIR: an output cut by it is stored marked as cut, or told as cut, never shown as if whole", async () => {
    // a tmpfs of 256 kB as $TMPDIR, filled but for `free` kB (the store elsewhere, or on it too)
    const inFullTmp = (free: number, command: string, storeThere = false) => {
      const dir = join(root, `full-${free}-${storeThere}`);
      mkdirSync(dir);
      const setup = `mount -t tmpfs -o size=256k none "$0" && mkdir -m 700 "$0/lro-prefix-$(id -u)" && head -c $(((256 - ${free}) * 1024)) /dev/zero > "$0/fill" 2>/dev/null; export TMPDIR="$0"${storeThere ? ' LRO_DIR="$0/store"' : ''}; exec "$@"`;
      return prefix([claudeScript(command)], { LRO_NODE: process.execPath }, undefined, undefined, ['unshare', '-m', 'sh', '-c', setup, dir]);
    };
    const idOf = (text: string) => /id: (\w{26})/.exec(text)?.[1];
    const all = (n: number) => Buffer.from(Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join('').slice(0, n));
    // a medium output (the resident helper would call it small) and a small one, each cut where the disk ran out
    for (const [free, bytes] of [[8, 23_897], [4, 10_000]]) {
      const r = await inFullTmp(free, `seq 1 5000 | head -c ${bytes}`);
      const text = r.out.toString();
      expect(text, text.slice(0, 300)).toMatch(/INCOMPLETE: the temporary folder \(.*\) was full: the end may be missing/);
      const cat = await lro(['cat', idOf(text)!], { env: { LRO_DIR: join(root, 'store') } });
      expect(cat.stdout.length).toBeLessThan(bytes);
      expect(all(bytes).subarray(0, cat.stdout.length).equals(cat.stdout)).toBe(true);
    }
    // nothing could be written: said so, not silence
    const none = await inFullTmp(0, 'seq 1 3000');
    expect(none.out.toString()).toMatch(/^lro-shell-prefix: the temporary folder \(.*\) is full: what the command printed, if anything, was lost; /);
    // the store is full too: what there is, whole, between a line saying why and a note saying it is cut
    const both = await inFullTmp(8, 'seq 1 5000 | head -c 23897', true);
    const text = both.out.toString();
    expect(text).toMatch(/^lro: could not store the full result in .* \(ENOSPC: .*\): the output follows whole, as without lro\n1\n2\n/);
    expect(text).toMatch(/\nlro-shell-prefix: the temporary folder \(.*\) is full: the output above may be cut where it ran out of space; .*\n$/);
    expect(idOf(text)).toBeUndefined();
  });

  test('LRO_SHELL_PREFIX_OFF=1: a large output comes back as plain bash gives it, and nothing of lro is in the environment', async () => {
    const command = 'seq 1 20000; echo "$SHLVL ${LRO_NODE-unset} ${LRO_SHELL_PREFIX_WRAP-unset}"';
    const script = claudeScript(command);
    const [ours, theirs] = await Promise.all([prefix([script], { LRO_SHELL_PREFIX_OFF: '1' }), plain(script)]);
    expect(ours.code).toBe(0);
    expect(ours.out.equals(theirs.out)).toBe(true);
    // as lro's Codex hook calls it, off in that project: the hook's own variables are not the command's
    const codex = await prefix([command], { LRO_SHELL_PREFIX_OFF: '1', LRO_SHELL_PREFIX_WRAP: 'codex', LRO_NODE: process.execPath });
    expect(codex.out.equals((await plain(command)).out)).toBe(true);
  });

  test('a long call with a medium output comes back once, exactly as bash gives it (text and NUL bytes)', async () => {
    const live = { LRO_SHELL_PREFIX_LIVE_AFTER: '1' };
    for (const command of [
      'echo build started; sleep 2; seq 1 1500; echo build done',
      "echo started; sleep 2; for i in $(seq 700); do printf 'abcdefgh\\0\\n'; done",
    ]) {
      const script = claudeScript(command);
      const [ours, theirs] = await Promise.all([prefix([script], live), plain(script)]);
      expect(theirs.out.length).toBeGreaterThan(6400);
      expect(ours.code).toBe(0);
      expect(ours.out.equals(theirs.out), ours.out.toString('latin1').slice(0, 300)).toBe(true);
    }
  });

  test.skipIf(!canUnsharePid)('two calls at once in their own pid namespaces (both pid 1) each get their own output', async () => {
    const call = (mark: string) =>
      prefix([claudeScript(`for i in $(seq 1 200); do echo ${mark}$i; [ $i = 100 ] && sleep 1; done; echo "pid $$"`)], {}, undefined, undefined, [
        'unshare',
        '-pf',
        '--mount-proc',
      ]);
    const [a, b] = await Promise.all([call('A'), call('B')]);
    const want = (mark: string, pid: string) => `${Array.from({ length: 200 }, (_, i) => `${mark}${i + 1}\n`).join('')}pid ${pid}\n`;
    const pidOf = (r: Ran) => /pid (\d+)\n$/.exec(r.out.toString())?.[1] ?? '?';
    expect(Number(pidOf(a))).toBeLessThan(10); // inside a namespace of its own (the prefix itself is pid 1 in both)
    expect(a.out.toString()).toBe(want('A', pidOf(a)));
    expect(b.out.toString()).toBe(want('B', pidOf(b)));
  });

  test('the descriptor shows the command as written, however Claude Code quoted it', async () => {
    const big = join(root, 'bigout');
    writeFileSync(big, '#!/bin/sh\nseq 1 100000\n');
    chmodSync(big, 0o755);
    for (const command of [`echo 'it'"'"'s'; seq 1 100000`, `cat <<'EOF'\nit's\nEOF\nseq 1 100000`, 'seq 1 100000 < /dev/null', big]) {
      const r = await prefix([claudeScript(command)]);
      expect(r.out.toString()).toContain(`source: ${command.replace(/\s*\n\s*/g, ' ')} (exit code 0)`);
    }
  });

  test('interrupted with more than can be stored before the harness kills: the end is stored, and the descriptor says what is not', async () => {
    const script = join(root, 'slow-big.sh');
    writeFileSync(script, 'seq 1 100000\nsleep 30\n');
    const r = await prefix([claudeScript(`bash ${script}`)], { LRO_SHELL_PREFIX_TERM_KEEP: '100000' }, (pid) =>
      setTimeout(() => process.kill(-pid, 'SIGTERM'), 1500),
    );
    expect(r.signal).toBe('SIGTERM');
    const text = r.out.toString();
    expect(text).toMatch(/INCOMPLETE: the call was interrupted \(SIGTERM\): this is the end of what it printed until then; its first 489 kB are not kept/);
    const id = /id: (\w{26})/.exec(text)![1];
    const all = Buffer.from(`${Array.from({ length: 100000 }, (_, i) => i + 1).join('\n')}\n`);
    const cat = await lro(['cat', id], { env: { LRO_DIR: join(root, 'store') } });
    expect(cat.stdout.equals(all.subarray(all.length - 100000))).toBe(true);
  });

  test('an output that grows past LRO_SHELL_PREFIX_MAX_BYTES gives its start back to the disk as it runs, and is stored by its end', async () => {
    // 64 MB in 16 pieces, half a second apart; the cap 4 MiB, the end kept 1 MiB
    const piece = (i: number) => `${String.fromCharCode(97 + i)}${'y'.repeat(4_000_000 - 2)}\n`;
    const command = "for c in a b c d e f g h i j k l m n o p; do printf %s \"$c\"; head -c 3999998 /dev/zero | tr '\\0' y; echo; sleep 0.5; done";
    let most = 0;
    let timer: NodeJS.Timeout | undefined;
    const env = { LRO_SHELL_PREFIX_MAX_BYTES: String(4 << 20), LRO_SHELL_PREFIX_TERM_KEEP: String(1 << 20), LRO_SHELL_PREFIX_LIVE_AFTER: '1' };
    const r = await prefix([claudeScript(command)], env, (pid) => {
      // the disk the temporary file takes (its blocks), while the command runs
      timer = setInterval(() => {
        try {
          most = Math.max(most, statSync(`/proc/${pid}/fd/4`).blocks * 512);
        } catch {
          /* not open yet, or ended */
        }
      }, 100);
    });
    clearInterval(timer);
    expect(r.code).toBe(0);
    const text = r.out.toString();
    expect(text).toMatch(/INCOMPLETE: it printed more than 4\.2 MB \(LRO_SHELL_PREFIX_MAX_BYTES\): this is the end of what it printed; its first 63 MB were given back to the disk as it ran/);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThan(20e6); // written: 64 MB
    const all = Buffer.from(Array.from({ length: 16 }, (_, i) => piece(i)).join(''));
    const id = /id: (\w{26})/.exec(text)![1];
    const cat = await lro(['cat', id], { env: { LRO_DIR: join(root, 'store') } });
    expect(cat.stdout.equals(all.subarray(all.length - (1 << 20)))).toBe(true);
  });

  test('killed (KILL, as a harness does after its grace): no temporary file is left', async () => {
    const r = await prefix([claudeScript('seq 1 200000; sleep 30')], {}, (pid) => setTimeout(() => process.kill(-pid, 'SIGKILL'), 1500));
    expect(r.signal).toBe('SIGKILL');
    expect(leftovers(spool)).toEqual([]);
  });

  // A call killed in the few milliseconds between making its file and removing the name (a KILL; under bubblewrap
  // --unshare-pid, a TERM, which bwrap turns into a KILL of its namespace) leaves the file: each call removes those
  // whose name gives a time over a minute old, and no other (a live call's name is gone within milliseconds).
  test('files that killed calls left are removed by a later call once a minute old; no other file', async () => {
    const now = Math.floor(Date.now() / 1000);
    mkdirSync(spool, { recursive: true, mode: 0o700 });
    const stale = [`t${now - 120}.77.1`, `t${now - 3600}.78.2`];
    const kept = [`t${now - 5}.79.3`, `t${now - 120}.80.4.shown`, '81.5', 'tmpnotes'];
    for (const f of [...stale, ...kept]) writeFileSync(join(spool, f), '');
    const r = await prefix([claudeScript('echo hi')]);
    expect(r.out.toString()).toBe('hi\n');
    const left = readdirSync(spool);
    for (const f of stale) expect(left).not.toContain(f);
    for (const f of kept) expect(left).toContain(f);
    for (const f of kept) rmSync(join(spool, f));
  });

  test.skipIf(!isRoot)('a full temporary folder: the output is stored marked as cut, never as complete', async () => {
    const small = join(root, 'small-tmp');
    mkdirSync(small);
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small]).status !== 0) return; // no mounts here
    try {
      const r = await prefix([claudeScript('seq 1 1000000; exit 5')], { TMPDIR: small });
      expect(r.code).toBe(5);
      const text = r.out.toString();
      expect(text).toMatch(/INCOMPLETE: the temporary folder \(.*\) was full: the end may be missing/);
    } finally {
      // (a process still holding it, such as a helper starting, is left its view of it: the folder is freed now)
      if (spawnSync('umount', [small]).status !== 0) spawnSync('umount', ['-l', small]);
    }
  });
});

describe('the resident helper and the store that cleans itself', () => {
  test('once a call has started the helper, a medium output that is small in tokens starts no Node', async () => {
    const tmp = join(root, 'tmp-resident');
    mkdirSync(tmp);
    const env = { TMPDIR: tmp };
    const big = await prefix([claudeScript('seq 1 100000')], env); // Node runs, and leaves the helper
    expect(big.out.toString()).toMatch(/^Output offloaded/);
    const file = join(tmp, `lro-prefix-${process.getuid!()}`, 'resident');
    for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(file, 'utf8')).toMatch(/^\d+ [0-9a-f]{32} \d+ \S+ door\.[0-9a-f]{16}\n$/);
    const medium = claudeScript('seq 1 2000; echo done'); // 8,898 bytes (over 6,400: a question for the helper), ~4,000 tokens
    const [ours, theirs] = await Promise.all([prefix([medium], { ...env, LRO_NODE: '/nonexistent/node' }), plain(medium)]);
    expect(ours.out.equals(theirs.out), ours.out.toString().slice(0, 200)).toBe(true); // no "cannot offload" note
    // a large one is still stored (the helper says large; Node stores it)
    const large = await prefix([claudeScript('seq 1 5000')], env);
    expect(large.out.toString()).toMatch(/^Output offloaded: 5,000 lines/);
  });

  test.skipIf(!!bwrap.skip)("inside bubblewrap's pid namespace (a sandbox, as Claude Code's on Linux) a call starts no helper and returns at once", async () => {
    // bwrap's first process waits for every process of its namespace: a helper started there held the call open
    // until its idle exit (15 minutes), and the harness waiting on its output with it
    const tmp = join(root, 'tmp-bwrap');
    mkdirSync(tmp);
    // as a sandbox may run it: without --die-with-parent (with it, bwrap's end also ends the helper)
    const wrapper = [bwrap.bin!, ...bwrapArgs({ writable: [root], proc: bwrap.skip === undefined && bwrap.proc }).filter((a) => a !== '--die-with-parent')];
    const env = { TMPDIR: tmp, LRO_NODE: process.execPath };
    for (const command of ['seq 1 2000', 'seq 1 5000']) {
      const started = Date.now();
      const r = await prefix([claudeScript(command)], env, undefined, undefined, wrapper);
      expect(Date.now() - started, command).toBeLessThan(20_000);
      expect(r.code, r.out.toString().slice(0, 300)).toBe(0);
      if (command === 'seq 1 2000') expect(r.out.toString()).toBe(`${Array.from({ length: 2000 }, (_, i) => i + 1).join('\n')}\n`);
      else expect(r.out.toString()).toMatch(/^Output offloaded: 5,000 lines/);
    }
    expect(existsSync(join(tmp, `lro-prefix-${process.getuid!()}`, 'resident'))).toBe(false);
  });

  test.skipIf(!!bwrap.skip)("in a sandbox with a network of its own (Claude Code's bubblewrap), the call knocks at the helper's door", async () => {
    // the port of the helper outside cannot be reached from there: before, every medium output started Node
    const tmp = join(root, 'tmp-resident'); // the helper the first test of this block left
    const wrapper = [bwrap.bin!, ...bwrapArgs({ writable: [root], proc: bwrap.skip === undefined && bwrap.proc, net: false })];
    const medium = claudeScript('seq 1 2000; echo done');
    const [ours, theirs] = await Promise.all([prefix([medium], { TMPDIR: tmp, LRO_NODE: '/nonexistent/node' }, undefined, undefined, wrapper), plain(medium)]);
    expect(ours.out.toString().slice(0, 300)).not.toContain('cannot offload');
    expect(ours.out.equals(theirs.out)).toBe(true);
    const large = await prefix([claudeScript('seq 1 5000')], { TMPDIR: tmp, LRO_NODE: '/nonexistent/node' }, undefined, undefined, wrapper);
    expect(large.out.toString()).toMatch(/cannot offload/); // the helper said large: Node's to store
    expect(leftovers(join(tmp, `lro-prefix-${process.getuid!()}`))).toEqual([]);
  });

  test.skipIf(!isRoot)('a helper started where sockets are refused has its door alone; one that can listen takes over', async () => {
    const tmp = join(root, 'tmp-door');
    const dir = join(tmp, `lro-prefix-${process.getuid!()}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'resident');
    const lroJs = resolve(__dirname, '../../bin/lro.js');
    // a network namespace of its own (as Codex's workspace-write sandbox, which refuses sockets)
    const helper = spawn('unshare', ['-n', process.execPath, lroJs, '__resident', '--spool', dir], { stdio: 'ignore', detached: true });
    for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(file, 'utf8')).toMatch(/^- [0-9a-f]{32} \d+ \S+ door\.[0-9a-f]{16}\n$/);
    const medium = claudeScript('seq 1 2000; echo done');
    const env = { TMPDIR: tmp, LRO_NODE: '/nonexistent/node' };
    const [ours, theirs] = await Promise.all([prefix([medium], env), plain(medium)]);
    expect(ours.out.equals(theirs.out), ours.out.toString().slice(0, 200)).toBe(true);
    // many calls at once, each its own pair of FIFOs
    const many = await Promise.all(Array.from({ length: 8 }, () => prefix([medium], env)));
    for (const r of many) expect(r.out.equals(theirs.out)).toBe(true);
    expect(leftovers(dir)).toEqual([]);
    // a second one where sockets are refused leaves the first in place
    const again = spawnSync('unshare', ['-n', process.execPath, lroJs, '__resident', '--spool', dir], { timeout: 10_000 });
    expect(again.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^- /);
    // a call that runs Node where it can listen replaces it with a helper that has both
    const large = await prefix([claudeScript('seq 1 100000')], { TMPDIR: tmp });
    expect(large.out.toString()).toMatch(/^Output offloaded/);
    for (let i = 0; i < 100 && readFileSync(file, 'utf8').startsWith('-'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(file, 'utf8')).toMatch(/^\d+ [0-9a-f]{32} \d+ \S+ door\.[0-9a-f]{16}\n$/);
    // the first saw its file name another and ended (its door closed with it)
    await new Promise<void>((r) => (helper.exitCode !== null ? r() : helper.on('exit', () => r())));
    expect(readdirSync(dir).filter((f) => f.startsWith('door.'))).toHaveLength(1);
  }, 40_000);

  test.skipIf(!isRoot)("a killed helper's door costs one call a second, then is gone", async () => {
    const tmp = join(root, 'tmp-door');
    const dir = join(tmp, `lro-prefix-${process.getuid!()}`);
    const [, , pid, , door] = readFileSync(join(dir, 'resident'), 'utf8').trim().split(' ');
    process.kill(Number(pid), 'SIGKILL');
    // sockets refused, so the door is all there is
    const wrapper = ['unshare', '-n'];
    const medium = claudeScript('seq 1 2000; echo done');
    const env = { TMPDIR: tmp, LRO_NODE: '/nonexistent/node' };
    let started = Date.now();
    const first = await prefix([medium], env, undefined, undefined, wrapper);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(first.out.toString()).toContain('cannot offload'); // no answer: Node's question (and no Node here)
    expect(existsSync(join(dir, door))).toBe(false);
    started = Date.now();
    const second = await prefix([medium], env, undefined, undefined, wrapper);
    expect(Date.now() - started).toBeLessThan(900);
    expect(second.out.toString()).toContain('cannot offload');
    expect(leftovers(dir)).toEqual([]);
  }, 30_000);

  test('the door answers only its token, and only a well-formed knock', async () => {
    const tmp = join(root, 'tmp-door');
    const dir = join(tmp, `lro-prefix-${process.getuid!()}`);
    rmSync(join(dir, 'resident'), { force: true });
    const helper = spawn(process.execPath, [resolve(__dirname, '../../bin/lro.js'), '__resident', '--spool', dir], { stdio: 'ignore' });
    try {
      const file = join(dir, 'resident');
      for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
      const [, token, , , door] = readFileSync(file, 'utf8').trim().split(' ');
      const body = 'word '.repeat(2000);
      // the knock as bin/lro-shell-prefix makes it, in bash
      const knock = (line: string, ask = 'ask.1.2') =>
        spawnSync('bash', ['-c', `cd "$0" && mkfifo -m 600 ${ask}.in ${ask}.out && exec 9<>${ask}.out && printf '%s\\n' "$1" 1<>"$2" &&
          if IFS= read -r -t 1 -u 9 go && [[ $go == go ]]; then printf '%s' "$3" >${ask}.in; IFS= read -r -t 2 -u 9 a; echo "$a"; else echo none; fi; rm -f ${ask}.in ${ask}.out`,
          dir, line.replace('ASK', ask), door, body], { encoding: 'utf8' }).stdout;
      expect(knock(`${token} tokens ${body.length} 6400 ASK`)).toBe('small\n');
      expect(knock(`${token} tokens ${body.length} 100 ASK`)).toBe('large\n');
      expect(knock(`${'0'.repeat(32)} tokens ${body.length} 6400 ASK`)).toBe('none\n');
      expect(knock(`${token} codex-hook ${body.length} 0 ASK`)).toBe('none\n'); // the door takes the prefix's question only
      expect(knock(`${token} tokens ${body.length} 6400 ../ASK`)).toBe('none\n');
      expect(knock(`${token} tokens ${body.length} 6400 ASK`, 'ask.x')).toBe('none\n');
    } finally {
      helper.kill();
    }
  }, 30_000);

  test('a helper that cannot write where calls find it (a full or broken $TMPDIR) ends at once, not listening for ever', async () => {
    // before, its port stayed open with no file naming it: one leaked process per such start (seen after the
    // full-temporary-folder test: helpers of hours before, still listening)
    const r = await lro(['__resident', '--spool', join(root, 'not-a-folder', 'x')], { input: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: .*ENOENT/);
  }, 10_000);

  test('the helper answers only its token, and only a well-formed request', async () => {
    const tmp = join(root, 'tmp-resident');
    const [port, token] = readFileSync(join(tmp, `lro-prefix-${process.getuid!()}`, 'resident'), 'utf8').split(' ');
    const ask = (line: string, body = '') =>
      new Promise<string>((done) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(line + body));
        let got = '';
        socket.on('data', (d) => (got += d));
        socket.on('close', () => done(got));
        socket.on('error', () => done(got));
      });
    const body = 'word '.repeat(2000);
    expect(await ask(`${token} tokens ${body.length} 6400\n`, body)).toBe('small\n');
    expect(await ask(`${token} tokens ${body.length} 100\n`, body)).toBe('large\n');
    expect(await ask(`${'0'.repeat(32)} tokens ${body.length} 6400\n`, body)).toBe('');
    expect(await ask(`${token} run ${body.length} 6400\n`, body)).toBe('');
    expect(await ask(`${token} tokens 99999999 6400\n`, body)).toBe('');
  });

  test('a call that stores an output starts gc now and then: an expired result goes without cron', async () => {
    const tmp = join(root, 'tmp-gc');
    mkdirSync(tmp);
    const store = join(root, 'gc-store');
    const old = await lro(['offload', '--force', '--ttl', '1s', '--descriptor', 'json'], { input: 'x\n'.repeat(10), env: { LRO_DIR: store } });
    const id = JSON.parse(old.out).id as string;
    await new Promise((r) => setTimeout(r, 1100));
    await prefix([claudeScript('seq 1 100000')], { TMPDIR: tmp, LRO_DIR: store });
    let left = true;
    for (let i = 0; i < 100 && left; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = readdirSync(store).some((f) => f.includes(id));
    }
    expect(left).toBe(false);
  });
});

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

  test('interrupted: what the command printed is still stored, marked as cut, and the prefix ends by the signal', async () => {
    const script = join(root, 'slow.sh');
    writeFileSync(script, 'seq 1 100000\nsleep 30\n');
    chmodSync(script, 0o755);
    const r = await prefix([claudeScript(`bash ${script}`)], {}, (pid) => setTimeout(() => process.kill(-pid, 'SIGTERM'), 1500));
    expect(r.signal).toBe('SIGTERM'); // as plain bash ends
    expect(r.out.toString()).toMatch(/offloaded: 100,000 lines/);
    expect(r.out.toString()).toContain('INCOMPLETE: the call was interrupted (SIGTERM)');
    expect(leftovers(spool)).toEqual([]);
  });

  test('a command that handles the signal and ends on its own: its output is whole, not told as cut', async () => {
    const script = join(root, 'handles.sh');
    writeFileSync(script, "trap 'echo caught; exit 0' INT\nseq 1 100000\nsleep 30 & wait\n");
    const r = await prefix([claudeScript(`bash ${script}`)], {}, (pid) => setTimeout(() => process.kill(-pid, 'SIGINT'), 1500));
    expect(r.code).toBe(0); // as plain bash ends: the command's own status
    const text = r.out.toString();
    expect(text).toMatch(/offloaded: 100,001 lines/);
    expect(text).not.toContain('INCOMPLETE');
    const id = /id: (\w{26})/.exec(text)![1];
    const tail = await lro(['read', id, '--tail', '1'], { env: { LRO_DIR: join(root, 'store') } });
    expect(tail.out).toContain('caught');
  });

  // bash 5 with /proc reads the command's status with a time limit and shows the head itself; bash 3.2 and a system
  // without /proc (macOS) wait for a command substitution, and a watcher beside it shows the head (before, nothing
  // came until the command ended: a server moved to the background showed nothing at all)
  const b32 = ensureBash32();
  test.each([
    { place: 'bash 5', wrapper: [] as string[], skip: undefined as string | undefined },
    { place: 'bash 3.2', wrapper: b32.skip === undefined ? [b32.bin] : [], skip: b32.skip },
    { place: 'no /proc (the paths macOS takes)', wrapper: ['env', 'LRO_SHELL_PREFIX_NO_PROC=1', '/bin/bash'], skip: undefined },
  ])('a long-running command shows the head of its output while it runs; the whole is still exact or stored ($place)', async ({ wrapper, skip }) => {
    if (skip) return;
    const live = { LRO_SHELL_PREFIX_LIVE_AFTER: '1' };
    let firstAt = 0;
    const start = Date.now();
    // (sleeps long beside LIVE_AFTER=1, so a loaded machine still sees the head while the command runs)
    const small = await prefix([claudeScript("printf 'started\\n'; sleep 6; printf 'done\\n'; exit 2")], live, undefined, () => (firstAt ||= Date.now()), wrapper);
    expect(small.code).toBe(2);
    expect(small.out.toString()).toBe('started\ndone\n');
    expect(Date.now() - firstAt).toBeGreaterThan(1000); // "started" came while it still ran
    expect(firstAt - start).toBeLessThan(5500);
    const big = await prefix([claudeScript("echo started; sleep 6; seq 1 100000; exit 1")], live, undefined, undefined, wrapper);
    expect(big.code).toBe(1);
    const text = big.out.toString();
    // the head is what had come by the first look: "started" alone, or (a loaded machine looking late) more of it
    const shown = /^([^]*?)\n\[lro: the output above is its first (\d+) bytes, shown while it ran; all of it is stored:\]\nOutput offloaded: 100,001 lines/.exec(text);
    expect(shown, text.slice(0, 300)).not.toBeNull();
    const whole = `started\n${Array.from({ length: 100000 }, (_, i) => i + 1).join('\n')}\n`;
    expect(shown![1]).toBe(whole.slice(0, Number(shown![2])));
    expect(shown![1].startsWith('started\n')).toBe(true);
    expect(text).toContain('(exit code 1)');
    expect(leftovers(spool)).toEqual([]);
  });
});
