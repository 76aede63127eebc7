// `lro doctor claude-code`: finds Claude Code and its version, says which settings files hold lro (and which
// Claude Code will ignore), checks that what they name exists, runs the shell prefix the way Claude Code runs it on
// a small and a large failing sample, and looks at PATH. Each finding comes with the command that fixes it.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lroOnPathFix, type Check } from '../check.js';
import { strictJsonProblem } from '../json-edit.js';
import { onPath } from '../portable.js';
import { readSettings, realFile } from '../settings-file.js';
import { installation, installedIn, settingsPath, sharedProjectSettingsPath } from './settings.js';

/** The Claude Code release lro's end-to-end tests run. */
export const TESTED_CLAUDE_CODE = '2.1.328';

/** Runs the prefix on `command` as Claude Code 2.1.328 does (one argument: eval, then its cwd tracking). */
function runPrefix(prefix: string, command: string, env: NodeJS.ProcessEnv, scratch: string): { status: number | null; out: string } {
  const script = `eval '${command.replace(/'/g, `'\\''`)}' < /dev/null && pwd -P >| ${join(scratch, 'cwd')}`;
  const r = spawnSync('bash', ['-c', 'exec "$@" 2>&1', 'bash', prefix, script], {
    env: { ...env, LRO_DIR: join(scratch, 'store') },
    encoding: 'utf8',
    timeout: 60_000,
    cwd: scratch,
  });
  return { status: r.status, out: r.stdout ?? '' };
}

/** Every check of a Claude Code installation, in the order they are printed. */
export function claudeCodeChecks(env: NodeJS.ProcessEnv): Check[] {
  const checks: Check[] = [];
  harnessCheck(env, checks);
  const { prefix, hook } = settingsChecks(env, checks);
  if (!installChecks(prefix, hook, checks)) return checks;
  prefixRunChecks(prefix, env, checks);
  pathCheck(env, checks);
  return checks;
}

/** The harness: Claude Code on PATH, and its version against the one lro is tested with. */
function harnessCheck(env: NodeJS.ProcessEnv, checks: Check[]): void {
  const claude = onPath('claude', env);
  if (!claude) {
    checks.push({ name: 'harness', ok: true, warning: true, detail: 'claude is not on PATH: cannot tell its version', fix: 'npm install -g @anthropic-ai/claude-code' });
  } else {
    const v = spawnSync(claude, ['--version'], { encoding: 'utf8', timeout: 30_000, env });
    const version = /^(\d+\.\d+\.\d+)/.exec(v.stdout ?? '')?.[1];
    const tested = version === TESTED_CLAUDE_CODE;
    checks.push({
      name: 'harness',
      ok: true,
      warning: !tested,
      detail: `Claude Code ${version ?? '(unknown version)'} at ${claude}${tested ? '' : ` (lro is tested with ${TESTED_CLAUDE_CODE})`}`,
    });
  }
}

/**
 * The settings files, from the highest in Claude Code's precedence (the project's local file) to the user's: each
 * strict JSON, and which of lro's entries it holds. lro's entries in the shared project file (an earlier lro's
 * --project) are a warning: they name this machine's paths in a file the team commits.
 */
function settingsChecks(env: NodeJS.ProcessEnv, checks: Check[]): { prefix?: string; hook?: string } {
  const files: [string, string][] = [
    ['local', settingsPath('project', env, '.')],
    ['project', sharedProjectSettingsPath('.')],
    ['user', settingsPath('user', env, '.')],
  ];
  let prefix: string | undefined;
  let hook: string | undefined;
  for (const [scope, path] of files) {
    const text = readSettings(realFile(resolve(path)));
    if (text === null) continue;
    const problem = text.trim() === '' ? null : strictJsonProblem(text);
    if (problem) {
      checks.push({
        name: `settings (${scope})`,
        ok: false,
        detail: `${path} is not strict JSON (${problem}): Claude Code ignores the whole file`,
        fix: `make ${path} strict JSON (no comments, no trailing commas), then lro doctor`,
      });
      continue;
    }
    const found = installedIn(text);
    const what = [found.prefix && 'shell prefix', found.hook && 'MCP hook'].filter(Boolean).join(' and ');
    const shared = scope === 'project' && !!what;
    checks.push({
      name: `settings (${scope})`,
      ok: true,
      detail: `${path}: ${what ? `lro's ${what}` : 'no lro entries'}${shared ? " (this machine's paths, in a file the project shares)" : ''}`,
      ...(shared ? { warning: true, fix: 'lro init claude-code --project (moves them to .claude/settings.local.json)' } : {}),
    });
    prefix ??= found.prefix;
    hook ??= found.hook;
  }
  return { prefix, hook };
}

/** lro's prefix and hook as the settings name them: still there and runnable. False when nothing more can be checked. */
function installChecks(prefix: string | undefined, hook: string | undefined, checks: Check[]): prefix is string {
  if (!prefix) {
    const detail = 'no settings file sets lro as CLAUDE_CODE_SHELL_PREFIX';
    checks.push({ name: 'installed', ok: false, absent: true, detail, fix: 'lro init claude-code' });
    return false;
  }
  const current = installation();
  try {
    accessSync(prefix, constants.X_OK);
    checks.push({ name: 'prefix', ok: true, detail: `${prefix}${prefix === current.prefix ? '' : ` (this lro is ${current.prefix})`}` });
  } catch {
    checks.push({ name: 'prefix', ok: false, detail: `${prefix} is missing or not executable (lro moved or was removed)`, fix: 'lro init claude-code' });
    return false;
  }
  if (!hook) checks.push({ name: 'MCP hook', ok: false, detail: 'no PostToolUse hook for mcp__.* tools', fix: 'lro init claude-code' });
  else {
    // `LRO_NODE='node' 'lro-hook' __claude-code-hook`, or (as earlier lro installed it) `'node' 'lro.js' __claude-code-hook`
    const [, node = '', program = ''] = /^(?:LRO_NODE=)?'?([^' ]+)'? '?([^' ]+)/.exec(hook) ?? [];
    const gone = [node, program].find((f) => {
      try {
        accessSync(f, f.endsWith('.js') ? constants.R_OK : constants.X_OK);
        return false;
      } catch {
        return true;
      }
    });
    checks.push(
      gone === undefined
        ? { name: 'MCP hook', ok: true, detail: hook }
        : { name: 'MCP hook', ok: false, detail: `${gone} (the hook's ${gone === node ? 'Node' : 'program'}) is gone`, fix: 'lro init claude-code' },
    );
  }
  return true;
}

/** The prefix at work, as Claude Code runs it: a small output byte for byte, a large failing one offloaded. */
function prefixRunChecks(prefix: string, env: NodeJS.ProcessEnv, checks: Check[]): void {
  const node = env.LRO_NODE || onPath('node', env);
  if (!node) {
    checks.push({ name: 'node', ok: false, detail: 'node is not on PATH: the prefix cannot offload (output passes through whole)', fix: 'put node on PATH, or set LRO_NODE to its absolute path' });
  }
  const scratch = mkdtempSync(join(tmpdir(), 'lro-doctor-'));
  try {
    const small = runPrefix(prefix, "printf 'small output\\n'; exit 5", env, scratch);
    checks.push(
      small.out === 'small output\n' && small.status === 5
        ? { name: 'small output', ok: true, detail: 'passes through byte for byte, exit code kept' }
        : { name: 'small output', ok: false, detail: `got ${JSON.stringify(small.out.slice(0, 200))}, exit ${small.status}`, fix: 'lro init claude-code' },
    );
    const large = runPrefix(prefix, "seq 1 20000; echo 'FATAL: sample' >&2; exit 3", env, scratch);
    const id = /\bid: (\w{26})\b/.exec(large.out)?.[1];
    checks.push(
      id && large.status === 3 && large.out.includes('(exit code 3)')
        ? { name: 'large output', ok: true, detail: `a failing command's 109 kB became a descriptor (id ${id}), exit code 3 kept` }
        : { name: 'large output', ok: false, detail: `not offloaded: ${JSON.stringify(large.out.slice(0, 200))}, exit ${large.status}`, fix: 'lro doctor --json shows the output; check node and lro' },
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The model's next call: `lro grep ID …` in Claude Code's Bash needs lro on PATH. */
function pathCheck(env: NodeJS.ProcessEnv, checks: Check[]): void {
  const lro = onPath('lro', env);
  checks.push(
    lro
      ? { name: 'lro on PATH', ok: true, detail: lro }
      : { name: 'lro on PATH', ok: false, detail: "lro is not on PATH: the model's `lro grep ID …` will not be found", fix: lroOnPathFix() },
  );
}
