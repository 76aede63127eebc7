// Editing the MCP server lists of Cursor, VS Code, Claude Desktop and opencode: the edge cases of wrapping one
// entry (no args, empty args, args over several lines, CRLF), what is not wrapped (lro's own, a hand-written
// `lro mcp proxy`, remote), an upgrade that moved lro, opencode 2's mcp.servers, and what is refused.
import { describe, expect, test } from 'vitest';
import { parse } from 'jsonc-parser';
import { installMcpConfig, survey, uninstallMcpConfig } from '../../src/harness/mcp-config/settings.js';

const LRO = ['/opt/node/bin/node', '/opt/lro/bin/lro.js'];
const P = 'mcp.json';
const wrap = (h: Parameters<typeof installMcpConfig>[0], text: string) => installMcpConfig(h, text, P, true, LRO);
const proxied = (...argv: string[]) => [LRO[1], 'mcp', 'proxy', '--no-tools', '--', ...argv];

describe('wrapping one entry', () => {
  test('args over several lines: lro goes in on the first line, the rest keeps its bytes; undo is exact', () => {
    const text =
      '{\n  "mcpServers": {\n    "fs": {\n      "command": "npx",\n      "args": [\n        "-y",\n' +
      '        "server-fs"\n      ]\n    }\n  }\n}\n';
    const out = wrap('cursor', text);
    expect(out).toContain(`"args": [\n        "${LRO[1]}", "mcp", "proxy", "--no-tools", "--", "npx", "-y",\n        "server-fs"\n`);
    expect(uninstallMcpConfig('cursor', out, P)).toBe(text);
  });

  test('no args: args are added after command, on its line or the next as command is laid out; undo exact', () => {
    const crlf = '{\r\n  "mcpServers": {\r\n    "a": {\r\n      "command": "srv"\r\n    }\r\n  }\r\n}\r\n';
    for (const text of ['{"mcpServers": {"a": {"command": "srv", "env": {}}}}', crlf]) {
      const out = wrap('claude-desktop', text);
      const a = (parse(out) as { mcpServers: { a: unknown } }).mcpServers.a;
      expect(a).toMatchObject({ command: LRO[0], args: proxied('srv') });
      if (text.includes('\r\n')) expect(out).toContain(`"command": "${LRO[0]}",\r\n      "args": [`);
      expect(uninstallMcpConfig('claude-desktop', out, P)).toBe(text);
    }
  });

  test('empty args: filled in place; undo leaves the entry without args (the same server)', () => {
    const out = wrap('cursor', '{"mcpServers": {"a": {"command": "srv", "args": []}}}');
    expect(JSON.parse(out).mcpServers.a).toEqual({ command: LRO[0], args: proxied('srv') });
    expect(JSON.parse(uninstallMcpConfig('cursor', out, P)).mcpServers).toEqual({ a: { command: 'srv' } });
  });

  test("not wrapped: lro's own server, a hand-written lro mcp proxy, a remote server, a VS Code http server", () => {
    const text = JSON.stringify({
      servers: {
        mine: { type: 'stdio', command: 'lro', args: ['mcp', 'proxy', '--', 'srv'] },
        web: { type: 'http', url: 'https://x.example/mcp' },
        sse: { type: 'sse', url: 'https://x.example/sse' },
      },
    });
    const out = wrap('vscode', text);
    expect(JSON.parse(out).servers.mine).toEqual(JSON.parse(text).servers.mine);
    const s = survey('vscode', out);
    expect(s).toEqual({ lro: [...LRO, 'mcp'], wrapped: ['mine'], unwrapped: [], remote: ['web', 'sse'] });
    // lro takes out only what it put in: the hand-written proxy stays
    expect(JSON.parse(uninstallMcpConfig('vscode', out, P))).toEqual(JSON.parse(text));
  });

  test('lro moved (an upgrade): init --wrap puts the new paths in lro\'s entry and in every wrapped server', () => {
    const old = wrap('opencode', '{"mcp": {"a": {"type": "local", "command": ["srv", "-v"]}}}');
    const moved = ['/new/node', '/new/lro/bin/lro.js'];
    const out = installMcpConfig('opencode', old, P, true, moved);
    const mcp = (parse(out) as { mcp: Record<string, { command: string[] }> }).mcp;
    expect(mcp.a.command).toEqual([...moved, 'mcp', 'proxy', '--no-tools', '--', 'srv', '-v']);
    expect(mcp.lro.command).toEqual([...moved, 'mcp']);
    expect(installMcpConfig('opencode', out, P, true, moved)).toBe(out);
  });

  test("an earlier lro's wrapping (its proxy adding lro's tools) is brought up to date, and unwrapped exactly", () => {
    const mine = '{"mcp": {"a": {"type": "local", "command": ["srv", "-v"]}}}';
    const earlier = mine.replace('["srv", "-v"]', JSON.stringify([...LRO, 'mcp', 'proxy', '--', 'srv', '-v']));
    const out = installMcpConfig('opencode', earlier, P, true, LRO);
    const mcp = (parse(out) as { mcp: Record<string, { command: string[] }> }).mcp;
    expect(mcp.a.command).toEqual([...LRO, 'mcp', 'proxy', '--no-tools', '--', 'srv', '-v']);
    expect(parse(uninstallMcpConfig('opencode', earlier, P))).toEqual(parse(mine));
    expect(parse(uninstallMcpConfig('opencode', out, P))).toEqual(parse(mine));
  });

  test('opencode 2 (mcp.servers): lro goes under mcp.servers, without opencode 1\'s enabled', () => {
    const out = wrap('opencode', '{"mcp": {"servers": {"a": {"type": "local", "command": ["srv"]}}}}');
    expect((parse(out) as { mcp: unknown }).mcp).toEqual({
      servers: {
        a: { type: 'local', command: [LRO[0], ...proxied('srv')] },
        lro: { type: 'local', command: [...LRO, 'mcp'] },
      },
    });
  });
});

describe('refused, with the file named and left as it is', () => {
  test.each([
    ['cursor', '{"mcpServers": {"lro": {"command": "other"}}}', 'already has a server named "lro" that is not'],
    ['cursor', '{"mcpServers": []}', '"mcpServers" is not an object of servers'],
    ['vscode', '[]', 'is not a JSON object'],
    ['claude-desktop', '{"mcpServers": {},}', 'is not strict JSON'],
    ['opencode', '{"mcp": {', 'is not JSON with comments'],
  ] as const)('%s: %s', (h, text, why) => {
    expect(() => installMcpConfig(h, text, P, true, LRO)).toThrow(why);
    expect(() => installMcpConfig(h, text, P, true, LRO)).toThrow(`${P}`);
  });
});
