// lro's [mcp_servers.lro] in a user's Codex config.toml: where init puts it and what uninstall takes away.
import { expect, test } from 'vitest';
import { installMcp, uninstallMcp } from '../../src/harness/codex.js';

const TABLE = ['[mcp_servers.lro]', 'command = "/usr/bin/node"', 'args = ["/opt/lro/bin/lro.js", "mcp"]'];
const USER = '# mine\nmodel = "x"  # c\n\n[profiles.fast]\nmodel = "m"\n\n# servers\n[mcp_servers.docs]\ncommand = "d"\n';

test("the table goes before the user's first table (with the comments right above it), then comes out exactly", () => {
  const written = installMcp(USER, TABLE, 'config.toml');
  expect(written).toBe(`# mine\nmodel = "x"  # c\n\n${TABLE.join('\n')}\n\n[profiles.fast]\nmodel = "m"\n\n# servers\n[mcp_servers.docs]\ncommand = "d"\n`);
  expect(installMcp(written, TABLE, 'config.toml')).toBe(written);
  expect(uninstallMcp(written, 'config.toml')).toBe(USER);
  const commented = '# only\n[a]\nb = 1\n';
  expect(installMcp(commented, TABLE, 'config.toml')).toBe(`${TABLE.join('\n')}\n\n# only\n[a]\nb = 1\n`);
  expect(uninstallMcp(installMcp(commented, TABLE, 'config.toml'), 'config.toml')).toBe(commented);
});

test('with no table, at the end; an empty file gets only the table; both come back exactly', () => {
  for (const user of ['model = "x"\n', '']) {
    expect(uninstallMcp(installMcp(user, TABLE, 'config.toml'), 'config.toml')).toBe(user);
  }
  expect(installMcp('model = "x"\n', TABLE, 'config.toml')).toBe(`model = "x"\n\n${TABLE.join('\n')}\n`);
});

test("a key the user appended at the end stays in their table, and one they put in lro's table is kept on uninstall", () => {
  const appended = `${installMcp(USER, TABLE, 'config.toml')}args2 = 1\n`;
  expect(uninstallMcp(appended, 'config.toml')).toBe(`${USER}args2 = 1\n`);
  const inLros = `${installMcp('model = "x"\n', TABLE, 'config.toml')}approval_policy = "on-request"\n`;
  expect(uninstallMcp(inLros, 'config.toml')).toBe('model = "x"\n\napproval_policy = "on-request"\n');
});
