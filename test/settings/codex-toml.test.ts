// lro's [mcp_servers.lro] in a user's Codex config.toml: where init puts it and what uninstall takes away.
import { expect, test } from 'vitest';
import { installMcp, uninstallMcp } from '../../src/harness/codex/settings.js';

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

test("a key the user appended at the end stays in their table; one they put in lro's table makes uninstall refuse", () => {
  const appended = `${installMcp(USER, TABLE, 'config.toml')}args2 = 1\n`;
  expect(uninstallMcp(appended, 'config.toml')).toBe(`${USER}args2 = 1\n`);
  // TOML reads it as mcp_servers.lro.approval_policy: taken out with lro's lines it would become a top-level key
  const inLros = `${installMcp('model = "x"\n', TABLE, 'config.toml')}approval_policy = "on-request"\n`;
  expect(() => uninstallMcp(inLros, 'config.toml')).toThrow(/\[mcp_servers\.lro\] holds what lro did not write \(approval_policy\)/);
  // an earlier lro's table with a key of the user's: only command and args are brought up to date
  const earlier = '[mcp_servers.lro]\ncommand = "/old/node"\nstartup_timeout_sec = 30\nargs = [\n  "/old/lro.js",\n  "mcp",\n]\n';
  expect(installMcp(earlier, TABLE, 'config.toml')).toBe(`${TABLE[0]}\n${TABLE[1]}\nstartup_timeout_sec = 30\n${TABLE[2]}\n`);
});

test('a multi-line string holding a line like a table header is no table: lro goes before the real first table', () => {
  const user = 'instructions = """\nbe brief\n[note]\n# not a comment\n"""\nmodel = "x"\n\n[profiles.a]\nm = 1\n';
  const written = installMcp(user, TABLE, 'config.toml');
  expect(written).toBe(`instructions = """\nbe brief\n[note]\n# not a comment\n"""\nmodel = "x"\n\n${TABLE.join('\n')}\n\n[profiles.a]\nm = 1\n`);
  expect(uninstallMcp(written, 'config.toml')).toBe(user);
  const literal = "x = '''\n[a]\n'''\narr = [\n  1, # ]\n  \"[b]\",\n]\n";
  expect(installMcp(literal, TABLE, 'config.toml')).toBe(`${literal}\n${TABLE.join('\n')}\n`);
});

test("lro's server written with dotted keys or an inline table, or mcp_servers inline, is refused", () => {
  for (const text of [
    '[mcp_servers]\nlro.command = "x"\n',
    'mcp_servers.lro.command = "x"\n',
    'mcp_servers = { docs = { command = "d" } }\n',
    '[mcp_servers]\nlro = { command = "x" }\n',
  ]) {
    expect(() => installMcp(text, TABLE, 'config.toml'), text).toThrow(/with dotted keys or an inline table/);
  }
  expect(() => installMcp('a = \n', TABLE, 'config.toml')).toThrow(/config\.toml is not TOML/);
  expect(() => installMcp('[mcp_servers.lro]\ncommand = "other"\n', TABLE, 'config.toml')).toThrow(/not lro's: rename it/);
});
