// `lro init gemini`, `lro doctor gemini` and `lro __gemini-hook` on scratch homes: the hook written by absolute
// paths, a user's settings (comments, other hooks, other MCP servers) kept while lro's entries go in and out,
// refusal of a file Gemini CLI cannot read, idempotence, --project, the folder-trust gate, and the hook's answer.
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';
import { recordPath, sha256 } from '../../src/harness/settings-file.js';

const root = tempDir();
afterAll(() => cleanup(root));
const pathDir = join(root, 'bin');
mkdirSync(pathDir);
symlinkSync(BIN, join(pathDir, 'lro'));

function home(name: string): { dir: string; env: Record<string, string>; settings: string; work: string } {
  const dir = join(root, name);
  const work = join(dir, 'work');
  mkdirSync(work, { recursive: true });
  const PATH = `${pathDir}:${dirname(process.execPath)}:/usr/bin:/bin`;
  const env = { HOME: dir, XDG_STATE_HOME: join(dir, 'state'), PATH };
  return { dir, env, settings: join(dir, '.gemini', 'settings.json'), work };
}

const USER_SETTINGS = [
  '{',
  '  // my Gemini CLI settings',
  '  "general": { "vimMode": true }, // keep this',
  '  "hooks": {',
  '    "AfterTool": [',
  '      { "matcher": "write_file", "hooks": [{ "name": "fmt", "type": "command", "command": "my-formatter" }] }',
  '    ],',
  '    "BeforeTool": [{ "matcher": ".*", "hooks": [{ "type": "command", "command": "audit" }] }]',
  '  },',
  '  "mcpServers": { "docs": { "command": "docs-server" } }',
  '}',
  '',
].join('\n');

/** Runs lro in `dir` (through bash: `cd dir;`). */
const inDir = (dir: string): string => `cd '${dir}' &&`;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const parseJsonc = (text: string): Json => JSON.parse(text.replace(/\/\/.*$/gm, ''));

test('no ~/.gemini: init writes the hook by absolute paths, says how to trust; uninstall removes it all', async () => {
  const h = home('fresh');
  const dry = await lro(['init', 'gemini', '--dry-run', '--force'], { env: h.env });
  expect(dry.code).toBe(0);
  expect(dry.out).toMatch(/^--- \/dev\/null\n\+\+\+ .*\.gemini\/settings\.json\n@@ -0,0 \+1,\d+ @@\n\+\{\n/);
  expect(existsSync(join(h.dir, '.gemini'))).toBe(false);
  const r = await lro(['init', 'gemini', '--force'], { env: h.env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.out).toContain('Gemini CLI runs hooks only in trusted folders: start `gemini` in the project folder');
  const written = JSON.parse(readFileSync(h.settings, 'utf8'));
  expect(Object.keys(written)).toEqual(['hooks']);
  // one group for the shell tool, one for MCP tools (mcp_<server>_<tool>), the same handler in both
  const handler = {
    name: 'lro',
    type: 'command',
    command: expect.stringMatching(/^LRO_NODE=\/.* \/.*\/bin\/lro-hook __gemini-hook$/),
    timeout: 120000,
  };
  expect(written.hooks.AfterTool).toEqual([
    { matcher: 'run_shell_command', hooks: [handler] },
    { matcher: '^mcp_', hooks: [handler] },
  ]);
  expect(r.out).toContain('(AfterTool hook, matchers run_shell_command and ^mcp_)');
  expect((await lro(['init', 'gemini'], { env: h.env })).out).toContain('nothing to change');
  const un = await lro(['init', 'gemini', '--uninstall'], { env: h.env });
  expect(un.code, un.stderr).toBe(0);
  expect(un.out).toContain('as it was before lro init');
  expect(existsSync(join(h.dir, '.gemini'))).toBe(false);
});

test("--mcp: a user's settings keep comments, hooks and servers, gain lro's, and come back byte for byte", async () => {
  const h = home('mcp');
  mkdirSync(dirname(h.settings));
  writeFileSync(h.settings, USER_SETTINGS, { mode: 0o600 });
  const dry = await lro(['init', 'gemini', '--mcp', '--dry-run'], { env: h.env });
  // a container written on one line gets lro's entry on that line
  const node = JSON.stringify(process.execPath);
  const line = `+  "mcpServers": { "docs": { "command": "docs-server" }, "lro": { "command": ${node}, "args": [ `;
  expect(dry.out).toContain(line);
  expect(readFileSync(h.settings, 'utf8')).toBe(USER_SETTINGS);
  const r = await lro(['init', 'gemini', '--mcp'], { env: h.env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.out).toContain("lro's MCP server registered (mcpServers.lro)");
  const after = readFileSync(h.settings, 'utf8');
  expect(after).toContain('  // my Gemini CLI settings\n  "general": { "vimMode": true }, // keep this\n');
  const json = parseJsonc(after);
  expect(json.hooks.AfterTool.map((g: Json) => g.matcher)).toEqual(['write_file', 'run_shell_command', '^mcp_']);
  expect(json.hooks.BeforeTool).toHaveLength(1);
  expect(json.mcpServers.docs).toEqual({ command: 'docs-server' });
  const args = [expect.stringMatching(/\/bin\/lro\.js$/), 'mcp'];
  expect(json.mcpServers.lro).toEqual({ command: process.execPath, args });
  expect(statSync(h.settings).mode & 0o777).toBe(0o600);
  expect((await lro(['init', 'gemini', '--mcp'], { env: h.env })).out).toContain('nothing to change');
  expect((await lro(['init', 'gemini', '--uninstall'], { env: h.env })).code).toBe(0);
  expect(readFileSync(h.settings, 'utf8')).toBe(USER_SETTINGS);
});

test("a file changed since init loses only lro's entries; the other tools' hooks and servers stay", async () => {
  const h = home('changed');
  mkdirSync(dirname(h.settings));
  writeFileSync(h.settings, USER_SETTINGS);
  expect((await lro(['init', 'gemini', '--mcp'], { env: h.env })).code).toBe(0);
  // the user edits the file after init
  writeFileSync(h.settings, readFileSync(h.settings, 'utf8').replace('"vimMode": true', '"vimMode": false'));
  const un = await lro(['init', 'gemini', '--uninstall'], { env: h.env });
  expect(un.code, un.stderr).toBe(0);
  expect(un.out).toMatch(/^lro: removed from .*settings\.json\n$/);
  expect(readFileSync(h.settings, 'utf8')).toBe(USER_SETTINGS.replace('"vimMode": true', '"vimMode": false'));
});

test('a settings file Gemini CLI rejects is refused (exit 2, one line, untouched); a comment is not', async () => {
  const h = home('refused');
  mkdirSync(dirname(h.settings));
  const comma = '{\n  // mine\n  "general": { "vimMode": true },\n}\n';
  writeFileSync(h.settings, comma);
  const r = await lro(['init', 'gemini'], { env: h.env });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^lro: .*settings\.json is not valid JSON \(PropertyNameExpected at line 4\): .*\n$/);
  expect(r.stderr).toContain('lro leaves it untouched');
  expect(readFileSync(h.settings, 'utf8')).toBe(comma);
  writeFileSync(h.settings, '[1, 2]\n');
  const list = await lro(['init', 'gemini'], { env: h.env });
  expect(list.code).toBe(2);
  expect(list.stderr).toContain('is not a JSON object');
  expect(readFileSync(h.settings, 'utf8')).toBe('[1, 2]\n');
  // a value lro would have to replace to add its own is not replaced
  const odd = '{ "hooks": { "AfterTool": { "matcher": "x" } } }\n';
  writeFileSync(h.settings, odd);
  const shape = await lro(['init', 'gemini'], { env: h.env });
  expect(shape.code).toBe(2);
  expect(shape.stderr).toMatch(/settings\.json: hooks\.AfterTool is not an array: fix it first, lro leaves it untouched\n$/);
  expect(readFileSync(h.settings, 'utf8')).toBe(odd);
});

test('--project edits ./.gemini/settings.json of the folder it runs in; --user with --project is refused', async () => {
  const h = home('project');
  const r = await lro(['init', 'gemini', '--project'], { env: h.env, shellPrefix: inDir(h.work) });
  expect(r.code, r.stderr).toBe(0);
  expect(r.out).toContain('lro: installed in .gemini/settings.json');
  expect(r.out).toContain('lro init gemini --project --uninstall');
  expect(JSON.parse(readFileSync(join(h.work, '.gemini', 'settings.json'), 'utf8')).hooks.AfterTool).toHaveLength(2);
  expect(existsSync(h.settings)).toBe(false);
  const un = await lro(['init', 'gemini', '--project', '--uninstall'], { env: h.env, shellPrefix: inDir(h.work) });
  expect(un.code, un.stderr).toBe(0);
  expect(existsSync(join(h.work, '.gemini'))).toBe(false);
  const both = await lro(['init', 'gemini', '--user', '--project'], { env: h.env });
  expect(both.code).toBe(2);
});

test('lro doctor gemini: not installed, then the folder-trust gate, then healthy (the hook run on samples)', async () => {
  const h = home('doctor');
  const none = await lro(['doctor', 'gemini'], { env: h.env, shellPrefix: inDir(h.work) });
  expect(none.code).toBe(1);
  expect(none.out).toContain('fix: lro init gemini');
  expect((await lro(['init', 'gemini', '--force'], { env: h.env })).code).toBe(0);
  const untrusted = await lro(['doctor', 'gemini', '--json'], { env: h.env, shellPrefix: inDir(h.work) });
  expect(untrusted.code).toBe(1);
  const report = JSON.parse(untrusted.out) as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] };
  expect(report.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['folder trust']);
  expect(report.checks.find((c) => c.name === 'folder trust')?.fix).toContain('GEMINI_CLI_TRUST_WORKSPACE=true');
  writeFileSync(join(h.dir, '.gemini', 'trustedFolders.json'), JSON.stringify({ [h.work]: 'TRUST_FOLDER' }));
  const trusted = await lro(['doctor', 'gemini'], { env: h.env, shellPrefix: inDir(h.work) });
  expect(trusted.code, trusted.out).toBe(0);
  expect(trusted.out).toContain('ok  folder trust: ');
  expect(trusted.out).toMatch(/ok {2}large output: a failing command's 109 kB became a descriptor \(id \w{26}\)/);
  expect(trusted.out).toMatch(/ok {2}large MCP result: an MCP tool's 189 kB became a descriptor \(id \w{26}\)/);
  expect(trusted.out).toContain('ok  shell tool: lro\'s group (matcher "run_shell_command") runs for run_shell_command');
  expect(trusted.out).toContain('ok  MCP tools: lro\'s group (matcher "^mcp_") runs for mcp_docs_search');
  expect(trusted.out).toContain('lro works in Gemini CLI.');
  // hooks switched off, or lro's disabled by name: said so
  const text = readFileSync(h.settings, 'utf8');
  writeFileSync(h.settings, text.replace('{', '{\n  "hooksConfig": { "disabled": ["lro"] },'));
  const off = await lro(['doctor', 'gemini'], { env: h.env, shellPrefix: inDir(h.work) });
  expect(off.code).toBe(1);
  expect(off.out).toContain("X  hooks enabled: hooksConfig.disabled lists lro's hook ('lro')");
});

const shellText = (output: string, trailer: string[]) =>
  `<untrusted_context>\nOutput: ${output}\n${trailer.join('\n')}\n</untrusted_context>`;

test('__gemini-hook: a large output stored and replaced (exit code kept); a small one, or another, left alone', async () => {
  const store = join(root, 'hook-store');
  // (TMPDIR: the calls' claims live in the prefix's folder there; these inputs repeat a recorded call's session and time)
  const hook = (input: unknown) => lro(['__gemini-hook'], { input: JSON.stringify(input), env: { LRO_DIR: store, TMPDIR: claimsDir() } });
  const big = Array.from({ length: 20000 }, (_, i) => `${i + 1}`).join('\n') + '\nFATAL: sample';
  const input = (llmContent: string, tool = 'run_shell_command') => ({
    hook_event_name: 'AfterTool',
    tool_name: tool,
    tool_input: { command: 'make' },
    tool_response: { llmContent, returnDisplay: '' },
  });
  const r = await hook(input(shellText(big, ['Exit Code: 3', 'Process Group PGID: 42'])));
  const out = JSON.parse(r.out) as { decision: string; reason: string };
  expect(out.decision).toBe('deny');
  expect(out.reason).toMatch(/^The command ran; its whole output is stored by lro[^\n]*\n<untrusted_context>\nOutput /);
  expect(out.reason).toMatch(/\nExit Code: 3\nProcess Group PGID: 42\n<\/untrusted_context>$/);
  expect(out.reason).toContain('source: make (exit code 3)');
  const id = /\bid: (\w{26})\b/.exec(out.reason)![1];
  expect((await lro(['grep', id, 'FATAL'], { env: { LRO_DIR: store } })).out).toBe('20001:FATAL: sample\n');
  expect((await lro(['cat', id], { env: { LRO_DIR: store } })).out).toBe(big);
  for (const quiet of [
    input(shellText('small', ['Exit Code: 3'])),
    input(`Command moved to background (PID: 7). Output hidden. ${big}`),
    input(shellText(big, []), 'read_file'),
  ]) {
    const same = await hook(quiet);
    expect(same.code).toBe(0);
    expect(same.out).toBe('');
  }
  expect((await lro(['__gemini-hook'], { input: 'not json' })).code).toBe(0);
});

test('an install from before MCP results (the shell group alone): doctor warns, init adds the group, undo exact', async () => {
  const h = home('upgrade');
  mkdirSync(dirname(h.settings));
  writeFileSync(h.settings, USER_SETTINGS);
  writeFileSync(join(h.dir, '.gemini', 'trustedFolders.json'), JSON.stringify({ [h.work]: 'TRUST_FOLDER' }));
  expect((await lro(['init', 'gemini'], { env: h.env })).code).toBe(0);
  const full = readFileSync(h.settings, 'utf8');
  // what lro init gemini wrote before: its MCP group taken out, and the record of what it wrote to match
  const json = parseJsonc(full);
  const old = full.replace(/,\s*\{\s*"matcher": "\^mcp_",[\s\S]*?\]\s*\}(?=\s*\])/, '');
  expect(parseJsonc(old).hooks.AfterTool.map((g: Json) => g.matcher)).toEqual(['write_file', 'run_shell_command']);
  writeFileSync(h.settings, old);
  const record = recordPath(h.settings, h.env);
  writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), written: sha256(old) }));
  const doctor = await lro(['doctor', 'gemini'], { env: h.env, shellPrefix: inDir(h.work) });
  expect(doctor.out).toContain("!  MCP tools: no group of lro's matches mcp_docs_search: an MCP tool's large result reaches the model whole");
  expect(doctor.out).toContain('fix: lro init gemini (adds the group with matcher ^mcp_)');
  const again = await lro(['init', 'gemini'], { env: h.env });
  expect(again.code, again.stderr).toBe(0);
  expect(again.out).toContain('lro: installed in');
  expect(parseJsonc(readFileSync(h.settings, 'utf8'))).toEqual(json);
  expect((await lro(['init', 'gemini'], { env: h.env })).out).toContain('nothing to change');
  expect((await lro(['init', 'gemini', '--uninstall'], { env: h.env })).code).toBe(0);
  expect(readFileSync(h.settings, 'utf8')).toBe(USER_SETTINGS);
});

/** A TMPDIR of this run's own: a claim of a call made by an earlier run of these tests would leave it alone. */
function claimsDir(): string {
  const dir = join(root, `tmp-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** An MCP tool's AfterTool input as Gemini CLI 0.61.0 sends it (recorded from the real binary, paths neutral). */
function mcpInput(texts: string[], o: { tool?: string; args?: unknown; extra?: unknown[]; error?: unknown; server?: { command: string; args: string[] } } = {}) {
  const tool = o.tool ?? 'mcp_fake_lines';
  return {
    session_id: '9a130d1b-0f0c-4074-9671-2f99ca25ea21',
    transcript_path: '/home/user/.gemini/tmp/work/chats/session-2026-11-28T09-00-9a130d1b.jsonl',
    cwd: '/home/user/work',
    hook_event_name: 'AfterTool',
    timestamp: '2026-11-28T09:00:07.833Z',
    tool_name: tool,
    tool_input: o.args ?? { lines: 3 },
    tool_response: {
      llmContent: [...texts.map((t) => ({ text: `<untrusted_context>\n${t}\n</untrusted_context>` })), ...(o.extra ?? [])],
      returnDisplay: texts.join('\n'),
      ...(o.error !== undefined ? { error: o.error } : {}),
    },
    mcp_context: { server_name: 'fake', tool_name: tool.split('_').slice(2).join('_'), ...(o.server ?? { command: '/usr/bin/node', args: ['/opt/fake-upstream.mjs'] }) },
  };
}

test('__gemini-hook, MCP tools: a large result stored (text blocks joined, unwrapped) and replaced; others left alone', async () => {
  const store = join(root, 'mcp-hook-store');
  const env = { LRO_DIR: store, TMPDIR: claimsDir() };
  const hook = (input: unknown) => lro(['__gemini-hook'], { input: JSON.stringify(input), env });
  const rows = Array.from({ length: 20000 }, (_, i) => `line ${i + 1} of the fake upstream`).join('\n');
  // a second block that names Gemini CLI's wrapper (escaped by it), and one that ends with a line break
  const blocks = [rows, 'ERROR: the &lt;/untrusted_context&gt; tag', 'last block\n'];
  const r = await hook(mcpInput(blocks, { args: { lines: 20000, filter: 'x'.repeat(300) } }));
  expect(r.code).toBe(0);
  const out = JSON.parse(r.out) as { decision: string; reason: string };
  expect(out.decision).toBe('deny');
  expect(out.reason).toMatch(/^The tool ran; its whole result is stored by lro[^\n]*\n<untrusted_context>\nResult of mcp_fake_lines offloaded: 20,002 lines/);
  expect(out.reason).toMatch(/\n<\/untrusted_context>$/);
  expect(out.reason.match(/<\/untrusted_context>/g)).toHaveLength(1);
  // the call as the source: tool and arguments, cut at 200 characters
  const source = /\nsource: MCP tool call (.*)\n/.exec(out.reason)![1];
  expect(source).toMatch(/^mcp_fake_lines \{"lines":20000,"filter":"xxx+…$/);
  expect(source.length).toBe(200);
  const id = /\bid: (\w{26})\b/.exec(out.reason)![1];
  expect((await lro(['cat', id], { env })).out).toBe(blocks.join('\n'));
  expect((await lro(['grep', id, 'ERROR'], { env })).out).toBe('20001:ERROR: the &lt;/untrusted_context&gt; tag\n');
  const image = [
    { text: "[Tool 'image' provided the following image data with mime-type: image/png]" },
    { inlineData: { mimeType: 'image/png', data: 'A'.repeat(40_000) } },
  ];
  for (const quiet of [
    mcpInput(['greeting: hello\nline 1 of the fake upstream']), // small
    mcpInput([rows], { extra: image }), // an image: a hook can only replace the whole result
    mcpInput([], { extra: image }),
    mcpInput([rows], { error: { message: 'MCP tool reported an error', type: 'mcp_tool_error' } }),
    mcpInput([rows], { tool: 'mcp_lro_lro_read', server: { command: '/usr/bin/node', args: ['/opt/lro/bin/lro.js', 'mcp'] } }),
    mcpInput([rows], { tool: 'mcp_lro_lro_read', server: { command: '/usr/local/bin/lro', args: ['mcp', 'proxy'] } }),
  ]) {
    const same = await hook(quiet);
    expect(same.code).toBe(0);
    expect(same.out).toBe('');
  }
  // Gemini CLI's parts with no wrapper (a resource link) are kept as they are
  const linked = mcpInput([rows], { extra: [{ text: 'Resource Link: notes at file:///notes.txt' }] });
  const withLink = JSON.parse((await hook(linked)).out) as { reason: string };
  const linkId = /\bid: (\w{26})\b/.exec(withLink.reason)![1];
  expect((await lro(['read', linkId, '--tail', '1'], { env })).out).toContain('Resource Link: notes at file:///notes.txt');
});

describe('--project: lro named by PATH in a file the team commits', () => {
  /** lro and lro-hook as npm links them (bin entries of package.json): symlinks on PATH. */
  const npmBin = join(root, 'npm-bin');
  mkdirSync(npmBin);
  symlinkSync(BIN, join(npmBin, 'lro'));
  symlinkSync(join(dirname(BIN), 'lro-hook'), join(npmBin, 'lro-hook'));
  const REPO = dirname(dirname(BIN));
  const withHook = (h: ReturnType<typeof home>) => ({ ...h.env, PATH: `${npmBin}:${dirname(process.execPath)}:/usr/bin:/bin` });

  test('no path of this machine in the file; lro-hook missing here: written, one stderr line; doctor says what to run', async () => {
    const h = home('project-portable');
    const r = await lro(['init', 'gemini', '--project', '--mcp'], { env: h.env, shellPrefix: inDir(h.work) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toContain('lro: the file names lro by PATH (lro-hook, lro), no path of this machine: it can be committed');
    // this PATH has lro (a link) but no lro-hook
    expect(r.stderr).toMatch(/^lro: warning: lro-hook is not on PATH: the project's file names lro by PATH, so Gemini CLI's hook steps aside and lro's MCP server does not start on this machine; fix: npm install -g \S+ \(puts lro and lro-hook on PATH\), .*\n$/);
    const text = readFileSync(join(h.work, '.gemini', 'settings.json'), 'utf8');
    for (const path of [process.execPath, dirname(process.execPath), REPO, h.dir, root]) expect(text).not.toContain(path);
    const doc = JSON.parse(text);
    expect(doc.mcpServers).toEqual({ lro: { command: 'lro', args: ['mcp'] } });
    expect(doc.hooks.AfterTool.map((g: Json) => g.hooks[0].command)).toEqual([
      'command -v lro-hook >/dev/null 2>&1 && exec lro-hook __gemini-hook; cat >/dev/null || true',
      'command -v lro-hook >/dev/null 2>&1 && exec lro-hook __gemini-hook; cat >/dev/null || true',
    ]);
    mkdirSync(join(h.dir, '.gemini'));
    writeFileSync(join(h.dir, '.gemini', 'trustedFolders.json'), JSON.stringify({ [h.work]: 'TRUST_FOLDER' }));
    const missing = await lro(['doctor', 'gemini'], { env: h.env, shellPrefix: inDir(h.work) });
    expect(missing.code).toBe(1);
    expect(missing.out).toContain("X  hook: lro-hook is not on PATH: the project's hook steps aside here");
    expect(missing.out).toContain('fix: npm install -g');
    // the fix links what is missing: lro-hook, not lro (a link is there)
    expect(missing.out).toMatch(/or ln -s \S+\/bin\/lro-hook ~\/\.local\/bin\/lro-hook$/m);
    expect(missing.out).not.toContain('~/.local/bin/lro ');
    // lro-hook on PATH, as npm links it: no warning, and doctor runs the project's hook on its samples
    const again = await lro(['init', 'gemini', '--project', '--mcp'], { env: withHook(h), shellPrefix: inDir(h.work) });
    expect(again.stderr).toBe('');
    expect(again.out).toContain('nothing to change');
    const ok = await lro(['doctor', 'gemini'], { env: withHook(h), shellPrefix: inDir(h.work) });
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toContain(`(lro-hook on PATH: ${join(npmBin, 'lro-hook')})`);
    expect(ok.out).toMatch(/ok {2}large output: a failing command's 109 kB became a descriptor/);
    const un = await lro(['init', 'gemini', '--project', '--uninstall'], { env: h.env, shellPrefix: inDir(h.work) });
    expect(un.code, un.stderr).toBe(0);
    expect(un.stderr).toBe('');
    expect(existsSync(join(h.work, '.gemini'))).toBe(false);
  });

  test('lro off PATH: the fix links lro, and lro-hook too when that is missing (a project\'s hook runs it by PATH)', async () => {
    const h = home('off-path');
    const env = { ...h.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
    expect((await lro(['init', 'gemini', '--force'], { env })).code).toBe(0);
    const neither = await lro(['doctor', 'gemini'], { env, shellPrefix: inDir(h.work) });
    expect(neither.code).toBe(1);
    expect(neither.out).toContain("X  lro on PATH: lro and lro-hook are not on PATH: the model's `lro grep ID …` will not be found");
    expect(neither.out).toMatch(/ln -s \S+\/bin\/lro\.js ~\/\.local\/bin\/lro and ln -s \S+\/bin\/lro-hook ~\/\.local\/bin\/lro-hook$/m);
    const hookOnly = join(root, 'hook-only-bin');
    mkdirSync(hookOnly);
    symlinkSync(join(dirname(BIN), 'lro-hook'), join(hookOnly, 'lro-hook'));
    const one = await lro(['doctor', 'gemini'], { env: { ...env, PATH: `${hookOnly}:${env.PATH}` }, shellPrefix: inDir(h.work) });
    expect(one.out).toContain("X  lro on PATH: lro is not on PATH: the model's `lro grep ID …` will not be found");
    expect(one.out).toMatch(/or ln -s \S+\/bin\/lro\.js ~\/\.local\/bin\/lro$/m);
  });

  test("an earlier lro's project file (absolute paths): init rewrites it by PATH, uninstall gives the user's back", async () => {
    const h = home('project-upgrade');
    const file = join(h.work, '.gemini', 'settings.json');
    mkdirSync(dirname(file));
    writeFileSync(file, USER_SETTINGS);
    // what an earlier lro wrote there: the user-scope form, by this machine's paths (made here with --user, moved)
    mkdirSync(dirname(h.settings), { recursive: true });
    writeFileSync(h.settings, USER_SETTINGS);
    expect((await lro(['init', 'gemini', '--mcp', '--force'], { env: h.env })).code).toBe(0);
    const earlier = readFileSync(h.settings, 'utf8');
    expect(earlier).toContain(process.execPath);
    writeFileSync(file, earlier);
    expect((await lro(['init', 'gemini', '--uninstall'], { env: h.env })).code).toBe(0);
    const doctor = await lro(['doctor', 'gemini', '--json'], { env: withHook(h), shellPrefix: inDir(h.work) });
    const portable = JSON.parse(doctor.out).checks.find((c: Json) => c.name === 'portable');
    expect(portable?.detail).toContain("the project's hook names this machine's paths");
    expect(portable?.fix).toBe('lro init gemini --project (names lro by PATH)');
    const r = await lro(['init', 'gemini', '--project', '--mcp'], { env: withHook(h), shellPrefix: inDir(h.work) });
    expect(r.code, r.stderr).toBe(0);
    const now = readFileSync(file, 'utf8');
    expect(now).not.toContain(process.execPath);
    expect(now).not.toContain(REPO);
    for (const kept of ['// my Gemini CLI settings', '"general": { "vimMode": true }, // keep this', 'my-formatter', 'docs-server']) {
      expect(now).toContain(kept);
    }
    // uninstall: the record init kept gives back what was there before it (the earlier lro's file) ...
    const uninstall = () => lro(['init', 'gemini', '--project', '--uninstall'], { env: h.env, shellPrefix: inDir(h.work) });
    expect((await uninstall()).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(earlier);
    // ... and on a teammate's clone (no record), lro's entries come out, the team's settings stay byte for byte
    writeFileSync(file, now);
    expect((await uninstall()).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(USER_SETTINGS);
  });
});
