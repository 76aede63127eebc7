// `lro doctor cursor | vscode | claude-desktop | opencode`: the harness's MCP config file found, lro's server in
// it and the paths it names still there, which of the user's servers run behind lro's proxy, and lro's server
// started from the file exactly as the harness would start it, answering initialize and tools/list.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Check } from '../check.js';
import { readSettings, realFile } from '../settings-file.js';
import { EditRefused } from '../installer.js';
import { REMOTE_NOTE } from './init.js';
import { onPath, portableFix, portableProblem } from '../portable.js';
import {
  argvOf,
  checkConfig,
  envOf,
  isLroWrapped,
  LRO_ENTRY,
  mcpConfigPath,
  mcpTitle,
  serversOf,
  survey,
  type McpHarness,
  type McpScope,
} from './settings.js';

/** How long lro's server has to answer initialize and tools/list. */
const LIVE_TIMEOUT_MS = 10_000;

/** What shows the harness is used here: one of its MCP config files, or the folder its user file goes in. */
export function mcpConfigFound(h: McpHarness, env: NodeJS.ProcessEnv): string | null {
  const files = (['project', 'user'] as McpScope[]).map((scope) => mcpConfigPath(h, scope, env));
  const file = files.find((f) => f !== null && existsSync(f));
  if (file) return file;
  const user = mcpConfigPath(h, 'user', env);
  return user !== null && existsSync(dirname(user)) ? dirname(user) : null;
}

/** Every check of lro in one of the MCP-configured harnesses, in the order they are printed. */
export async function mcpConfigChecks(h: McpHarness, env: NodeJS.ProcessEnv): Promise<Check[]> {
  const checks: Check[] = [];
  let found: { path: string; entry: unknown; argv: string[] } | null = null;
  const proxies: [string, string[]][] = [];
  for (const scope of ['project', 'user'] as McpScope[]) {
    const path = mcpConfigPath(h, scope, env);
    const text = path === null ? null : readSettings(realFile(resolve(path)));
    if (path === null || text === null) continue;
    const read = fileCheck(h, scope, path, text, checks);
    if (!read) continue;
    const argv = argvOf(h, read.lro);
    if (argv && !found) found = { path, entry: read.lro, argv };
    for (const [name, e] of serversOf(h, text)) {
      const a = argvOf(h, e);
      if (a && isLroWrapped(a)) proxies.push([name, a]);
    }
  }
  if (!checks.length) {
    const where = [mcpConfigPath(h, 'user', env), mcpConfigPath(h, 'project', env)].filter(Boolean).join(' or ');
    checks.push({ ...bad('config', `no ${mcpTitle(h)} MCP config file (${where})`, `lro init ${h}`), absent: true });
    return checks;
  }
  if (!found) {
    checks.push({ ...bad('installed', `no "${LRO_ENTRY}" server in the files above`, `lro init ${h}`), absent: true });
    return checks;
  }
  if (!pathsCheck(h, found.argv, proxies, checks, env)) return checks;
  checks.push(await liveCheck(found.argv, { ...env, ...envOf(found.entry) }, found.path));
  return checks;
}

/** One config file: readable, and what it holds. Returns lro's entry (if any), or null for a file unread. */
type Read = { lro: unknown } | null;
function fileCheck(h: McpHarness, scope: McpScope, path: string, text: string, checks: Check[]): Read {
  const name = `config (${scope})`;
  try {
    checkConfig(h, text, path);
  } catch (e) {
    if (!(e instanceof EditRefused)) throw e;
    const why = `${e.message.split(': fix it first')[0]}: ${mcpTitle(h)} cannot read it`;
    checks.push(bad(name, why, `fix ${path}, then lro doctor ${h}`));
    return null;
  }
  const s = survey(h, text);
  const parts = [s.lro ? `lro's server ("${LRO_ENTRY}")` : 'no lro server'];
  if (s.wrapped.length) parts.push(`behind lro's proxy: ${s.wrapped.join(', ')}`);
  if (s.unwrapped.length) parts.push(`not behind lro's proxy: ${s.unwrapped.join(', ')}`);
  if (s.remote.length) parts.push(`remote, left as they are: ${s.remote.join(', ')}`);
  // a project's servers stay unwrapped (a teammate without lro would lose them): nothing to fix there
  const fix = s.unwrapped.length && scope === 'user' ? `lro init ${h} --wrap` : undefined;
  const detail = `${path}: ${parts.join('; ')}${s.remote.length ? ` (${REMOTE_NOTE})` : ''}`;
  checks.push({ name, ok: true, warning: !!fix, detail, ...(fix ? { fix } : {}) });
  // lro's entry is the one survey found (a server named "lro" that runs something else is not)
  const same = (e: unknown) => JSON.stringify(argvOf(h, e)) === JSON.stringify(s.lro);
  return { lro: s.lro ? serversOf(h, text).find(([, e]) => same(e))?.[1] : undefined };
}

/** The Node and lro.js that lro's entry and every server lro wrapped name still exist. */
function pathsCheck(
  h: McpHarness,
  argv: string[],
  proxies: [string, string[]][],
  checks: Check[],
  env: NodeJS.ProcessEnv,
): boolean {
  // a project's entry names lro by PATH (`lro mcp`): found there, and leading to an lro
  const bare = !isAbsolute(argv[0]) && !argv[0].includes('/') ? portableProblem(argv[0], env) : null;
  if (bare) {
    checks.push(bad('paths', `${bare}: ${mcpTitle(h)} cannot start lro's server from the entry "${argv.join(' ')}"`, portableFix()));
    return false;
  }
  const missing = [...missingOf(argv)];
  const stale = proxies.filter(([, a]) => missingOf(a).length).map(([name]) => name);
  if (missing.length || stale.length) {
    const what = [...missing.map((p) => `${p} is gone`), ...stale.map((n) => `server ${n} names a path that is gone`)]
      .join('; ');
    checks.push(bad('paths', `${what} (lro or Node moved)`, `lro init ${h}${stale.length ? ' --wrap' : ''}`));
    return false;
  }
  const where = isAbsolute(argv[0]) ? '' : ` (${argv[0]} on PATH: ${onPath(argv[0], env)})`;
  checks.push({ name: 'paths', ok: true, detail: `${argv.join(' ')}${where}` });
  return true;
}

/** Which of an argv's Node and lro.js are gone; a bare name (`lro`) is looked up on PATH and not checked here. */
function missingOf(argv: string[]): string[] {
  return argv.slice(0, 2).filter((p, i) => {
    if (!isAbsolute(p)) return false;
    try {
      accessSync(p, i === 0 ? constants.X_OK : constants.R_OK);
      return false;
    } catch {
      return true;
    }
  });
}

/** Starts lro's server as the harness would and asks it to initialize and list its tools. */
function liveCheck(argv: string[], env: NodeJS.ProcessEnv, path: string): Promise<Check> {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(argv[0], argv.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const finish = (c: Check) => {
      clearTimeout(timer);
      child.stdin.end();
      child.kill();
      done(c);
    };
    const fail = (why: string) =>
      finish(bad('live', `lro's server from ${path} ${why}`, "run the entry's command by hand to see why"));
    const lastErr = () => (err ? `: ${err.trim().split('\n').pop()}` : '');
    const late = () => fail(`did not answer within ${LIVE_TIMEOUT_MS / 1000} s${lastErr()}`);
    const timer = setTimeout(late, LIVE_TIMEOUT_MS);
    child.on('error', (e) => fail(`did not start: ${e.message}`));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.on('error', () => undefined);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      for (const line of out.split('\n').slice(0, -1)) {
        let m: { id?: number; result?: { tools?: unknown[] }; error?: { message: string } };
        try {
          m = JSON.parse(line);
        } catch {
          return fail(`wrote something that is not JSON-RPC on stdout: ${line.slice(0, 80)}`);
        }
        if (m.error) return fail(`answered an error: ${m.error.message}`);
        if (m.id === 1) {
          const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
          send(child, { jsonrpc: '2.0', method: 'notifications/initialized' }, list);
        }
        if (m.id === 2) {
          const n = m.result?.tools?.length ?? 0;
          const detail = `lro's server answered initialize and tools/list (${n} tools) in ${Date.now() - started} ms`;
          return finish({ name: 'live', ok: n > 0, detail });
        }
      }
      out = out.slice(out.lastIndexOf('\n') + 1);
    });
    const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lro-doctor', version: '1' } };
    send(child, { jsonrpc: '2.0', id: 1, method: 'initialize', params: init });
  });
}

const bad = (name: string, detail: string, fix: string): Check => ({ name, ok: false, detail, fix });

function send(child: ReturnType<typeof spawn>, ...messages: object[]): void {
  child.stdin!.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
}
