// End-to-end: `--help` on every registered subcommand (read from the program, so new commands are covered)
// exits 0 and shows its options and examples; `lro --version` prints the package's version.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import type { IO } from '../../src/io.js';
import { lro } from '../helpers/cli.js';

/** The commands, and their subcommands as "parent sub" (lro mcp proxy). */
async function commandNames(): Promise<string[]> {
  const quiet = { write: async () => undefined, isTTY: false, color: false, columns: 0 };
  const io: IO = { stdin: (async function* () {})(), stdinIsTTY: false, stdout: quiet, stderr: quiet, env: {}, now: () => new Date() };
  return (await buildProgram({ io, exitCode: 0 })).commands.flatMap((c) => [c.name(), ...c.commands.map((sub) => `${c.name()} ${sub.name()}`)]);
}

const names = await commandNames();

describe('--help', () => {

  it('covers the commands lro is known to have', () => {
    for (const name of ['offload', 'run', 'read', 'grep', 'jq', 'cat', 'info', 'completion', 'mcp', 'mcp proxy']) expect(names).toContain(name);
  });

  for (const name of names) {
    it(`lro ${name} --help shows usage, options and examples`, async () => {
      const r = await lro([...name.split(' '), '--help']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.out).toMatch(new RegExp(`^Usage: lro ${name} `));
      expect(r.out).toMatch(/\nOptions:\n/);
      expect(r.out).toMatch(/\nExamples:\n {2}\S/);
      // every example line of a command uses that command
      const examples = r.out.slice(r.out.indexOf('Examples:\n')).split('\n\n')[0].split('\n').slice(1);
      for (const line of examples.filter(Boolean)) expect(line, line).toMatch(new RegExp(`lro ${name}\\b`));
    });
  }

  it('lro --help lists the visible commands and examples', async () => {
    const r = await lro(['--help']);
    expect(r.code).toBe(0);
    for (const name of names.filter((n) => !n.startsWith('_') && !n.includes(' '))) expect(r.out).toContain(`  ${name} `);
    expect(r.out).not.toContain('__complete-ids');
    expect(r.out).toMatch(/\nExamples:\n/);
  });

  it('lro --version and -V print the version from package.json', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await lro([flag]);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`${pkg.version}\n`);
    }
  });

  it('an unknown command is one line with a suggestion, exit 2', async () => {
    const r = await lro(['grpe', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("lro: unknown command 'grpe' (Did you mean grep?): see lro --help\n");
  });
});
