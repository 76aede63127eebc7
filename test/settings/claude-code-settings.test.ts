// Editing Claude Code's settings.json: lro's entries in, lro's entries out, the user's layout and entries kept.
import { describe, expect, test } from 'vitest';
import { install, installedIn, uninstall, type Installation } from '../../src/harness/claude-code/settings.js';
import { layoutOf, setAt, strictJsonProblem } from '../../src/harness/json-edit.js';
import { unifiedDiff } from '../../src/render/diff.js';

const INST: Installation = { prefix: '/opt/lro/bin/lro-shell-prefix', hookCommand: '/usr/bin/node /opt/lro/bin/lro.js __claude-code-hook' };
const P = 'settings.json';

/** A user's own layout: 4-space indent, one-line objects, another tool's hook. */
const USER = `{
    "permissions": { "allow": ["Bash(git *)"], "deny": [] },
    "hooks": {
        "PostToolUse": [
            { "matcher": "Edit", "hooks": [{ "type": "command", "command": "prettier --write" }] }
        ]
    },
    "model": "opus"
}
`;

describe('install', () => {
  test('adds the prefix and the MCP hook in the file\'s own layout, touching nothing else', () => {
    const out = install(USER, INST, P);
    expect(JSON.parse(out)).toEqual({
      permissions: { allow: ['Bash(git *)'], deny: [] },
      hooks: {
        PostToolUse: [
          { matcher: 'Edit', hooks: [{ type: 'command', command: 'prettier --write' }] },
          { matcher: 'mcp__.*', hooks: [{ type: 'command', command: INST.hookCommand, timeout: 60 }] },
        ],
      },
      model: 'opus',
      env: { CLAUDE_CODE_SHELL_PREFIX: INST.prefix },
    });
    // the user's lines are all still there, as written
    for (const line of USER.split('\n').filter((l) => l.trim() && !/^\s*[\]}]/.test(l))) expect(out).toContain(line.replace(/,$/, ''));
    expect(out).toContain('            { "matcher": "Edit", "hooks": [{ "type": "command", "command": "prettier --write" }] },\n            {\n                "matcher": "mcp__.*",');
    expect(out).toContain('    "model": "opus",\n    "env": {\n        "CLAUDE_CODE_SHELL_PREFIX": "/opt/lro/bin/lro-shell-prefix"\n    }\n}\n');
    expect(strictJsonProblem(out)).toBeNull();
  });

  test('is idempotent: a second install changes nothing', () => {
    const once = install(USER, INST, P);
    expect(install(once, INST, P)).toBe(once);
  });

  test('a new file, an empty object, tabs and CRLF', () => {
    expect(JSON.parse(install('', INST, P))).toEqual({ env: { CLAUDE_CODE_SHELL_PREFIX: INST.prefix }, hooks: { PostToolUse: [{ matcher: 'mcp__.*', hooks: [{ type: 'command', command: INST.hookCommand, timeout: 60 }] }] } });
    expect(JSON.parse(install('{}', INST, P)).env).toEqual({ CLAUDE_CODE_SHELL_PREFIX: INST.prefix });
    const tabs = '{\r\n\t"model": "opus"\r\n}\r\n';
    const out = install(tabs, INST, P);
    expect(out.startsWith('{\r\n\t"model": "opus",\r\n\t"env": {\r\n\t\t"CLAUDE_CODE_SHELL_PREFIX"')).toBe(true);
    expect(out.replace(/\r\n/g, '')).not.toContain('\n');
    expect(uninstall(out, P)).toBe(tabs);
  });

  test('an env object on one line gets the prefix on that line', () => {
    const text = '{\n  "env": {"FOO": "1"}\n}\n';
    expect(install(text, INST, P)).toContain(`"env": {"FOO": "1", "CLAUDE_CODE_SHELL_PREFIX": "${INST.prefix}"}`);
  });

  test('refuses a file that does not parse, holds a comment, or sets another prefix', () => {
    expect(() => install('{"a": 1,,}', INST, P)).toThrow(/settings.json is not strict JSON/);
    expect(() => install('{\n  // mine\n  "a": 1\n}', INST, P)).toThrow(/a comment at line 2/);
    expect(() => install('[]', INST, P)).toThrow(/not a JSON object/);
    expect(() => install('{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/bin/other"}}', INST, P)).toThrow(/already sets env.CLAUDE_CODE_SHELL_PREFIX/);
  });

  test('a moved lro is updated in place', () => {
    const once = install(USER, INST, P);
    const moved = { prefix: '/new/bin/lro-shell-prefix', hookCommand: '/usr/bin/node /new/bin/lro.js __claude-code-hook' };
    const twice = install(once, moved, P);
    expect(installedIn(twice)).toEqual({ prefix: moved.prefix, hook: moved.hookCommand });
    expect(uninstall(twice, P)).toBe(USER);
  });
});

describe('uninstall', () => {
  test('gives the user\'s file back byte for byte', () => {
    expect(uninstall(install(USER, INST, P), P)).toBe(USER);
  });

  test('removes only lro\'s handler from a group it shares; other tools\' hooks and entries stay', () => {
    const shared = `{
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "mcp__.*",
        "hooks": [
          { "type": "command", "command": "other-tool hook" },
          { "type": "command", "command": "/usr/bin/node /opt/lro/bin/lro.js __claude-code-hook", "timeout": 60 }
        ]
      }
    ]
  },
  "env": { "CLAUDE_CODE_SHELL_PREFIX": "/opt/lro/bin/lro-shell-prefix", "KEEP": "1" }
}
`;
    const out = uninstall(shared, P);
    expect(JSON.parse(out)).toEqual({
      hooks: { PostToolUse: [{ matcher: 'mcp__.*', hooks: [{ type: 'command', command: 'other-tool hook' }] }] },
      env: { KEEP: '1' },
    });
  });

  test('drops what lro left empty, and leaves a file without lro as it is', () => {
    expect(JSON.parse(uninstall(install('{"model": "x"}', INST, P), P))).toEqual({ model: 'x' });
    expect(uninstall(USER, P)).toBe(USER);
  });
});

test('layoutOf and setAt', () => {
  expect(layoutOf('{\n    "a": 1\n}')).toEqual({ indent: '    ', eol: '\n' });
  expect(setAt('{"a": [1, 2]}', ['a', -1], 3)).toBe('{"a": [1, 2, 3]}');
});

test('unifiedDiff', () => {
  expect(unifiedDiff('a\nb\nc\n', 'a\nb\nX\nc\n', 'a/f', 'b/f')).toBe('--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n b\n+X\n c\n');
  expect(unifiedDiff('same\n', 'same\n', 'a', 'b')).toBe('');
});
