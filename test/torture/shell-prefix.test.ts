// The shell prefix against plain bash, on the machines and userlands harnesses run on: fuzzed outputs (sizes around
// every threshold, binary, NUL, CR, invalid UTF-8, no trailing newline, stderr between stdout) must come back byte
// for byte as `bash -c` gives them, or as a descriptor whose stored result is those bytes; the status is bash's.
// Then signals at random moments, many calls at once in and out of pid namespaces, a read-only store and no Node.
// Each under bash 5, bash 3.2 (macOS's /bin/bash, built from source), busybox's userland first on PATH, no /proc
// (macOS has none), and bubblewrap with --unshare-pid (Claude Code's Linux sandbox), where this machine has them.
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, onTestFinished, test } from 'vitest';
import { claudeScript } from '../helpers/claude-script.js';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { bwrapArgs, ensureBash32, ensureBusybox, ensureBwrap } from '../helpers/old-shells.js';
import { seeded } from '../helpers/seeded.js';

const PREFIX = resolve(__dirname, '../../bin/lro-shell-prefix');
const root = tempDir();
afterAll(() => cleanup(root));
const isRoot = process.getuid?.() === 0;
/**
 * Output files left in the prefix's folder: its resident helper's file and gc's stamps are not output, nor what a
 * helper killed with its sandbox (bubblewrap --unshare-pid) leaves: its door and the file it had not yet named,
 * resident.PID.RANDOM.tmp (the prefix's hourly sweep takes them; the next helper's names differ).
 */
const leftovers = (dir: string) =>
  readdirSync(dir).filter((f) => f !== 'resident' && !f.startsWith('gc-') && !f.startsWith('door.') && !/^resident\.\d+\.[0-9a-f]+\.tmp$/.test(f));

interface Ran {
  status: number;
  out: Buffer;
}

/** A place the prefix runs: how it is started, and the bash `bash -c` means there. */
interface Place {
  name: string;
  skip?: string;
  /** Put before the command (a wrapper such as unshare or bwrap). */
  wrap: string[];
  /** The bash that runs the prefix and the plain script, by the path Claude Code would run (SHELL is set to it). */
  bash: string;
  /** PATH first entries (bash 3.2's folder, busybox's applets). */
  path: string[];
  /** A resident helper started outside the place first (one inside a sandbox outlives nothing). */
  helper?: boolean;
}

function places(): Place[] {
  const out: Place[] = [{ name: 'bash 5', wrap: [], bash: '/bin/bash', path: [] }];
  const b32 = ensureBash32();
  out.push(b32.skip !== undefined ? { name: 'bash 3.2', skip: b32.skip, wrap: [], bash: 'bash', path: [] } : { name: 'bash 3.2', wrap: [], bash: b32.bin, path: [resolve(b32.bin, '..')] });
  const bb = ensureBusybox();
  out.push(bb.skip !== undefined ? { name: 'busybox userland', skip: bb.skip, wrap: [], bash: 'bash', path: [] } : { name: 'busybox userland', wrap: [], bash: '/bin/bash', path: [bb.pathDir] });
  // macOS has no /proc (but has /dev/fd): the prefix's paths for that, taken on request
  out.push({ name: 'no /proc (the paths macOS takes)', wrap: ['env', 'LRO_SHELL_PREFIX_NO_PROC=1'], bash: '/bin/bash', path: [] });
  // and with busybox's tools there (its dd prints no byte count, its wc reads what it counts)
  const noProcBusybox = 'no /proc, busybox userland';
  out.push(bb.skip !== undefined ? { name: noProcBusybox, skip: bb.skip, wrap: [], bash: 'bash', path: [] } : { name: noProcBusybox, wrap: ['env', 'LRO_SHELL_PREFIX_NO_PROC=1'], bash: '/bin/bash', path: [bb.pathDir] });
  // Linux with no /proc mounted at all (no /dev/fd either): the prefix steps aside, the call runs as without lro
  const noProc = isRoot && spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs none /proc && test ! -e /proc/self']).status === 0;
  out.push({
    name: 'Linux without /proc',
    ...(noProc ? {} : { skip: 'needs root and mount namespaces' }),
    wrap: ['unshare', '-m', 'sh', '-c', 'mount -t tmpfs none /proc && exec "$@"', 'sh'],
    bash: '/bin/bash',
    path: [],
  });
  const bw = ensureBwrap();
  // Claude Code's sandbox: a /proc of its own, or (nested in a container) the host's, where $$ names another process
  for (const proc of [true, false]) {
    const name = `bubblewrap --unshare-pid${proc ? '' : ' without its own /proc'}`;
    if (bw.skip !== undefined) out.push({ name, skip: bw.skip, wrap: [], bash: 'bash', path: [] });
    else if (proc && !bw.proc) out.push({ name, skip: 'bwrap cannot mount a /proc here', wrap: [], bash: 'bash', path: [] });
    else out.push({ name, wrap: [bw.bin, ...bwrapArgs({ writable: [root], proc })], bash: '/bin/bash', path: [] });
  }
  // and with a network of its own, as Claude Code's: a medium output is put to a helper outside through its door
  const name = 'bubblewrap --unshare-pid --unshare-net, a helper outside';
  if (bw.skip !== undefined) out.push({ name, skip: bw.skip, wrap: [], bash: 'bash', path: [] });
  else out.push({ name, wrap: [bw.bin, ...bwrapArgs({ writable: [root], proc: bw.proc, net: false })], bash: '/bin/bash', path: [], helper: true });
  return out;
}

/** Runs `argv` with stdout and stderr as one stream (as a harness reads them); its status as a shell sees it. */
function run(argv: string[], env: Record<string, string>, onSpawn?: (pid: number) => void): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-c', 'exec "$@" 2>&1', 'bash', ...argv], { env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.on('error', fail);
    child.on('spawn', () => onSpawn?.(child.pid!));
    child.on('close', (code, signal) => done({ status: code ?? 128 + constants.signals[signal!], out: Buffer.concat(out) }));
  });
}

/** `lro __resident` for the folder `spool`, once its file is written. */
async function startHelper(spool: string): Promise<ChildProcess> {
  mkdirSync(spool, { recursive: true, mode: 0o700 });
  const child = spawn(process.execPath, [resolve(__dirname, '../../bin/lro.js'), '__resident', '--spool', spool], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !existsSync(join(spool, 'resident')); i++) await new Promise((r) => setTimeout(r, 50));
  expect(readFileSync(join(spool, 'resident'), 'utf8')).toMatch(/ door\.[0-9a-f]{16}\n$/);
  return child;
}

const store = join(root, 'store');
const spoolOf = (tmp: string) => join(tmp, `lro-prefix-${process.getuid!()}`);

function envFor(place: Place, tmp: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: [...place.path, process.env.PATH!].join(':'), SHELL: place.bash, HOME: root, LRO_DIR: store, TMPDIR: tmp, LRO_NODE: process.execPath, ...extra };
}

const prefixed = (place: Place, script: string, env: Record<string, string>, onSpawn?: (pid: number) => void) =>
  run([...place.wrap, place.bash, PREFIX, script], env, onSpawn);
const plain = (place: Place, script: string, env: Record<string, string>) => run([...place.wrap, place.bash, '-c', script], env);

/** The bytes a stored result holds, by the id in a descriptor. */
async function stored(descriptor: string): Promise<Buffer> {
  const id = /id: (\w{26})/.exec(descriptor)?.[1];
  expect(id, descriptor.slice(0, 400)).toBeDefined();
  const r = await lro(['cat', id!], { env: { LRO_DIR: store } });
  expect(r.code).toBe(0);
  return r.stdout;
}

/** The prefix's answer is plain bash's bytes, or a descriptor of a result holding them; the status is the same. */
async function expectTwin(ours: Ran, theirs: Ran, what: string): Promise<void> {
  expect(ours.status, what).toBe(theirs.status);
  if (ours.out.equals(theirs.out)) return;
  const text = ours.out.toString('latin1');
  expect(text, what).toMatch(/^(?:[^]*\n\[lro: the output above is its first \d+ bytes, shown while it ran; all of it is stored:\]\n)?Output offloaded: /);
  const shown = /^([^]*)\n\[lro: the output above is its first (\d+) bytes/.exec(text);
  if (shown) expect(Buffer.from(shown[1], 'latin1').equals(theirs.out.subarray(0, Number(shown[2]))), what).toBe(true);
  expect((await stored(ours.out.toString())).equals(theirs.out), what).toBe(true);
}

/** Bytes that matter: line ends, NUL, invalid UTF-8, multi-byte characters, and letters. */
const BYTES = [0x0a, 0x0d, 0x00, 0xff, 0xfe, 0xc3, 0xa9, 0xed, 0xa0, 0x80, 0xe2, 0x82, 0xac, 0x20, 0x09, 0x1b];
const THRESHOLD = 6400;
const output = fc
  .record({
    size: fc.oneof(
      fc.constantFrom(0, 1, THRESHOLD - 1, THRESHOLD, THRESHOLD + 1, 4 * THRESHOLD, 4 * THRESHOLD + 1),
      fc.integer({ min: THRESHOLD - 50, max: THRESHOLD + 50 }),
      fc.integer({ min: 0, max: 30_000 }),
      fc.integer({ min: 30_000, max: 400_000 }),
    ),
    kind: fc.constantFrom('lines', 'binary', 'special', 'words'),
    seed: fc.integer({ min: 1, max: 1 << 30 }),
    stderr: fc.constantFrom('', 'err\n', 'no newline', '\0\xff'),
    exit: fc.constantFrom(0, 1, 3, 127, 255),
    newline: fc.boolean(),
  })
  .map(({ size, kind, seed, stderr, exit, newline }) => {
    const rnd = seeded(seed).next;
    const b = Buffer.alloc(size);
    for (let i = 0; i < size; i++) {
      const r = rnd();
      if (kind === 'binary') b[i] = r & 0xff;
      else if (kind === 'special') b[i] = r % 3 === 0 ? BYTES[r % BYTES.length] : 0x61 + (r % 26);
      else if (kind === 'words') b[i] = r % 7 === 0 ? 0x20 : r % 61 === 0 ? 0x0a : 0x61 + (r % 26);
      else b[i] = r % 40 === 0 ? 0x0a : 0x30 + (r % 10);
    }
    if (size > 0) b[size - 1] = newline ? 0x0a : 0x78;
    return { bytes: b, stderr, exit };
  });

let n = 0;
/** A command printing `bytes` (half, then stderr, then the rest) and ending with `exit`. */
function commandFor(o: { bytes: Buffer; stderr: string; exit: number }): string {
  const file = join(root, `out-${n++}`);
  writeFileSync(file, o.bytes);
  const half = Math.floor(o.bytes.length / 2);
  const err = o.stderr ? `; printf '${[...Buffer.from(o.stderr, 'latin1')].map((c) => `\\${c.toString(8).padStart(3, '0')}`).join('')}' >&2` : '';
  return `head -c ${half} ${file}${err}; tail -c +${half + 1} ${file}; exit ${o.exit}`;
}

for (const place of places()) {
  describe(`the shell prefix under ${place.name}`, () => {
    test.skipIf(place.skip !== undefined)(`fuzzed outputs: plain bash's bytes and status, or all of them stored${place.skip ? ` (${place.skip})` : ''}`, async () => {
      const tmp = join(root, `tmp-${place.name.replace(/\W+/g, '-')}`);
      mkdirSync(tmp, { recursive: true });
      const cwd = join(root, 'cwd');
      const helper = place.helper ? await startHelper(spoolOf(tmp)) : undefined;
      onTestFinished(() => void helper?.kill());
      const samples = fc.sample(output, { numRuns: 40, seed: 37 });
      for (const o of samples) {
        const script = claudeScript(commandFor(o), cwd);
        const env = envFor(place, tmp);
        const [ours, theirs] = await Promise.all([prefixed(place, script, env), plain(place, script, env)]);
        await expectTwin(ours, theirs, `${o.bytes.length} bytes, stderr ${JSON.stringify(o.stderr)}, exit ${o.exit}`);
      }
      // a call still running after a second shows its head live; the whole is the same
      for (const size of [3000, THRESHOLD + 500, 100_000]) {
        const file = join(root, `slow-${size}`);
        writeFileSync(file, Buffer.alloc(size, 'ab\0c\r\n'));
        const script = claudeScript(`head -c 1000 ${file}; sleep 2; tail -c +1001 ${file}`, cwd);
        const env = envFor(place, tmp, { LRO_SHELL_PREFIX_LIVE_AFTER: '1' });
        const [ours, theirs] = await Promise.all([prefixed(place, script, env), plain(place, script, env)]);
        await expectTwin(ours, theirs, `live, ${size} bytes`);
      }
      expect(leftovers(spoolOf(tmp))).toEqual([]);
    });

    test.skipIf(place.skip !== undefined)("what the command sees and bash says: SHLVL, $0, error names, notes of a killed child", async () => {
      const tmp = join(root, `tmp-env-${place.name.replace(/\W+/g, '-')}`);
      mkdirSync(tmp, { recursive: true });
      const command = 'echo "$SHLVL $BASH_SUBSHELL $0 ${LRO_NODE-unset}"; nosuchcommand; bash -c \'kill -SEGV $$\'; echo after';
      const script = claudeScript(command, join(root, 'cwd'));
      const env = envFor(place, tmp);
      const [ours, theirs] = await Promise.all([prefixed(place, script, env), plain(place, script, env)]);
      const pidless = (b: Buffer) => b.toString('latin1').replace(/line (\d+): +\d+ /g, 'line $1: PID ');
      expect(ours.status).toBe(theirs.status);
      expect(pidless(ours.out)).toBe(pidless(theirs.out));
    });

    test.skipIf(place.skip !== undefined)('TERM at a random moment: ended by TERM as bash is; the output given, or stored marked as cut', async () => {
      const tmp = join(root, `tmp-term-${place.name.replace(/\W+/g, '-')}`);
      mkdirSync(tmp, { recursive: true });
      const slow = join(root, 'slow.sh');
      writeFileSync(slow, 'i=0\nwhile [ $i -lt 30 ]; do seq 1 2000; i=$((i+1)); sleep 0.1; done\n');
      chmodSync(slow, 0o755);
      // the early ones land around the prefix's start and its subshell's fork (bash 3.2 signalled between its fork
      // and its first line printed warnings of its own and ended 137; a TERM before the command started was lost
      // and the command ran whole, exit 0). Not under bubblewrap: there they land in bwrap's own setup, which a
      // TERM can leave hanging with no prefix started yet.
      const early = place.name.startsWith('bubblewrap') ? [] : [10 + Math.floor(Math.random() * 30), 20 + Math.floor(Math.random() * 40), 30 + Math.floor(Math.random() * 60)];
      // (bash 3.2 does not block TERM across a fork: one landing while the subshell forked the command's shell was
      // taken by the inherited trap and lost, the command ran whole and the call ended 0, 6 times in 3,200 TERMs at
      // 10–70 ms here, until the command's shell got a `( exec … )` of its own, where bash sends it again.)
      // A TERM landing just before the prefix or its subshell forks is still lost now and then: bash defers the
      // trap that notes it until the fork is done, and the child never got it (the command ran whole, the call ended
      // 0: 0 to 3 calls in 150 with a TERM 10 to 120 ms in, as many before this stop; bench/prefix-signals.sh).
      // Such a call must give the whole output, not told as cut; more than one in a run is a failure.
      let lost = 0;
      for (const after of [...early, 50, 400, 900, 1700, 2600]) {
        const r = await prefixed(place, claudeScript(`bash ${slow}`, join(root, 'cwd')), envFor(place, tmp), (pid) =>
          setTimeout(() => process.kill(-pid, 'SIGTERM'), after),
        );
        const text = r.out.toString();
        if (r.status === 0 && after <= 90) {
          lost++;
          const whole = `${Array.from({ length: 2000 }, (_, i) => i + 1).join('\n')}\n`.repeat(30);
          expect(text).not.toContain('INCOMPLETE');
          expect(text.includes('Output offloaded') ? (await stored(text)).toString() : text).toBe(whole);
          continue;
        }
        expect(r.status, `TERM after ${after} ms`).toBe(143);
        if (text.includes('Output offloaded')) expect(text).toContain('INCOMPLETE: the call was interrupted (SIGTERM)');
        else expect(text).toMatch(/^(\d+\n)*\d*$/); // what it printed, as it printed it
      }
      expect(lost, 'TERMs lost').toBeLessThanOrEqual(1);
      // A TERM landing between the prefix making its output file and the removal of the name (milliseconds: the
      // prefix is killed before its subshell starts; under bubblewrap --unshare-pid, where a TERM to bwrap KILLs its
      // namespace, 1 call in 6 with a TERM 10 to 120 ms in: bench/prefix-signals.sh) leaves the file, empty. A
      // later call removes it once its name's time is a minute old: shown here by making the leftovers' names two
      // minutes older, then making one more call. bash 3.2 has no clock without a process: its names carry none,
      // and are left to the sweep of files an hour old.
      const spool = spoolOf(tmp);
      const left = leftovers(spool);
      for (const f of left) expect(statSync(join(spool, f)).size, f).toBe(0);
      if (place.name === 'bash 3.2') return;
      for (const f of left) {
        const m = /^t(\d+)(\.\d+\.\d+)$/.exec(f);
        expect(m, f).not.toBeNull();
        renameSync(join(spool, f), join(spool, `t${Number(m![1]) - 120}${m![2]}`));
      }
      const r = await prefixed(place, claudeScript('echo hi', join(root, 'cwd')), envFor(place, tmp));
      expect(r.out.toString()).toBe('hi\n');
      expect(leftovers(spool)).toEqual([]);
    });

    test.skipIf(place.skip !== undefined)('INT and HUP at random moments: ended by that signal as bash is; the output given, or stored marked as cut', async () => {
      const tmp = join(root, `tmp-inthup-${place.name.replace(/\W+/g, '-')}`);
      mkdirSync(tmp, { recursive: true });
      const slow = join(root, 'slow-inthup.sh');
      writeFileSync(slow, 'i=0\nwhile [ $i -lt 30 ]; do seq 1 2000; i=$((i+1)); sleep 0.1; done\n');
      // (one landing 10 to 70 ms in, while the prefix forks, is still lost now and then: under bash 3.2, 1 in 600 at
      // load 2.5; a HUP at 63 ms under bash 5 once, at load 20; bin/lro-shell-prefix says why. Not asked of CI here.)
      const early = place.name.startsWith('bubblewrap') ? 200 : 80 + Math.floor(Math.random() * 60);
      for (const signal of ['SIGINT', 'SIGHUP'] as const) {
        for (const after of [early, 300 + Math.floor(Math.random() * 700), 1200 + Math.floor(Math.random() * 1500)]) {
          const r = await prefixed(place, claudeScript(`bash ${slow}`, join(root, 'cwd')), envFor(place, tmp), (pid) =>
            setTimeout(() => process.kill(-pid, signal), after),
          );
          const text = r.out.toString();
          if (signal === 'SIGINT' && r.status === 0) {
            // the INT landed while the command's bash forked `seq` or `sleep`: bash took the child's normal end as the
            // signal handled and went on to the end, as plain bash does (1 call in 60 at 1.9-3.1 s, with lro or
            // without). Its output is whole, and not told as cut (before, it was stored marked INCOMPLETE)
            const whole = `${Array.from({ length: 2000 }, (_, i) => i + 1).join('\n')}\n`.repeat(30);
            expect(text).not.toContain('INCOMPLETE');
            expect(text.includes('Output offloaded') ? (await stored(text)).toString() : text).toBe(whole);
            continue;
          }
          expect(r.status, `${signal} after ${after} ms`).toBe(128 + constants.signals[signal]);
          if (text.includes('Output offloaded')) expect(text).toContain(`INCOMPLETE: the call was interrupted (${signal})`);
          else expect(text, `${signal} after ${after} ms`).toMatch(/^(\d+\n)*\d*$/);
        }
      }
      expect(leftovers(spoolOf(tmp))).toEqual([]);
    });
  });
}

describe('the shell prefix, many at once and when things are missing', () => {
  test('20 calls at once (half in pid namespaces of their own, where possible) each get only their own output', async () => {
    const tmp = join(root, 'tmp-many');
    mkdirSync(tmp);
    const place: Place = { name: 'bash 5', wrap: [], bash: '/bin/bash', path: [] };
    const unshare = isRoot && spawnSync('unshare', ['-pf', '--mount-proc', 'true']).status === 0;
    const calls = Array.from({ length: 20 }, async (_, i) => {
      const size = i % 3 === 0 ? 50_000 : 2_000; // stored, or given back
      const command = `for k in $(seq 1 ${size / 10}); do printf 'c${String(i).padStart(2, '0')}-%05d\\n' $k; [ $k = 50 ] && sleep 0.5; done`;
      const script = claudeScript(command, join(root, 'cwd'));
      const wrap = unshare && i % 2 === 0 ? { ...place, wrap: ['unshare', '-pf', '--mount-proc'] } : place;
      const [ours, theirs] = await Promise.all([prefixed(wrap, script, envFor(place, tmp)), plain(place, script, envFor(place, tmp))]);
      await expectTwin(ours, theirs, `call ${i}`);
    });
    await Promise.all(calls);
    expect(leftovers(spoolOf(tmp))).toEqual([]);
  });

  test('a read-only store and no Node: the output as it is, with the status', async () => {
    const place: Place = { name: 'bash 5', wrap: [], bash: '/bin/bash', path: [] };
    const tmp = join(root, 'tmp-missing');
    mkdirSync(tmp);
    const readOnly = join(root, 'ro-store');
    mkdirSync(readOnly, { mode: 0o500 });
    const script = claudeScript('seq 1 100000; exit 4', join(root, 'cwd'));
    const want = await plain(place, script, envFor(place, tmp));
    for (const extra of [{ LRO_DIR: isRoot ? '/proc/lro-store' : readOnly }, { LRO_NODE: '/nonexistent/node' }] as Record<string, string>[]) {
      const r = await prefixed(place, script, envFor(place, tmp, extra));
      expect(r.status).toBe(4);
      const text = r.out.toString();
      expect(text.endsWith(want.out.toString())).toBe(true);
      expect(text.slice(0, text.length - want.out.length)).toMatch(/^(lro|lro-shell-prefix): [^\n]*\n$/);
    }
  });
});
