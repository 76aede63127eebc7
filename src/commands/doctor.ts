// `lro doctor [HARNESS]`: is lro wired into a harness, and does it work? With none named, a line for every harness
// (doctor-overview.ts). For Claude Code it finds the harness and its version, says which settings files hold lro
// (and which Claude Code will ignore), checks that what they name exists, runs the shell prefix the way Claude Code
// runs it on a small and a large failing sample, and looks at PATH; for Codex, the same plus hook trust. Each
// finding comes with the command that fixes it. Exit 0 healthy, 1 not.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CommandDef } from './command.js';
import { UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { installation, installedIn, settingsPath, sharedProjectSettingsPath } from '../harness/claude-code.js';
import { onPath } from '../harness/portable.js';
import { strictJsonProblem } from '../harness/json-edit.js';
import { readSettings, realFile } from '../harness/settings-file.js';
import { codexHome, findLroHook, TRUST_STEP, trustOf } from '../harness/codex.js';
import { wrapCommand } from './codex-hook.js';
import type { Check } from '../harness/check.js';
import { homeFolder, hookPaths, lroOnPathFix, overallHealthy, overviewText, statuses, type HarnessDoctor } from './doctor-overview.js';
import { MCP_HARNESSES, mcpTitle } from '../harness/mcp-config.js';
import { mcpConfigChecks, mcpConfigFound } from '../harness/mcp-config-doctor.js';
import { geminiChecks } from './doctor-gemini.js';

/** The Claude Code release lro's end-to-end tests run. */
export const TESTED_CLAUDE_CODE = '2.1.328';
/** The Codex release lro's end-to-end tests run. */
export const TESTED_CODEX = '0.169.0';

export type { Check };

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
    const node = /^'?([^' ]+)/.exec(hook)?.[1] ?? '';
    let ok = true;
    try {
      accessSync(node, constants.X_OK);
    } catch {
      ok = false;
    }
    checks.push(ok ? { name: 'MCP hook', ok, detail: hook } : { name: 'MCP hook', ok, detail: `${node} (the hook's Node) is gone`, fix: 'lro init claude-code' });
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

/** Every check of a Codex installation, in the order they are printed. */
export function codexChecks(env: NodeJS.ProcessEnv): Check[] {
  const checks: Check[] = [];
  const codex = onPath('codex', env);
  if (!codex) {
    const detail = 'codex is not on PATH: cannot tell its version';
    checks.push({ name: 'harness', ok: true, warning: true, detail, fix: 'npm install -g @openai/codex' });
  } else {
    const v = spawnSync(codex, ['--version'], { encoding: 'utf8', timeout: 30_000, env });
    const version = /(\d+\.\d+\.\d+)/.exec(v.stdout ?? '')?.[1];
    const tested = version === TESTED_CODEX;
    const note = tested ? '' : ` (lro is tested with ${TESTED_CODEX})`;
    const detail = `Codex ${version ?? '(unknown version)'} at ${codex}${note}`;
    checks.push({ name: 'harness', ok: true, warning: !tested, detail });
  }
  const home = codexHome(env);
  const hooksPath = join(home, 'hooks.json');
  const realHooks = realFile(resolve(hooksPath));
  const text = readSettings(realHooks);
  const problem = text === null || text.trim() === '' ? null : strictJsonProblem(text);
  if (problem) {
    checks.push({
      name: 'hooks.json',
      ok: false,
      detail: `${hooksPath} is not strict JSON (${problem}): Codex ignores the whole file`,
      fix: `make ${hooksPath} strict JSON, then lro doctor codex`,
    });
    return checks;
  }
  const hook = text === null ? null : findLroHook(text);
  if (!hook) {
    checks.push({ name: 'hooks.json', ok: false, absent: true, detail: `${hooksPath}: no lro hook`, fix: 'lro init codex' });
    return checks;
  }
  const where = `group ${hook.group}, matcher ${hook.matcher ?? '(none)'}`;
  checks.push({ name: 'hooks.json', ok: true, detail: `${hooksPath}: lro's PreToolUse hook (${where})` });
  const gone = hookPaths(hook.command).filter((p) => {
    try {
      accessSync(p, constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
  checks.push(
    gone.length === 0
      ? { name: 'hook', ok: true, detail: hook.command }
      : { name: 'hook', ok: false, detail: `${gone.join(', ')} (named by the hook) is gone`, fix: 'lro init codex' },
  );
  // Codex keys trust by the hooks.json path it loaded (absolute, as found under CODEX_HOME)
  const config = readSettings(realFile(resolve(join(home, 'config.toml'))));
  const trust = trustOf(config, resolve(hooksPath), hook);
  const trustDetail = {
    trusted: 'Codex trusts lro\'s hook (its trust record in config.toml matches the hook)',
    untrusted: 'Codex has no trust record for lro\'s hook: it skips the hook without a word',
    modified: 'the hook changed since it was trusted (or its trust record does not match): Codex skips it silently',
    disabled: 'lro\'s hook is disabled in config.toml (enabled = false)',
  }[trust];
  const trustFix = trust === 'disabled' ? 'enable it in /hooks in Codex' : TRUST_STEP;
  checks.push(
    trust === 'trusted'
      ? { name: 'trust', ok: true, detail: trustDetail }
      : { name: 'trust', ok: false, detail: trustDetail, fix: trustFix },
  );
  codexRunChecks(env, checks);
  // the model's next call runs in Codex's `bash -lc`: lro must be on the login PATH
  const login = spawnSync('bash', ['-lc', 'command -v lro'], { encoding: 'utf8', timeout: 30_000, env });
  const lro = (login.stdout ?? '').trim();
  checks.push(
    lro
      ? { name: 'lro on PATH', ok: true, detail: `${lro} (bash -lc, as Codex runs commands)` }
      : {
          name: 'lro on PATH',
          ok: false,
          detail: "lro is not on the login PATH (bash -lc): the model's `lro grep ID …` will not be found",
          fix: lroOnPathFix('the PATH your shell profile sets'),
        },
  );
  return checks;
}

/** The rewritten command at work, run as Codex runs it (`bash -lc`): small output as it is, large failing offloaded. */
function codexRunChecks(env: NodeJS.ProcessEnv, checks: Check[]): void {
  const scratch = mkdtempSync(join(tmpdir(), 'lro-doctor-'));
  const run = (command: string) => {
    const r = spawnSync('bash', ['-lc', `exec 2>&1; ${wrapCommand(command)}`], {
      env: { ...env, LRO_DIR: join(scratch, 'store') },
      encoding: 'utf8',
      timeout: 60_000,
      cwd: scratch,
    });
    return { status: r.status, out: r.stdout ?? '' };
  };
  try {
    const small = run("printf 'small output\\n'; exit 5");
    const smallGot = `got ${JSON.stringify(small.out.slice(0, 200))}, exit ${small.status}`;
    checks.push(
      small.out === 'small output\n' && small.status === 5
        ? { name: 'small output', ok: true, detail: 'passes through byte for byte, exit code kept' }
        : { name: 'small output', ok: false, detail: smallGot, fix: 'lro init codex' },
    );
    const large = run("seq 1 20000; echo 'FATAL: sample' >&2; exit 3");
    const id = /\bid: (\w{26})\b/.exec(large.out)?.[1];
    const largeOk = `a failing command's 109 kB became a descriptor (id ${id}), exit code 3 kept`;
    const largeGot = `not offloaded: ${JSON.stringify(large.out.slice(0, 200))}, exit ${large.status}`;
    checks.push(
      id && large.status === 3 && large.out.includes('(exit code 3)')
        ? { name: 'large output', ok: true, detail: largeOk }
        : { name: 'large output', ok: false, detail: largeGot, fix: 'lro doctor codex --json; check node and lro' },
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every harness `lro doctor` knows, in the order the overview lists them. */
export const HARNESS_DOCTORS: HarnessDoctor[] = [
  {
    name: 'claude-code',
    label: 'Claude Code',
    found: (env) =>
      (onPath('claude', env) ? 'claude on PATH' : null) ??
      (env.CLAUDE_CONFIG_DIR && existsSync(env.CLAUDE_CONFIG_DIR) ? env.CLAUDE_CONFIG_DIR : null) ??
      homeFolder(env, '.claude') ??
      (existsSync(join('.claude', 'settings.local.json')) ? '.claude/settings.local.json' : null) ??
      (existsSync(join('.claude', 'settings.json')) ? '.claude/settings.json' : null),
    checks: claudeCodeChecks,
  },
  {
    name: 'codex',
    label: 'Codex',
    found: (env) =>
      (onPath('codex', env) ? 'codex on PATH' : null) ??
      (env.CODEX_HOME && existsSync(env.CODEX_HOME) ? env.CODEX_HOME : null) ??
      homeFolder(env, '.codex'),
    checks: codexChecks,
  },
  {
    name: 'gemini',
    label: 'Gemini CLI',
    found: (env) =>
      (onPath('gemini', env) ? 'gemini on PATH' : null) ??
      (env.GEMINI_CLI_HOME && existsSync(join(env.GEMINI_CLI_HOME, '.gemini')) ? env.GEMINI_CLI_HOME : null) ??
      homeFolder(env, '.gemini'),
    checks: geminiChecks,
  },
  ...MCP_HARNESSES.map(
    (h): HarnessDoctor => ({
      name: h,
      label: mcpTitle(h),
      found: (env) => mcpConfigFound(h, env),
      checks: (env) => mcpConfigChecks(h, env),
    }),
  ),
];

type DoctorOptions = { harness?: string; json?: boolean };

export async function runDoctor(o: DoctorOptions, io: IO): Promise<number> {
  if (o.harness === undefined) return runOverview(o, io);
  const doctor = HARNESS_DOCTORS.find((h) => h.name === o.harness);
  if (!doctor) {
    const names = HARNESS_DOCTORS.map((h) => h.name).join(', ');
    throw new UsageError(`unknown harness '${o.harness}': lro doctor with one of ${names}, or none for all`);
  }
  const harness = doctor.name;
  const checks = await doctor.checks(io.env);
  const healthy = checks.every((c) => c.ok);
  if (o.json) {
    await io.stdout.write(`${JSON.stringify({ harness, healthy, checks }, null, 2)}\n`);
  } else {
    const mark = (c: Check) => (c.ok ? (c.warning ? '!' : 'ok') : 'X');
    const lines = checks.map((c) => `${mark(c)}  ${c.name}: ${c.detail}${c.fix ? `\n    fix: ${c.fix}` : ''}`);
    const name = doctor.label;
    lines.push(healthy ? `lro works in ${name}.` : `lro does not work in ${name} yet: see the fixes above.`);
    await io.stdout.write(`${lines.join('\n')}\n`);
  }
  return healthy ? 0 : 1;
}

/** `lro doctor` with no harness named: every harness, one line each. */
async function runOverview(o: DoctorOptions, io: IO): Promise<number> {
  const all = await statuses(HARNESS_DOCTORS, io.env);
  const healthy = overallHealthy(all);
  if (o.json) await io.stdout.write(`${JSON.stringify({ healthy, harnesses: all }, null, 2)}\n`);
  else await io.stdout.write(overviewText(all, HARNESS_DOCTORS));
  return healthy ? 0 : 1;
}

/** `lro doctor`. */
export const doctorCommand: CommandDef<{ harness?: string; json?: boolean }> = {
  name: 'doctor',
  description:
    'check that lro is wired into the agent harnesses found here and works there (with no harness named: every ' +
    "one, a line each); for one harness: its version, settings files, hook trust, lro run on samples, lro's MCP " +
    'server started, PATH',
  arguments: [
    {
      name: 'harness',
      description: 'the harness to check in detail (default: a line for every harness found)',
      choices: HARNESS_DOCTORS.map((h) => h.name),
      optional: true,
    },
  ],
  options: [{ flags: '--json', description: 'print the checks as JSON' }],
  examples: ['lro doctor', 'lro doctor claude-code --json', 'lro doctor codex', 'lro doctor gemini', 'lro doctor cursor'],
  notes:
    'With no harness named: 0 when lro is installed in at least one harness and works in every one it is ' +
    'installed in. Exit status: 0 healthy, 1 not (each problem comes with the command that fixes it), 2 usage error.',
  run: (o, io) => runDoctor(o, io),
};
