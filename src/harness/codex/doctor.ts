// `lro doctor codex`: finds Codex and its version, checks hooks.json and what its hook names, whether Codex trusts
// the hook (a hook not trusted is skipped without a word), and runs the rewritten command as Codex runs it.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hookPaths, lroOnPathFix, type Check } from '../check.js';
import { strictJsonProblem } from '../json-edit.js';
import { onPath } from '../portable.js';
import { readSettings, realFile } from '../settings-file.js';
import { wrapCommand } from './hook.js';
import { codexHome, findLroHook, TRUST_STEP, trustOf } from './settings.js';

/** The Codex release lro's end-to-end tests run. */
export const TESTED_CODEX = '0.169.0';

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
