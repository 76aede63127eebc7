// A project's files are committed and shared by a team: lro names itself there by PATH (`lro mcp`, Gemini CLI's
// `lro-hook __gemini-hook` that steps aside where there is none), never by this machine's paths. The shapes written
// per harness, an earlier lro's project file (absolute paths, wrapped servers) brought to that form with every value
// of the user's kept (each edit checked as init checks it), and uninstall taking out both forms.
import { parse } from 'jsonc-parser';
import { describe, expect, test } from 'vitest';
import { verifiedEdit, type FileEdit } from '../../src/harness/installer.js';
import {
  installMcpConfig,
  lroArgv,
  mcpConfigVerifier,
  uninstallMcpConfig,
  type McpHarness,
} from '../../src/harness/mcp-config/settings.js';
import {
  geminiHookCommand,
  geminiVerifier,
  installHook,
  installMcp,
  isLroServerEntry,
  mcpServer,
  PORTABLE_HOOK_COMMAND,
  uninstallAll,
} from '../../src/harness/gemini/settings.js';

const OLD = ['/home/ann/.nvm/versions/node/v20.11.0/bin/node', '/home/ann/src/lro/bin/lro.js'];
const P = 'mcp.json';
const PROJECT = lroArgv('project');
/** No absolute path (of this machine, or of the one an earlier lro ran on) anywhere in a text. */
const noPath = (text: string) => {
  expect(text).not.toMatch(/"\/|'\/|\s\/[a-z]/);
  expect(text).not.toContain(process.execPath);
  expect(text).not.toContain('/home/ann');
};

function mcpEdit(h: McpHarness, scope: 'user' | 'project'): FileEdit {
  const lro = lroArgv(scope);
  return {
    shown: P,
    verify: mcpConfigVerifier(h, false, lro),
    install: (t) => installMcpConfig(h, t, P, false, lro),
    uninstall: (t) => uninstallMcpConfig(h, t, P),
  };
}

describe('MCP-configured harnesses, --project: lro mcp by PATH', () => {
  test.each([
    ['cursor', { mcpServers: { lro: { command: 'lro', args: ['mcp'] } } }],
    ['vscode', { servers: { lro: { type: 'stdio', command: 'lro', args: ['mcp'] } } }],
    ['opencode', { mcp: { lro: { type: 'local', command: ['lro', 'mcp'], enabled: true } } }],
  ] as const)('%s: a new file holds the entry by name, no path; uninstall takes it out', (h, want) => {
    expect(PROJECT).toEqual(['lro']);
    const out = verifiedEdit(mcpEdit(h, 'project'), '', false);
    expect(JSON.parse(out)).toEqual(want);
    noPath(out);
    expect(verifiedEdit(mcpEdit(h, 'project'), out, false)).toBe(out);
    // (the file itself goes with the record init keeps: the e2e tests)
    expect(verifiedEdit(mcpEdit(h, 'project'), out, true)).toBe('{}\n');
  });

  test("the user's scope is unchanged: this Node and lro.js by absolute paths", () => {
    const out = verifiedEdit(mcpEdit('cursor', 'user'), '', false);
    expect(JSON.parse(out).mcpServers.lro).toEqual({ command: process.execPath, args: [lroArgv()[1], 'mcp'] });
    expect(lroArgv()[1]).toMatch(/^\/.*\/bin\/lro\.js$/);
  });

  test("an earlier lro's project file (paths, wrapped servers): rewritten by name and unwrapped, the rest kept", () => {
    const mine = [
      '{',
      '  "mcpServers": {',
      '    "fs": { "command": "npx", "args": ["-y", "server-fs", "."], "env": { "K": "v" } },',
      '    "web": { "url": "https://mcp.example.com/mcp" },',
      '    "hand": { "command": "lro", "args": ["mcp", "proxy", "--", "srv"] }',
      '  },',
      '  "theme": "dark"',
      '}',
      '',
    ].join('\n');
    // what `init cursor --project --wrap` of an earlier lro made of it
    const earlier = installMcpConfig('cursor', mine, P, true, OLD);
    expect(earlier).toContain(OLD[1]);
    const out = verifiedEdit(mcpEdit('cursor', 'project'), earlier, false);
    noPath(out);
    const doc = parse(out) as { mcpServers: Record<string, unknown>; theme: string };
    expect(doc.mcpServers.lro).toEqual({ command: 'lro', args: ['mcp'] });
    const { lro: _, ...rest } = doc.mcpServers;
    expect({ ...doc, mcpServers: rest }).toEqual(parse(mine));
    // a hand-written `lro mcp proxy` is the user's own: kept as written
    expect(out).toContain('"hand": { "command": "lro", "args": ["mcp", "proxy", "--", "srv"] }');
    // init again: nothing to change; uninstall: the user's file, byte for byte
    expect(verifiedEdit(mcpEdit('cursor', 'project'), out, false)).toBe(out);
    expect(verifiedEdit(mcpEdit('cursor', 'project'), out, true)).toBe(mine);
    // and the earlier file itself, uninstalled as it is
    expect(verifiedEdit(mcpEdit('cursor', 'project'), earlier, true)).toBe(mine);
  });
});

describe('Gemini CLI, --project: lro-hook and lro by PATH', () => {
  const gemini = (scope: 'user' | 'project', mcp: boolean): FileEdit => {
    const command = geminiHookCommand(scope);
    const server = mcpServer(scope);
    return {
      shown: 'settings.json',
      verify: geminiVerifier(command, mcp ? server : null),
      install: (t) => (mcp ? installMcp(installHook(t, command, 'settings.json'), server, 'settings.json') : installHook(t, command, 'settings.json')),
      uninstall: (t) => uninstallAll(t, 'settings.json'),
    };
  };

  test('the hook command and the server name lro by PATH; the user scope keeps absolute paths', () => {
    expect(geminiHookCommand('project')).toBe(PORTABLE_HOOK_COMMAND);
    expect(PORTABLE_HOOK_COMMAND).toMatch(/^command -v lro-hook .*exec lro-hook __gemini-hook; cat >\/dev\/null/);
    expect(PORTABLE_HOOK_COMMAND).not.toContain('LRO_NODE');
    expect(mcpServer('project')).toEqual({ command: 'lro', args: ['mcp'] });
    expect(geminiHookCommand('user')).toMatch(/^LRO_NODE='?\/.*'? '?\/.*\/bin\/lro-hook'? __gemini-hook$/);
    expect(mcpServer('user').command).toBe(process.execPath);
    expect(isLroServerEntry({ command: 'lro', args: ['mcp'] })).toBe(true);
    expect(isLroServerEntry({ command: 'lro', args: ['mcp', 'proxy', '--', 'x'] })).toBe(false);
    expect(isLroServerEntry({ command: 'lro-other', args: ['mcp'] })).toBe(false);
  });

  test("an earlier lro's project settings (paths): rewritten by PATH, the user's hooks and servers kept; undo", () => {
    const mine = [
      '{',
      '  // the team\'s settings',
      '  "hooks": { "AfterTool": [{ "matcher": "write_file", "hooks": [{ "type": "command", "command": "fmt" }] }] },',
      '  "mcpServers": { "docs": { "command": "docs-server" } }',
      '}',
      '',
    ].join('\n');
    const oldHook = `LRO_NODE=${OLD[0]} ${OLD[1].replace(/lro\.js$/, 'lro-hook')} __gemini-hook`;
    const oldServer = { command: OLD[0], args: [OLD[1], 'mcp'] };
    const earlier = installMcp(installHook(mine, oldHook, 's'), oldServer, 's');
    expect(earlier).toContain('/home/ann');
    const out = verifiedEdit(gemini('project', true), earlier, false);
    noPath(out);
    const doc = parse(out) as { hooks: { AfterTool: { matcher: string; hooks: { command: string }[] }[] }; mcpServers: object };
    expect(doc.hooks.AfterTool.map((g) => [g.matcher, g.hooks[0].command])).toEqual([
      ['write_file', 'fmt'],
      ['run_shell_command', PORTABLE_HOOK_COMMAND],
      ['^mcp_', PORTABLE_HOOK_COMMAND],
    ]);
    expect(doc.mcpServers).toEqual({ docs: { command: 'docs-server' }, lro: { command: 'lro', args: ['mcp'] } });
    expect(verifiedEdit(gemini('project', true), out, false)).toBe(out);
    expect(verifiedEdit(gemini('project', true), out, true)).toBe(mine);
    expect(verifiedEdit(gemini('project', false), earlier, true)).toBe(mine);
  });
});
