// The summary each --help ends with is written once, in its command's section of docs/commands.md
// (scripts/docs-help.mjs): every command has one there, every one there is a command's, in that command's section
// (beside its man page prose, which leaves it out), and --help prints it byte for byte.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helpSummaries } from '../../scripts/docs-help.mjs';
import { allCommands, PROGRAM } from '../../src/faces/program.js';
import { helpAfter } from '../../src/commands/commander.js';
import { manProse } from '../../src/faces/man-markdown.js';
import { LONG_RECORD } from '../../src/render/grep-output.js';
import { lro } from '../helpers/cli.js';

const DOCS = readFileSync(resolve(__dirname, '../../docs/commands.md'), 'utf8');
const summaries = helpSummaries(DOCS) as Map<string, string>;

/** Each visible command's declaration by the name --help and the markers use ('mcp proxy'). */
async function declarations() {
  const out = new Map<string, { notes?: string; examples?: string[] }>([['lro', PROGRAM]]);
  for (const d of await allCommands()) {
    if (d.hidden) continue;
    out.set(d.name, d);
    for (const s of d.subcommands ?? []) if (!s.hidden) out.set(`${d.name} ${s.name}`, s);
  }
  return out;
}

/** The `## ` heading a line of docs/commands.md sits under. */
function sectionOf(line: string): string {
  const lines = DOCS.split('\n');
  const at = lines.indexOf(line);
  expect(at, line).toBeGreaterThanOrEqual(0);
  return lines.slice(0, at).reverse().find((l) => l.startsWith('## ') || l.startsWith('# '))!;
}

describe('--help summaries in docs/commands.md', () => {
  it('every visible command has one, and every one is a command\'s', async () => {
    const defs = await declarations();
    expect([...summaries.keys()].sort()).toEqual([...defs.keys()].sort());
    for (const [name, def] of defs) expect(def.notes, name).toBe(summaries.get(name));
  });

  it('each sits in the section of its command, beside its man page prose, which leaves it out', () => {
    const prose = manProse(DOCS);
    for (const [name, text] of summaries) {
      if (name === 'lro') {
        expect(sectionOf(`<!-- help: ${name} -->`)).toBe('# Commands');
        continue;
      }
      expect(sectionOf(`<!-- help: ${name} -->`), name).toBe(sectionOf(`<!-- man: ${name} -->`));
      expect(prose.get(name), name).not.toContain(text.split('\n')[0]);
      expect(prose.get(name), name).not.toContain('--help`:');
    }
  });

  it('grep\'s states the length from which a record is shown as windows', () => {
    expect(summaries.get('grep')).toContain(`A record longer than ${LONG_RECORD} characters is shown as windows`);
  });

  it('lro COMMAND --help ends with it, byte for byte', async () => {
    const defs = await declarations();
    for (const name of ['lro', 'grep', 'gc', 'init', 'mcp proxy']) {
      const r = await lro(name === 'lro' ? ['--help'] : [...name.split(' '), '--help']);
      expect(r.code, name).toBe(0);
      expect(r.out.endsWith(`${helpAfter(defs.get(name)!)}\n`), name).toBe(true);
      expect(r.out.endsWith(`\n\n${summaries.get(name)}\n`), name).toBe(true);
    }
  });

  it('are read byte for byte, CRLF or not; a marker inside a fenced example is not one; a marker without a block is an error', () => {
    const docs = ['## `lro a`', '<!-- help: a -->', 'The summary at the end of `lro a --help`:', '', '```text', 'Line one.', '  indented: two', '```', '```md', '<!-- help: b -->', '```'];
    expect([...helpSummaries(docs.join('\n'))]).toEqual([['a', 'Line one.\n  indented: two']]);
    expect([...helpSummaries(docs.join('\r\n'))]).toEqual([['a', 'Line one.\n  indented: two']]);
    expect(() => helpSummaries('<!-- help: c -->\nno block\n## next')).toThrow("'<!-- help: c -->' has no ```text block after it");
    expect(() => helpSummaries(`${docs.slice(0, 8).join('\n')}\n${docs.slice(1, 8).join('\n')}`)).toThrow('is there twice');
  });
});
