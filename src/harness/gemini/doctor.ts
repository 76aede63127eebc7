// `lro doctor gemini`: is lro's hook in Gemini CLI's settings, will Gemini CLI run it here, and does it work? The
// harness and its version, the settings files (Gemini CLI's JSON with comments), lro's hook and the paths it names,
// which tools lro's groups match (the shell tool, MCP tools), hooks switched on, folder trust (Gemini CLI runs no
// hook from settings in a folder it does not trust), the hook run as Gemini CLI runs it (`bash -c`, the tool's
// result on stdin) on a small and a large failing shell sample and a large MCP result, and lro on the PATH of the
// model's next shell call.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Check } from '../check.js';
import { hookPaths } from '../check.js';
import { readSettings, realFile } from '../settings-file.js';
import { onPath, pathFix, portableProblem } from '../portable.js';
import { valueAt } from '../json-edit.js';
import {
  findLroHook,
  findLroHooks,
  folderTrust,
  geminiSettingsPath,
  HOOK_BIN,
  HOOK_NAME,
  isPortableHook,
  matcherMatches,
  MCP_MATCHER,
  SHELL_MATCHER,
  settingsProblem,
  TRUST_STEP,
  trustedFoldersPath,
} from './settings.js';

/** The Gemini CLI release lro's end-to-end tests run. */
export const TESTED_GEMINI = '0.61.0';

/** Runs `script` as Gemini CLI runs a shell command or a hook: `bash -c`, stdout and stderr as one text. */
function bash(script: string, env: NodeJS.ProcessEnv, o: { input?: string; cwd?: string } = {}) {
  const r = spawnSync('bash', ['-c', script], { env, encoding: 'utf8', timeout: 60_000, input: o.input, cwd: o.cwd });
  return { status: r.status, out: r.stdout ?? '', err: r.stderr ?? '' };
}

function harnessCheck(env: NodeJS.ProcessEnv, checks: Check[]): void {
  const gemini = bash('command -v gemini', env).out.trim();
  if (!gemini) {
    const detail = 'gemini is not on PATH: cannot tell its version';
    checks.push({ name: 'harness', ok: true, warning: true, detail, fix: 'npm install -g @google/gemini-cli' });
    return;
  }
  const version = /(\d+\.\d+\.\d+)/.exec(bash('gemini --version', env).out)?.[1];
  const tested = version === TESTED_GEMINI;
  const note = tested ? '' : ` (lro is tested with ${TESTED_GEMINI})`;
  const detail = `Gemini CLI ${version ?? '(unknown version)'} at ${gemini}${note}`;
  checks.push({ name: 'harness', ok: true, warning: !tested, detail });
}

interface Found {
  hook?: { command: string; name?: string };
  /** Every lro handler of the file that holds the first, with its group's matcher. */
  hooks: { command: string; matcher?: string }[];
  scope?: string;
  texts: string[];
}

/** The user's and this project's settings: each valid for Gemini CLI, and which holds lro's hook. */
function settingsChecks(env: NodeJS.ProcessEnv, cwd: string, checks: Check[]): Found {
  const user = geminiSettingsPath('user', env, cwd);
  const project = geminiSettingsPath('project', env, cwd);
  // Gemini CLI reads no project settings in the home folder itself
  const files: [string, string][] = realFile(resolve(user)) === realFile(resolve(project))
    ? [['user', user]]
    : [['user', user], ['project', project]];
  const found: Found = { hooks: [], texts: [] };
  for (const [scope, path] of files) {
    const text = readSettings(realFile(resolve(path)));
    if (text === null || text.trim() === '') continue;
    const problem = settingsProblem(text);
    if (problem) {
      const detail = `${path} is not valid JSON (${problem}): Gemini CLI reports an error and ignores it`;
      checks.push({ name: `settings (${scope})`, ok: false, detail, fix: `fix ${path}, then lro doctor gemini` });
      continue;
    }
    found.texts.push(text);
    const hook = findLroHook(text);
    const detail = `${path}: ${hook ? "lro's AfterTool hook" : 'no lro hook'}`;
    checks.push({ name: `settings (${scope})`, ok: true, detail });
    if (hook && !found.hook) Object.assign(found, { hook, scope, hooks: findLroHooks(text) });
  }
  return found;
}

/**
 * The hook's command leads to lro: the portable one (a project's) to an lro-hook on PATH beside its lro.js; one by
 * paths (this Node, lro's bin/lro-hook) to paths still there, and in a project's file said to be this machine's.
 */
function hookPathsCheck(command: string, scope: string | undefined, env: NodeJS.ProcessEnv, checks: Check[]): boolean {
  if (isPortableHook(command)) {
    const problem = portableProblem(HOOK_BIN, env);
    if (problem) {
      const detail = `${problem}: the project's hook steps aside here (a large output reaches the model whole)`;
      // the checks stop here: the fix names lro too when it is missing (the model's `lro grep ID …` needs it)
      checks.push({ name: 'hook', ok: false, detail, fix: pathFix([HOOK_BIN, ...(onPath('lro', env) ? [] : ['lro'])]) });
      return false;
    }
    checks.push({ name: 'hook', ok: true, detail: `${command} (${HOOK_BIN} on PATH: ${onPath(HOOK_BIN, env)})` });
    return true;
  }
  if (scope === 'project') {
    const detail = "the project's hook names this machine's paths: a teammate's Gemini CLI will not find them";
    checks.push({ name: 'portable', ok: true, warning: true, detail, fix: 'lro init gemini --project (names lro by PATH)' });
  }
  const paths = hookPaths(command);
  const missing = paths.filter((p) => {
    try {
      accessSync(p, constants.R_OK);
      return false;
    } catch {
      return true;
    }
  });
  checks.push(
    missing.length
      ? { name: 'hook', ok: false, detail: `${missing.join(', ')} (named by the hook) is gone`, fix: 'lro init gemini' }
      : { name: 'hook', ok: true, detail: command },
  );
  return !missing.length;
}

/** A tool name of each kind lro's groups are for: the shell tool, and an MCP tool as Gemini CLI names one. */
const COVERED: [string, string, string][] = [
  ['shell tool', SHELL_MATCHER, "a shell command's large output"],
  ['MCP tools', 'mcp_docs_search', "an MCP tool's large result"],
];

/** Whether lro's groups match the shell tool and MCP tools (an install from before MCP results: not these). */
function matcherChecks(hooks: Found['hooks'], checks: Check[]): void {
  for (const [name, tool, what] of COVERED) {
    const group = hooks.find((h) => matcherMatches(h.matcher, tool));
    if (group) {
      checks.push({ name, ok: true, detail: `lro's group (matcher ${JSON.stringify(group.matcher ?? '')}) runs for ${tool}` });
    } else {
      const want = tool === SHELL_MATCHER ? SHELL_MATCHER : MCP_MATCHER;
      const detail = `no group of lro's matches ${tool}: ${what} reaches the model whole`;
      checks.push({ name, ok: true, warning: true, detail, fix: `lro init gemini (adds the group with matcher ${want})` });
    }
  }
}

/** hooksConfig.enabled false, or lro's hook listed in hooksConfig.disabled, in any settings file. */
function enabledCheck(texts: string[], hook: { command: string; name?: string }, checks: Check[]): void {
  const off = texts.some((t) => valueAt(t, ['hooksConfig', 'enabled']) === false);
  const disabled = texts.some((t) => {
    const list = valueAt(t, ['hooksConfig', 'disabled']);
    return Array.isArray(list) && list.some((n) => n === (hook.name ?? HOOK_NAME) || n === hook.command);
  });
  if (off) {
    const detail = 'hooksConfig.enabled is false: Gemini CLI runs no hook';
    checks.push({ name: 'hooks enabled', ok: false, detail, fix: 'set hooksConfig.enabled to true (or remove it)' });
  } else if (disabled) {
    const detail = `hooksConfig.disabled lists lro's hook ('${hook.name ?? HOOK_NAME}')`;
    const fix = 'take it out of hooksConfig.disabled (or /hooks in Gemini CLI)';
    checks.push({ name: 'hooks enabled', ok: false, detail, fix });
  } else {
    checks.push({ name: 'hooks enabled', ok: true, detail: 'hooks are on and lro\'s is not disabled' });
  }
}

/** Whether Gemini CLI trusts this folder (it runs no hook from settings in one it does not). */
function trustCheck(env: NodeJS.ProcessEnv, cwd: string, userText: string | undefined, checks: Check[]): void {
  const name = 'folder trust';
  if (env.GEMINI_CLI_TRUST_WORKSPACE === 'true') {
    checks.push({ name, ok: true, detail: 'GEMINI_CLI_TRUST_WORKSPACE=true: Gemini CLI trusts every folder' });
    return;
  }
  if (userText !== undefined && valueAt(userText, ['security', 'folderTrust', 'enabled']) === false) {
    const detail = 'folder trust is off (security.folderTrust.enabled false): hooks run everywhere';
    checks.push({ name, ok: true, detail });
    return;
  }
  const file = trustedFoldersPath(env);
  const trust = folderTrust(readSettings(realFile(resolve(file))), cwd);
  if (trust === true) {
    checks.push({ name, ok: true, detail: `${cwd} is trusted (${file})` });
    return;
  }
  const detail = trust === false
    ? `${cwd} is marked not trusted in ${file}: Gemini CLI runs no hook from settings here`
    : `${cwd} is not trusted yet (${file}): Gemini CLI runs no hook from settings here until it is`;
  checks.push({ name, ok: false, detail, fix: TRUST_STEP });
}

/** The shell tool's text for the model, as Gemini CLI 0.61.0 makes it, for `command` run the way it runs it. */
function shellToolText(command: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const r = bash(`exec 2>&1; ${command}`, env, { cwd });
  const lines = [`Output: ${r.out.replace(/\n$/, '') || '(empty)'}`];
  if (r.status !== 0) lines.push(`Exit Code: ${r.status}`);
  return `<untrusted_context>\n${lines.join('\n')}\n</untrusted_context>`;
}

/** The hook at work, run as Gemini CLI runs it: a small output left alone, a large failing one stored. */
function hookRunChecks(command: string, env: NodeJS.ProcessEnv, checks: Check[]): void {
  const scratch = mkdtempSync(join(tmpdir(), 'lro-doctor-'));
  const hookEnv = { ...env, LRO_DIR: join(scratch, 'store') };
  const run = (sample: string) => {
    const input = {
      hook_event_name: 'AfterTool',
      cwd: scratch,
      tool_name: 'run_shell_command',
      tool_input: { command: sample },
      tool_response: { llmContent: shellToolText(sample, env, scratch), returnDisplay: '' },
    };
    return bash(command, hookEnv, { input: JSON.stringify(input), cwd: scratch });
  };
  try {
    const small = run("printf 'small output\\n'; exit 5");
    const smallGot = `the hook answered ${JSON.stringify(small.out.slice(0, 200))}, exit ${small.status}`;
    checks.push(
      small.status === 0 && small.out.trim() === ''
        ? { name: 'small output', ok: true, detail: 'left as Gemini CLI made it' }
        : { name: 'small output', ok: false, detail: smallGot, fix: 'lro init gemini' },
    );
    const large = run("seq 1 20000; echo 'FATAL: sample' >&2; exit 3");
    let reason = '';
    try {
      reason = String((JSON.parse(large.out) as { reason?: unknown }).reason ?? '');
    } catch {
      // not the hook's JSON
    }
    const id = /\bid: (\w{26})\b/.exec(reason)?.[1];
    const largeOk = `a failing command's 109 kB became a descriptor (id ${id}), exit code 3 told`;
    const largeGot = `not offloaded: ${JSON.stringify((large.out || large.err).slice(0, 200))}`;
    checks.push(
      id && reason.includes('Exit Code: 3')
        ? { name: 'large output', ok: true, detail: largeOk }
        : { name: 'large output', ok: false, detail: largeGot, fix: 'lro doctor gemini --json; check node and lro' },
    );
    // an MCP tool's result as Gemini CLI 0.61.0 hands it on: each text block wrapped, in a list of parts
    const text = Array.from({ length: 20000 }, (_, i) => `row ${i + 1}`).join('\n');
    const mcp = bash(command, hookEnv, {
      cwd: scratch,
      input: JSON.stringify({
        hook_event_name: 'AfterTool',
        cwd: scratch,
        tool_name: 'mcp_docs_search',
        tool_input: { query: 'rows' },
        tool_response: { llmContent: [{ text: `<untrusted_context>\n${text}\n</untrusted_context>` }], returnDisplay: text },
        mcp_context: { server_name: 'docs', tool_name: 'search', command: 'docs-server' },
      }),
    });
    let mcpReason = '';
    try {
      mcpReason = String((JSON.parse(mcp.out) as { reason?: unknown }).reason ?? '');
    } catch {
      // not the hook's JSON
    }
    const mcpId = /\bid: (\w{26})\b/.exec(mcpReason)?.[1];
    checks.push(
      mcpId
        ? { name: 'large MCP result', ok: true, detail: `an MCP tool's ${Math.round(text.length / 1000)} kB became a descriptor (id ${mcpId})` }
        : {
            name: 'large MCP result',
            ok: false,
            detail: `not offloaded: ${JSON.stringify((mcp.out || mcp.err).slice(0, 200))}`,
            fix: 'lro doctor gemini --json; check node and lro',
          },
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every check of a Gemini CLI installation, in the order they are printed. */
export function geminiChecks(env: NodeJS.ProcessEnv, cwd = process.cwd()): Check[] {
  const checks: Check[] = [];
  harnessCheck(env, checks);
  const found = settingsChecks(env, cwd, checks);
  if (!found.hook) {
    if (!checks.some((c) => !c.ok)) {
      const detail = "no settings file holds lro's hook";
      checks.push({ name: 'installed', ok: false, absent: true, detail, fix: 'lro init gemini' });
    }
    return checks;
  }
  if (!hookPathsCheck(found.hook.command, found.scope, env, checks)) return checks;
  matcherChecks(found.hooks, checks);
  enabledCheck(found.texts, found.hook, checks);
  const userText = readSettings(realFile(resolve(geminiSettingsPath('user', env, cwd)))) ?? undefined;
  trustCheck(env, cwd, userText, checks);
  hookRunChecks(found.hook.command, env, checks);
  // the model's next call (`lro grep ID …`) runs in Gemini CLI's `bash -c`, with Gemini CLI's PATH
  const lro = bash('command -v lro', env).out.trim();
  // a project's hook (lro init gemini --project) runs lro-hook by PATH: when that is missing too, the fix names both
  const hookToo = !lro && !onPath(HOOK_BIN, env);
  checks.push(
    lro
      ? { name: 'lro on PATH', ok: true, detail: lro }
      : {
          name: 'lro on PATH',
          ok: false,
          detail: hookToo
            ? "lro and lro-hook are not on PATH: the model's `lro grep ID …` will not be found, and a project's hook " +
              '(named by PATH) steps aside'
            : "lro is not on PATH: the model's `lro grep ID …` will not be found",
          fix: pathFix(hookToo ? ['lro', HOOK_BIN] : ['lro']),
        },
  );
  return checks;
}
