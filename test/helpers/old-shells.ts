// The shells and userlands bin/lro-shell-prefix meets outside a modern Linux, had on one for the tests:
//   - bash 3.2, the /bin/bash macOS ships: built once from the vendored source (fixtures/old-shells, see its
//     README) into the test cache ($LRO_TEST_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/lro-test) and reused;
//   - a userland that is not GNU: busybox's applets (head, cat, wc, find, mkdir, rm, …) in a folder of links to put
//     first on PATH;
//   - bubblewrap (bwrap), which Claude Code's sandbox runs a Bash tool call in on Linux (`--unshare-pid`).
// Each either gives what it found or made, or says why it cannot (a `skip` reason for test.skipIf); none throws.
// busybox and bubblewrap are Debian packages (.ci/run installs them); installed here too when missing and root.
// Call them at the top of a test file (collection has no time limit; the first bash build takes a minute or two).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  copyFileSync,
  chmodSync,
} from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The vendored source of bash 3.2.57 (Apple's, patched to build on Linux; fixtures/old-shells/README.md). */
export const BASH32_SOURCE = resolve(__dirname, '../../fixtures/old-shells/bash-3.2.tar.xz');

/** The flags bash 3.2's K&R C builds with under a modern gcc (12 to 14): C89, and its old habits not errors. */
export const BASH32_CFLAGS =
  '-O1 -std=gnu89 -Wno-implicit-function-declaration -Wno-implicit-int -Wno-int-conversion -Wno-incompatible-pointer-types';

export type Bash32 = { bin: string; skip?: undefined } | { bin?: undefined; skip: string };
export type Busybox = { pathDir: string; bin: string; skip?: undefined } | { pathDir?: undefined; skip: string };
/** `proc`: whether a fresh /proc can be mounted (`--proc /proc`); without it the pid namespace's /proc is the host's. */
export type Bwrap = { bin: string; proc: boolean; skip?: undefined } | { bin?: undefined; skip: string };

/** The test cache: $LRO_TEST_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/lro-test (as helpers/harness-install.ts). */
export function testCacheDir(): string {
  return process.env.LRO_TEST_CACHE ?? join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'lro-test');
}

const run = (file: string, args: string[], o: { cwd?: string; timeout?: number; env?: NodeJS.ProcessEnv } = {}) =>
  spawnSync(file, args, { encoding: 'utf8', timeout: o.timeout ?? 60_000, cwd: o.cwd, env: o.env });

/** The absolute path of a program on PATH, or undefined. */
function which(name: string): string | undefined {
  const r = run('sh', ['-c', 'command -v -- "$1"', 'sh', name]);
  const p = r.stdout?.trim();
  return r.status === 0 && p?.startsWith('/') ? p : undefined;
}

/** The last lines of what a failed step said. */
function why(r: SpawnSyncReturns<string>, log?: string): string {
  if (r.error) return r.error.message;
  const text = log && existsSync(log) ? readFileSync(log, 'utf8') : `${r.stdout ?? ''}${r.stderr ?? ''}`;
  const tail = text.trim().split('\n').slice(-4).join(' | ');
  return `exit ${r.status ?? r.signal}: ${tail}`;
}

const isRoot = () => process.getuid?.() === 0;

/** Installs Debian packages as .ci/run does (update only when the plain install fails); an error message or ''. */
function aptInstall(pkgs: string[]): string {
  if (!isRoot()) return `not root, so not installing ${pkgs.join(' ')} (apt-get install ${pkgs.join(' ')})`;
  if (!which('apt-get')) return `no apt-get to install ${pkgs.join(' ')}`;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    run('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { env, timeout: 300_000 });
  let r = install();
  if (r.status !== 0) {
    run('apt-get', ['update'], { env, timeout: 300_000 });
    r = install();
  }
  return r.status === 0 ? '' : `apt-get install ${pkgs.join(' ')} failed: ${why(r)}`;
}

/** Moves a finished temporary folder into place, unless another process got there first with one that works. */
function settle(tmp: string, dir: string, works: () => boolean): void {
  if (existsSync(dir) && works()) {
    rmSync(tmp, { recursive: true, force: true });
    return;
  }
  rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process renamed its own in between
  }
}

let bash32: Bash32 | undefined;

/**
 * bash 3.2.57 built from the vendored source into <cache>/bash-3.2/bin/bash, once: reused while its `--version`
 * answers 3.2.57 and it was built from the same tarball (its sha256 is kept beside it). Built in a temporary folder
 * renamed into place, so a killed build is never taken for a finished one. Needs cc, make, and xz or busybox.
 */
export function ensureBash32(): Bash32 {
  bash32 ??= buildBash32();
  return bash32;
}

function buildBash32(): Bash32 {
  if (process.platform !== 'linux') return { skip: `bash 3.2 is built here only on Linux (this is ${process.platform})` };
  if (!existsSync(BASH32_SOURCE)) return { skip: `the bash 3.2 source is missing: ${BASH32_SOURCE}` };
  const sum = createHash('sha256').update(readFileSync(BASH32_SOURCE)).digest('hex');
  const dir = join(testCacheDir(), 'bash-3.2');
  const bin = join(dir, 'bin', 'bash');
  const stamp = join(dir, 'source.sha256');
  const works = () =>
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === sum &&
    /version 3\.2\.57\b/.test(run(bin, ['--version']).stdout ?? '');
  if (existsSync(bin) && works()) return { bin };

  for (const tool of ['cc', 'make']) if (!which(tool)) return { skip: `no ${tool} to build bash 3.2 with` };
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'bin'), { recursive: true });
  const fail = (step: string, r: SpawnSyncReturns<string>, log?: string): Bash32 => {
    const reason = `cannot build bash 3.2 (${step}): ${why(r, log)}`;
    rmSync(tmp, { recursive: true, force: true });
    return { skip: reason };
  };

  // unpack: tar's own xz when there is one, else busybox's (Debian's minimal images have no xz-utils)
  const busybox = which('busybox');
  const unpack = which('xz')
    ? run('tar', ['-xJf', BASH32_SOURCE, '-C', tmp])
    : busybox
      ? run('sh', ['-c', '"$0" xz -dc "$1" | tar -xf - -C "$2"', busybox, BASH32_SOURCE, tmp])
      : undefined;
  if (!unpack) {
    rmSync(tmp, { recursive: true, force: true });
    return { skip: 'neither xz nor busybox to unpack the bash 3.2 source with' };
  }
  if (unpack.status !== 0) return fail('unpack', unpack);

  const src = join(tmp, 'bash-3.2.57');
  const log = join(tmp, 'build.log');
  const step = (args: string[], timeout: number) => {
    const fd = openSync(log, 'w');
    try {
      const env = { ...process.env, CFLAGS: BASH32_CFLAGS, LC_ALL: 'C' };
      return spawnSync(args[0], args.slice(1), { cwd: src, env, stdio: ['ignore', fd, fd], timeout, encoding: 'utf8' });
    } finally {
      closeSync(fd);
    }
  };
  let r = step(['./configure', '--without-bash-malloc', '--disable-nls'], 300_000);
  if (r.status !== 0) return fail('configure', r, log);
  // YACC=: — the tarball has y.tab.c made already, and should make think parse.y newer, no yacc is needed.
  // libhistory.a alone first: it and libreadline.a share objects that two parallel sub-makes would build at once.
  r = step(['make', 'YACC=:', 'lib/readline/libhistory.a'], 300_000);
  if (r.status !== 0) return fail('make lib/readline/libhistory.a', r, log);
  const jobs = Math.max(2, Math.min(4, availableParallelism()));
  r = step(['make', 'YACC=:', `-j${jobs}`], 600_000);
  if (r.status !== 0) return fail('make', r, log);

  copyFileSync(join(src, 'bash'), join(tmp, 'bin', 'bash'));
  chmodSync(join(tmp, 'bin', 'bash'), 0o755);
  rmSync(src, { recursive: true, force: true });
  rmSync(log, { force: true });
  writeFileSync(join(tmp, 'source.sha256'), `${sum}\n`);
  settle(tmp, dir, works);
  if (!works()) return { skip: `bash 3.2 built into ${dir} but \`${bin} --version\` does not say 3.2.57` };
  return { bin };
}

let busyboxFound: Busybox | undefined;

/**
 * Debian's busybox (installed when missing and root), and <cache>/busybox-VERSION/: a link to it for each of its
 * applets (`busybox --list`: head, cat, wc, find, mkdir, rm, sh, …), to put first on PATH so that no GNU coreutils
 * are used. `bin` is busybox itself.
 */
export function ensureBusybox(): Busybox {
  busyboxFound ??= findBusybox();
  return busyboxFound;
}

function findBusybox(): Busybox {
  if (process.platform !== 'linux') return { skip: `busybox is set up here only on Linux (this is ${process.platform})` };
  let bin = which('busybox');
  if (!bin) {
    const err = aptInstall(['busybox']);
    bin = which('busybox');
    if (!bin) return { skip: `no busybox: ${err || 'installed, yet not on PATH'}` };
  }
  const list = run(bin, ['--list']);
  const applets = (list.stdout ?? '')
    .split('\n')
    .map((a) => a.trim())
    .filter((a) => a && !a.includes('/'));
  if (list.status !== 0 || applets.length === 0) return { skip: `\`${bin} --list\` gives no applets: ${why(list)}` };
  const version = /BusyBox v([\w.+~-]+)/.exec(run(bin, []).stdout ?? '')?.[1] ?? 'unknown';
  const dir = join(testCacheDir(), `busybox-${version}`);
  const linked = (d: string) => applets.every((a) => readlinkOr(join(d, a)) === bin);
  if (linked(dir)) return { pathDir: dir, bin };

  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  for (const a of applets) symlinkSync(bin, join(tmp, a));
  settle(tmp, dir, () => linked(dir));
  if (!linked(dir)) return { skip: `cannot make the busybox applet folder ${dir}` };
  return { pathDir: dir, bin };
}

function readlinkOr(p: string): string | undefined {
  try {
    return readlinkSync(p);
  } catch {
    return undefined;
  }
}

/**
 * bwrap's arguments for a command the way Claude Code's sandbox (@anthropic-ai/sandbox-runtime) runs one on Linux:
 * a new session, the whole filesystem read-only but for `writable`, a fresh /dev, its own pid namespace, and a fresh
 * /proc unless `proc` is false (its "weaker nested sandbox", for inside Docker: the pid namespace is new but /proc
 * is still the host's, so /proc/$$ is some other process). The command follows (after `--`).
 */
export function bwrapArgs(o: { writable?: string[]; proc?: boolean; net?: false } = {}): string[] {
  const args = ['--new-session', '--die-with-parent', '--ro-bind', '/', '/'];
  for (const w of o.writable ?? []) args.push('--bind', w, w);
  args.push('--dev', '/dev', '--unshare-pid');
  if (o.net === false) args.push('--unshare-net'); // a network of its own, as Claude Code's sandbox gives
  if (o.proc !== false) args.push('--proc', '/proc');
  return args;
}

let bwrapFound: Bwrap | undefined;

/**
 * Debian's bubblewrap (installed when missing and root), if it can actually make a sandbox here: namespaces may be
 * refused inside a container or by the kernel (unprivileged user namespaces off). `proc` says whether a fresh /proc
 * could be mounted; where it cannot, only `bwrapArgs({ proc: false })` works.
 */
export function ensureBwrap(): Bwrap {
  bwrapFound ??= findBwrap();
  return bwrapFound;
}

/**
 * Debian's bwrap unpacked into the test cache, not installed: a bwrap on PATH changes how Codex sandboxes commands
 * (0.169.0 then runs it and fails with "execvp codex-linux-sandbox"), so the machine's PATH is left without one.
 */
function unpackedBwrap(): { bin: string } | { skip: string } {
  const dir = join(testCacheDir(), 'bubblewrap');
  const bin = join(dir, 'usr', 'bin', 'bwrap');
  const works = () => run(bin, ['--version']).status === 0;
  if (existsSync(bin) && works()) return { bin };
  if (!which('apt-get') || !which('dpkg')) return { skip: 'no apt-get and dpkg to fetch Debian\'s bubblewrap' };
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let got = run('apt-get', ['download', 'bubblewrap'], { cwd: tmp, env, timeout: 300_000 });
  if (got.status !== 0 && isRoot()) {
    run('apt-get', ['update'], { env, timeout: 300_000 });
    got = run('apt-get', ['download', 'bubblewrap'], { cwd: tmp, env, timeout: 300_000 });
  }
  const deb = readdirSync(tmp).find((f) => f.endsWith('.deb'));
  if (got.status !== 0 || !deb) {
    rmSync(tmp, { recursive: true, force: true });
    return { skip: `apt-get download bubblewrap failed: ${why(got)}` };
  }
  const x = run('dpkg', ['-x', join(tmp, deb), tmp]);
  rmSync(join(tmp, deb), { force: true });
  if (x.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    return { skip: `dpkg -x of ${deb} failed: ${why(x)}` };
  }
  settle(tmp, dir, works);
  return works() ? { bin } : { skip: `${bin} unpacked but \`bwrap --version\` fails` };
}

function findBwrap(): Bwrap {
  if (process.platform !== 'linux') return { skip: `bubblewrap is Linux only (this is ${process.platform})` };
  const unpacked = unpackedBwrap();
  if ('skip' in unpacked) return { skip: unpacked.skip };
  const bin = unpacked.bin;
  const probe = (proc: boolean) => run(bin, [...bwrapArgs({ proc }), '--', 'sh', '-c', 'echo $$'], { timeout: 30_000 });
  const full = probe(true);
  // pid 1 is bwrap's own init in the new namespace (or the command itself): $$ is small there either way
  if (full.status === 0 && /^[12]$/.test(full.stdout.trim())) return { bin, proc: true };
  const weaker = probe(false);
  if (weaker.status === 0 && /^[12]$/.test(weaker.stdout.trim())) return { bin, proc: false };
  return { skip: `bwrap cannot make a sandbox here (--unshare-pid): ${why(full)}; without --proc: ${why(weaker)}` };
}
