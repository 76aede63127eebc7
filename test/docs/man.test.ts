// The man page: lint-clean, and it documents every command and every option the program defines (so a new
// option without documentation fails here).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildProgram } from '../../src/cli.js';
import { lroManPage, manPage } from '../../src/faces/man.js';
import type { CommandDef } from '../../src/commands/command.js';
import type { IO } from '../../src/io.js';

const MAN = resolve(__dirname, '../../man/lro.1');
const TEMPLATE = resolve(__dirname, '../../man/lro.1.in');
const DOCS = resolve(__dirname, '../../docs/commands.md');
const roff = readFileSync(MAN, 'utf8');

const quietOutput = { write: async () => undefined, isTTY: false, color: false, columns: 0 };
const io: IO = { stdin: (async function* () {})(), stdinIsTTY: false, stdout: quietOutput, stderr: quietOutput, env: {}, now: () => new Date() };

describe('man/lro.1', () => {
  it('is what the command table, man/lro.1.in and docs/commands.md make (npm run man writes it)', async () => {
    const made = await lroManPage(readFileSync(TEMPLATE, 'utf8'), readFileSync(DOCS, 'utf8'));
    expect(made === roff, 'man/lro.1 is not what the table makes: run npm run man').toBe(true);
  });

  it("takes a command's prose from the docs, and refuses a command missing from the template or the docs", () => {
    const def: CommandDef = { name: 'x', description: 'd', options: [{ flags: '--y <n>', description: 'the y' }], run: async () => 0 };
    const docs = '## `lro x`\n\n<!-- man: x -->\nProse of `x`.\n\n<!-- /man -->\n\nNot in the page.\n';
    const page = manPage([def], '.SH COMMANDS\n.\\" @command x\n', docs);
    expect(page).toBe('.SH COMMANDS\n.SS "lro x [options]"\nProse of \\fBx\\fR.\n.TP\n.BI "\\-\\-y " "n"\nThe y.\n');
    expect(() => manPage([def], '.SH COMMANDS\n', docs)).toThrow(/lro x has no @command line/);
    expect(() => manPage([def], '.\\" @command x\n.\\" @command z\n', docs)).toThrow(/@command z names no command/);
    expect(() => manPage([def], '.\\" @command x\n', 'no markers')).toThrow(/lro x has no prose for the man page/);
    expect(() => manPage([def], '.\\" @command x\n', `${docs}<!-- man: z -->\nz\n`)).toThrow(/man: z -->' names no command/);
  });

  it('passes mandoc -T lint (warnings and above) and renders', () => {
    const lint = spawnSync('mandoc', ['-T', 'lint', '-W', 'warning', MAN], { encoding: 'utf8' });
    if (lint.error) throw new Error('mandoc is needed for this test: apt-get install mandoc');
    expect(lint.stdout + lint.stderr).toBe('');
    expect(lint.status).toBe(0);
    const text = spawnSync('mandoc', ['-T', 'utf8', MAN], { encoding: 'utf8' });
    expect(text.stdout.replace(/.\x08/g, '')).toMatch(/EXIT STATUS/); // without the overstrike of bold
  });

  it('documents every command and every option', async () => {
    const program = await buildProgram({ io, exitCode: 0 });
    const escaped = (flag: string) => flag.replace(/-/g, '\\-');
    // commands and their subcommands (lro mcp proxy), each with a section of its own
    const all = program.commands.flatMap((c) => [[c.name(), c] as const, ...c.commands.map((sub) => [`${c.name()} ${sub.name()}`, sub] as const)]);
    expect(all.map(([name]) => name)).toContain('mcp proxy');
    for (const [name, cmd] of all) {
      if ((cmd as unknown as { _hidden?: boolean })._hidden) continue;
      expect(roff, `section for lro ${name}`).toContain(`.SS "lro ${name}`);
      for (const opt of cmd.options) {
        if (opt.hidden || opt.long === '--help') continue;
        expect(roff, `lro ${name} ${opt.long}`).toContain(escaped(opt.long!));
        if (opt.short) expect(roff, `lro ${name} ${opt.short}`).toContain(escaped(opt.short));
      }
    }
  });

  it('names every environment variable the code reads', () => {
    const src = spawnSync('grep', ['-rhoE', 'env\\.(LRO_[A-Z_]+|NO_COLOR|FORCE_COLOR|TMPDIR|CI)\\b', resolve(__dirname, '../../src')], { encoding: 'utf8' }).stdout;
    const names = [...new Set(src.split('\n').filter(Boolean).map((l) => l.slice(4)))];
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) expect(roff, name).toMatch(new RegExp(`\\.B[R]? ${name}\\b|, ${name}\\b`));
  });
});
