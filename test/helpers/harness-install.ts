// A pinned agent harness installed once from the npm registry into a cache folder outside the repo (never a project
// dependency), and reused: $LRO_TEST_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/lro-test, one folder per version.
// Installed into a temporary folder renamed into place, so a killed install is never taken for a finished one.
// And one run of it: its exit code and everything it printed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The harness's binary, or why it cannot be had (the tests that need it are skipped with that reason). */
export type HarnessInstall = { bin: string; skip?: undefined } | { bin?: undefined; skip: string };

export interface PinnedHarness {
  /** The npm package, e.g. `@openai/codex`. */
  pkg: string;
  version: string;
  /** The binary under node_modules/.bin. */
  bin: string;
  /** The cache folder's name, before `-VERSION`. */
  folder: string;
}

/** Where a pinned harness is installed. */
export function harnessCacheDir(h: PinnedHarness): string {
  const root = process.env.LRO_TEST_CACHE ?? join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'lro-test');
  return join(root, `${h.folder}-${h.version}`);
}

/** Installs the pinned harness unless it is there and answers `--version` with its version. */
export function ensureHarness(h: PinnedHarness): HarnessInstall {
  const dir = harnessCacheDir(h);
  const bin = join(dir, 'node_modules', '.bin', h.bin);
  const works = () => spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 }).stdout?.includes(h.version);
  if (existsSync(bin) && works()) return { bin };
  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  const args = ['install', '--prefix', tmp, '--no-audit', '--no-fund', '--no-save', '--loglevel=error'];
  const r = spawnSync('npm', [...args, `${h.pkg}@${h.version}`], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    const why = (r.error?.message ?? r.stderr ?? '').trim().split('\n').slice(-3).join(' ');
    return { skip: `cannot install ${h.pkg}@${h.version} into ${dir}: ${why}` };
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  if (!works()) return { skip: `${h.pkg}@${h.version} installed in ${dir} but \`${h.bin} --version\` fails` };
  return { bin };
}

/** How one run of a harness ended. */
export interface HarnessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the harness once (no stdin), killed after `timeout` ms (default 2 minutes). */
export function runHarness(
  bin: string,
  args: string[],
  o: { cwd: string; env: Record<string, string>; timeout?: number },
): Promise<HarnessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeout ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}
